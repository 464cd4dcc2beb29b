import { SPEED_ERROR, type Speed } from '../worker/protocol';
import { parseSpeed } from './speed';

export interface UrlParams {
  scenario?: string;
  speed?: Speed;
  seed?: number;
  autoplay: boolean;
  /** Fix names from repeated `fix=` parameters, deduplicated; whether the scenario has them is checked once it is loaded. */
  fixes: string[];
  /** One `param: problem` line per invalid value; the app falls back to defaults for those. */
  errors: string[];
}

/** Reads `?scenario=demo.yaml&speed=max&autoplay=1&seed=42&fix=a&fix=b`. Whether the scenario exists is checked once the index is in. */
export function parseUrlParams(search: string): UrlParams {
  const q = new URLSearchParams(search);
  const out: UrlParams = { autoplay: false, fixes: [], errors: [] };

  const scenario = q.get('scenario');
  if (scenario !== null) {
    if (/^[\w.-]+\.(ya?ml|json)$/.test(scenario)) out.scenario = scenario;
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

  const autoplay = q.get('autoplay');
  if (autoplay !== null) {
    if (autoplay === '1' || autoplay === 'true' || autoplay === '') out.autoplay = true;
    else if (autoplay !== '0' && autoplay !== 'false') out.errors.push('autoplay: expected 1 or 0');
  }

  for (const fix of q.getAll('fix')) {
    const name = fix.trim();
    if (name === '') out.errors.push('fix: expected a fix name, got an empty value');
    else if (!out.fixes.includes(name)) out.fixes.push(name);
  }
  return out;
}
