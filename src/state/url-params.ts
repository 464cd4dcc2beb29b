import lz from 'lz-string';
import { echo, formatCount, type FaultRequest } from '../sim';
import { SPEED_ERROR, type Speed, type TimedFault, type TimelineAddition } from '../worker/protocol';
import { parseSets, parseTimelineAdditions } from '../worker/timeline-additions';
import { MAX_LINK_CHARS } from './share-link';
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
  /** `path=value` overrides from repeated `set=` parameters, applied after the fixes when the scenario loads. */
  sets?: string[];
  /** Faults added to the scenario's timeline when it loads (compressed JSON, `at` in seconds), as a sweep's row replays. */
  timeline?: TimelineAddition[];
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
  /** A compare's run B; checked once the scenario is loaded. */
  compare?: CompareLink;
  /** One `param: problem` line per invalid value; the app falls back to defaults for those. */
  errors: string[];
}

/** A scenario file name that links, saves and downloads can carry: no folders, ending .yaml, .yml or .json. */
export function isScenarioFileName(name: string): boolean {
  return /^[\w.-]+\.(ya?ml|json)$/.test(name);
}

// Model choice: longer than any fix name a shipped scenario uses, short enough that naming an unknown one stays short.
const MAX_FIX_CHARS = 80;

/**
 * Text compressed into a link parameter, or why it cannot be read. URLSearchParams reads the alphabet's `+` as a
 * space, so it is put back. The decoder throws on some damaged input, and its output can grow with the square of its
 * input, so a parameter longer than any link the app writes is refused by its length before decoding.
 */
function unpack(value: string): { text: string } | { problem: string } {
  if (value.length > MAX_LINK_CHARS) {
    return { problem: `is ${formatCount(value.length)} characters long, longer than any link Netmortem writes (${formatCount(MAX_LINK_CHARS)})` };
  }
  try {
    const text = lz.decompressFromEncodedURIComponent(value.replaceAll(' ', '+'));
    if (text) return { text };
  } catch {
    // Same as an empty result: the compressed text is damaged.
  }
  return { problem: 'is damaged (the link may have been cut off)' };
}

/** A compare's run B as a link gives it: the fix it toggles, or with `branchS` rolls out at that second; or the fault it alone takes then. */
export type CompareLink = { fix: string; branchS?: number } | { fault: FaultRequest; branchS: number };

/** A fault as a link's `bfault=` gives it: its id, target and parameters; whether the scenario has them is the worker's to say. */
function readFault(value: unknown): FaultRequest | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'expected {fault, target, params}';
  const { fault, target, params } = value as Record<string, unknown>;
  if (typeof fault !== 'string' || !/^[a-z][a-z-]{0,60}$/.test(fault)) return `expected a fault id like "delete-pod", got ${echo(JSON.stringify(fault) ?? 'none')}`;
  if (typeof target !== 'string' || target.length === 0 || target.length > 200) return `expected the fault's target like "pod/web-1", got ${echo(JSON.stringify(target) ?? 'none')}`;
  const scalar = (v: unknown): boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params) || !Object.values(params).every(scalar))) {
    return "expected the fault's params as names with numbers, strings or booleans";
  }
  return { fault, target, params: (params ?? {}) as FaultRequest['params'] };
}

