import { echo, oneLine, type TimelineAddition } from '../sim';

export type { TimelineAddition };

// Model choice: a pair is the most a sweep adds; the room left covers a hand-made list without letting a link carry thousands.
export const MAX_TIMELINE_ADDITIONS = 20;

/** A value quoted into a message, cut short: strings as the link parser quotes them. */
const shown = (value: unknown): string => (typeof value === 'string' ? echo(value) : value === undefined ? 'nothing' : oneLine(JSON.stringify(value) ?? String(value)));

/**
 * Checks a list received from a link or another thread; throws an Error naming the entry and field (`label[1].at: …`).
 * Whether the fault exists and takes the target is the loader's to say, by the entry's place in the timeline.
 */
export function parseTimelineAdditions(value: unknown, label: string): TimelineAddition[] {
  if (!Array.isArray(value)) throw new Error(`${label}: expected a list of {at, fault, target, params?}`);
  if (value.length > MAX_TIMELINE_ADDITIONS) throw new Error(`${label}: at most ${MAX_TIMELINE_ADDITIONS} entries, got ${value.length}`);
  return value.map((item: unknown, i) => {
    const entry = (typeof item === 'object' && item !== null ? item : {}) as Partial<Record<keyof TimelineAddition, unknown>>;
    const { at, fault, target, params } = entry;
    const where = `${label}[${i}]`;
    if (typeof at !== 'number' || !Number.isFinite(at) || at < 0) throw new Error(`${where}.at: expected simulated seconds from 0, got ${shown(at)}`);
    if (typeof fault !== 'string' || !/^[a-z][a-z0-9-]{0,63}$/.test(fault)) throw new Error(`${where}.fault: expected a fault id like "power-off-node", got ${shown(fault)}`);
    if (typeof target !== 'string' || !/^[a-z][a-z-]*\/[\w.-]{1,200}$/.test(target)) {
      throw new Error(`${where}.target: expected kind/name like "pod/web-1", got ${shown(target)}`);
    }
    const out: TimelineAddition = { at, fault, target };
    if (params !== undefined) {
      if (typeof params !== 'object' || params === null || Array.isArray(params)) throw new Error(`${where}.params: expected {name: value}`);
      for (const [name, v] of Object.entries(params)) {
        if (!/^[A-Za-z]\w{0,63}$/.test(name)) throw new Error(`${where}.params: expected parameter names like "replicas", got ${shown(name)}`);
        if (!['number', 'string', 'boolean'].includes(typeof v)) throw new Error(`${where}.params.${name}: expected a number, text or true/false`);
      }
      out.params = params as Record<string, number | string | boolean>;
    }
    return out;
  });
}

// Model choice: a risky setting writes a handful of overrides; room for a few more written by hand.
export const MAX_SETS = 20;
// Model choice: longer than any path and value a setting writes, short enough to quote in a message.
const MAX_SET_CHARS = 300;

/** Checks `path=value` overrides received from a link or another thread; throws naming the entry (`label[1]: …`). */
export function parseSets(value: unknown, label: string): string[] {
  if (!Array.isArray(value)) throw new Error(`${label}: expected a list of path=value overrides`);
  if (value.length > MAX_SETS) throw new Error(`${label}: at most ${MAX_SETS} overrides, got ${value.length}`);
  return value.map((set: unknown, i) => {
    if (typeof set !== 'string' || set.length > MAX_SET_CHARS || !/^[A-Za-z_][\w.[\]-]*=\S/.test(set)) {
      throw new Error(`${label}[${i}]: expected path=value like "params.client.reconnectMs=600", got ${shown(set)}`);
    }
    return set;
  });
}

/**
 * The `path=value` overrides that put `additions` at `timeline[first]` on, for the loader's `sets`: the loader then
 * checks each entry against the catalog and names it by its place, as it does for `--fault`.
 */
export function timelineSets(additions: readonly TimelineAddition[], first: number): string[] {
  return additions.flatMap((a, i) => {
    const entry = `timeline[${first + i}]`;
    const sets = [`${entry}.at=${a.at}`, `${entry}.fault=${JSON.stringify(a.fault)}`, `${entry}.target=${JSON.stringify(a.target)}`, `${entry}.params={}`];
    for (const [name, v] of Object.entries(a.params ?? {})) sets.push(`${entry}.params.${name}=${JSON.stringify(v)}`);
    return sets;
  });
}
