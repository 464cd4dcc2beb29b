import { decompressFromEncodedURIComponent } from 'lz-string';
import { SPEED_ERROR, type Speed, type TimedFault } from '../worker/protocol';
import { parseSpeed } from './speed';

export interface UrlParams {
  scenario?: string;
  speed?: Speed;
  seed?: number;
  autoplay: boolean;
  /** Fix names from repeated `fix=` parameters, deduplicated; whether the scenario has them is checked once it is loaded. */
  fixes: string[];
  /** A scenario carried in the link itself (`name` and compressed `src`), for one that is not shipped. */
  inline?: { name: string; text: string };
  /** Simulated seconds to replay to, paused, with `faults` applied at their times. */
  t?: number;
  /** Faults a user applied, with their times in µs (compressed JSON); the worker checks each entry. */
  faults?: TimedFault[];
  /** `?embed`: the picture, the timeline and the controls only, for an iframe in a wiki page. */
  embed: boolean;
  /** `?present`: open in presenter mode, for a workshop. */
  present: boolean;
  /** A chapter (1-based) to start at instead of `t`; whether the scenario has it is checked once it is loaded. */
  chapter?: number;
  /** The entity to inspect, `kind/name`; ignored if the run has no such entity. */
  select?: string;
  /** The timeline's range in seconds, from and to. */
  zoom?: [number, number];
  /** One `param: problem` line per invalid value; the app falls back to defaults for those. */
  errors: string[];
}

/** A scenario file name that links, saves and downloads can carry: no folders, ending .yaml, .yml or .json. */
export function isScenarioFileName(name: string): boolean {
  return /^[\w.-]+\.(ya?ml|json)$/.test(name);
}

/** Text compressed into a link parameter; URLSearchParams reads the alphabet's `+` as a space, so it is put back. */
function unpack(value: string): string | null {
  return decompressFromEncodedURIComponent(value.replaceAll(' ', '+')) || null;
}

/** Reads `?scenario=demo.yaml&speed=max&autoplay=1&seed=42&fix=a&fix=b`. Whether the scenario exists is checked once the index is in. */
export function parseUrlParams(search: string): UrlParams {
  const q = new URLSearchParams(search);
  const out: UrlParams = { autoplay: false, embed: false, present: false, fixes: [], errors: [] };

  const scenario = q.get('scenario');
  if (scenario !== null) {
    if (isScenarioFileName(scenario)) out.scenario = scenario;
    else out.errors.push(`scenario: expected a shipped scenario file name like "demo.yaml", got "${scenario}"`);
  }

  const speed = q.get('speed');
  if (speed !== null) {
    const parsed = parseSpeed(speed);
    if (parsed === undefined) out.errors.push(SPEED_ERROR);
    else out.speed = parsed;
  }

  const seed = q.get('seed');
  if (seed !== null) {
    const n = Number(seed);
    if (/^\d+$/.test(seed) && n <= 0xffff_ffff) out.seed = n;
    else out.errors.push('seed: expected an integer 0–4294967295');
  }

  for (const flag of ['autoplay', 'embed', 'present'] as const) {
    const value = q.get(flag);
    if (value === null) continue;
    if (value === '1' || value === 'true' || value === '') out[flag] = true;
    else if (value !== '0' && value !== 'false') out.errors.push(`${flag}: expected 1 or 0`);
  }

  const src = q.get('src');
  if (src !== null) {
    const name = q.get('name') ?? 'shared.yaml';
    const text = unpack(src);
    if (out.scenario !== undefined) out.errors.push('src: a link carries either a shipped scenario or its own, not both');
    else if (!isScenarioFileName(name)) out.errors.push(`name: expected a file name like "mine.yaml", got "${name}"`);
    else if (text === null) out.errors.push('src: the scenario in the link is damaged (the link may have been cut off)');
    else out.inline = { name, text };
  }

  const t = q.get('t');
  if (t !== null) {
    const n = Number(t);
    if (t.trim() !== '' && Number.isFinite(n) && n >= 0) out.t = n;
    else out.errors.push(`t: expected simulated seconds from 0, got "${t}"`);
  }

  const chapter = q.get('chapter');
  if (chapter !== null) {
    const n = Number(chapter);
    if (!/^\d+$/.test(chapter) || n < 1) out.errors.push(`chapter: expected a chapter number from 1, got "${chapter}"`);
    else if (out.t !== undefined) out.errors.push('chapter: a link starts at a chapter or at t, not both');
    else out.chapter = n;
  }

  const select = q.get('select');
  if (select !== null) {
    if (/^[a-z][a-z-]*\/\S{1,200}$/.test(select)) out.select = select;
    else out.errors.push(`select: expected an entity like "pod/web-1", got "${select}"`);
  }

  const zoom = q.get('zoom');
  if (zoom !== null) {
    const [from, to, ...rest] = zoom.split(',').map((part) => (part.trim() === '' ? NaN : Number(part)));
    if (rest.length === 0 && from !== undefined && to !== undefined && Number.isFinite(from) && Number.isFinite(to) && from >= 0 && from < to) out.zoom = [from, to];
    else out.errors.push(`zoom: expected the timeline's range as "from,to" in seconds, from < to, got "${zoom}"`);
  }

  const faults = q.get('faults');
  if (faults !== null) {
    const text = unpack(faults);
    let list: unknown;
    try {
      list = text === null ? null : JSON.parse(text);
    } catch {
      list = null;
    }
    if (Array.isArray(list)) out.faults = list as TimedFault[];
    else out.errors.push('faults: the list of applied faults in the link is damaged (the link may have been cut off)');
  }

  for (const fix of q.getAll('fix')) {
    const name = fix.trim();
    if (name === '') out.errors.push('fix: expected a fix name, got an empty value');
    else if (!out.fixes.includes(name)) out.fixes.push(name);
  }
  return out;
}