/** Reads `?scenario=demo.yaml&speed=max&autoplay=1&seed=42&fix=a&fix=b`. Whether the scenario exists is checked once the index is in. */
export function parseUrlParams(search: string): UrlParams {
  const q = new URLSearchParams(search);
  const out: UrlParams = { autoplay: false, embed: false, present: false, fixes: [], errors: [] };

  const scenario = q.get('scenario');
  if (scenario !== null) {
    if (isScenarioFileName(scenario)) out.scenario = scenario;
    else out.errors.push(`scenario: expected a shipped scenario file name like "demo.yaml", got ${echo(scenario)}`);
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
    const packed = unpack(src);
    if (out.scenario !== undefined) out.errors.push('src: a link carries either a shipped scenario or its own, not both');
    else if (!isScenarioFileName(name)) out.errors.push(`name: expected a file name like "mine.yaml", got ${echo(name)}`);
    else if ('problem' in packed) out.errors.push(`src: the scenario in the link ${packed.problem}`);
    else out.inline = { name, text: packed.text };
  }

  const t = q.get('t');
  if (t !== null) {
    const n = Number(t);
    if (t.trim() !== '' && Number.isFinite(n) && n >= 0) out.t = n;
    else out.errors.push(`t: expected simulated seconds from 0, got ${echo(t)}`);
  }

  const chapter = q.get('chapter');
  if (chapter !== null) {
    const n = Number(chapter);
    if (!/^\d+$/.test(chapter) || n < 1 || !Number.isSafeInteger(n)) out.errors.push(`chapter: expected a chapter number from 1, got ${echo(chapter)}`);
    else if (out.t !== undefined) out.errors.push('chapter: a link starts at a chapter or at t, not both');
    else out.chapter = n;
  }

  const select = q.get('select');
  if (select !== null) {
    if (/^[a-z][a-z-]*\/\S{1,200}$/.test(select)) out.select = select;
    else out.errors.push(`select: expected an entity like "pod/web-1", got ${echo(select)}`);
  }

  const zoom = q.get('zoom');
  if (zoom !== null) {
    const [from, to, ...rest] = zoom.split(',').map((part) => (part.trim() === '' ? NaN : Number(part)));
    if (rest.length === 0 && from !== undefined && to !== undefined && Number.isFinite(from) && Number.isFinite(to) && from >= 0 && from < to) out.zoom = [from, to];
    else out.errors.push(`zoom: expected the timeline's range as "from,to" in seconds, from < to, got ${echo(zoom)}`);
  }

  const faults = q.get('faults');
  if (faults !== null) {
    const packed = unpack(faults);
    let list: unknown = null;
    if ('text' in packed) {
      try {
        list = JSON.parse(packed.text);
      } catch {
        // Not JSON: damaged like a list that does not decompress.
      }
    }
    if (Array.isArray(list)) out.faults = list as TimedFault[];
    else out.errors.push(`faults: the list of applied faults in the link ${'problem' in packed ? packed.problem : 'is damaged (the link may have been cut off)'}`);
  }

  const timeline = q.get('timeline');
  if (timeline !== null) {
    const packed = unpack(timeline);
    if ('problem' in packed) out.errors.push(`timeline: the list of faults the link adds to the timeline ${packed.problem}`);
    else {
      try {
        out.timeline = parseTimelineAdditions(JSON.parse(packed.text), 'timeline');
      } catch (error) {
        out.errors.push(error instanceof SyntaxError ? 'timeline: the list of faults the link adds to the timeline is damaged (the link may have been cut off)' : (error as Error).message);
      }
    }
  }

  const sets = q.getAll('set');
  if (sets.length > 0) {
    try {
      out.sets = parseSets(sets, 'set');
    } catch (error) {
      out.errors.push((error as Error).message);
    }
  }

  const badFixes: string[] = [];
  for (const fix of q.getAll('fix')) {
    const name = fix.trim();
    if (name === '' || name.length > MAX_FIX_CHARS) badFixes.push(fix);
    else if (!out.fixes.includes(name)) out.fixes.push(name);
  }
  const compare = q.get('compare');
  const bfault = q.get('bfault');
  const branch = q.get('branch');
  let fault: FaultRequest | undefined;
  if (compare !== null && bfault !== null) out.errors.push('bfault: run B differs from A by a fix (compare=) or a fault (bfault=), not both');
  else if (compare !== null) {
    const fix = compare.trim();
    if (fix === '' || fix.length > MAX_FIX_CHARS) out.errors.push(`compare: expected a fix name of 1–${MAX_FIX_CHARS} characters, got ${fix === '' ? 'an empty value' : echo(compare)}`);
    else out.compare = { fix };
  } else if (bfault !== null) {
    const packed = unpack(bfault);
    let read: FaultRequest | string = 'is damaged (the link may have been cut off)';
    if ('text' in packed) {
      try {
        read = readFault(JSON.parse(packed.text));
      } catch {
        // Not JSON: damaged like a fault that does not decompress.
      }
    } else read = packed.problem;
    if (typeof read === 'string') out.errors.push(`bfault: the fault run B takes in the link ${read}`);
    else fault = read;
  }
  if (branch !== null || fault) {
    const s = branch === null || branch.trim() === '' ? NaN : Number(branch);
    if (compare === null && bfault === null) out.errors.push('branch: a branch needs the fix it rolls out, as compare=, or the fault B takes, as bfault=');
    else if (!Number.isFinite(s) || s < 0) out.errors.push(`branch: expected the second run B parts from A at, 0 or more, got ${branch === null ? 'none' : echo(branch)}`);
    else if (fault) out.compare = { fault, branchS: s };
    else if (out.compare && 'fix' in out.compare) out.compare.branchS = s;
  }
  const [bad, ...more] = badFixes;
  if (bad !== undefined) {
    const others = more.length === 0 ? '' : ` (and ${formatCount(more.length)} more)`;
    out.errors.push(`fix: expected a fix name of 1–${MAX_FIX_CHARS} characters, got ${bad.trim() === '' ? 'an empty value' : echo(bad)}${others}`);
  }
  return out;
}
