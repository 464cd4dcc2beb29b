import { loadShipped } from './shipped';
import { createContext } from '../src/sim/context';
import { carried } from '../src/sim/core/snapshot';
import { atSeconds } from '../src/sim/core/time';
import { World } from '../src/sim/world';

/** What a snapshot of a run would have to copy: everything reachable from its context and world (issue 25). */
export interface StateGraph {
  scenario: string;
  atSeconds: number;
  /** Objects, arrays, Maps and Sets. */
  containers: number;
  typedArrayBytes: number;
  /** Closures in the graph (not bound methods or shared functions): a copy cannot rebind them, nor see what they close over. */
  functions: number;
  /** Where they sit, as `Class.field` of their holder, with how many and the first one's source, most first. */
  functionPlaces: { place: string; count: number; sample: string }[];
}

/** Builds the run as createSim does, runs it to `untilS` and walks what it holds. */
export function measureStateGraph(id: string, untilS: number): StateGraph {
  const scenario = loadShipped(id);
  const ctx = createContext(scenario.seed);
  const built = (ctx.watcher = new World(ctx, scenario));
  ctx.sched.runUntil(atSeconds(untilS));

  const seen = new Set<object>();
  const places = new Map<string, { count: number; sample: string }>();
  let containers = 0;
  let typedArrayBytes = 0;
  let functions = 0;
  const stack: [unknown, string][] = [
    [ctx, 'context'],
    [built, 'world'],
  ];
  while (stack.length > 0) {
    const [value, place] = stack.pop()!;
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) continue;
    if (seen.has(value)) continue;
    seen.add(value);
    if (typeof value === 'function') {
      if (carried(value as () => unknown)) continue;
      functions++;
      const entry = places.get(place) ?? { count: 0, sample: String(value).replace(/\s+/g, ' ').slice(0, 80) };
      entry.count++;
      places.set(place, entry);
      continue;
    }
    if (ArrayBuffer.isView(value)) {
      typedArrayBytes += value.byteLength;
      continue;
    }
    containers++;
    if (Array.isArray(value) || value instanceof Set) for (const item of value as Iterable<unknown>) stack.push([item, place]);
    else if (value instanceof Map) for (const [k, v] of value) stack.push([k, place], [v, place]);
    else {
      const holder = (value as object).constructor?.name ?? 'Object';
      for (const [key, v] of Object.entries(value)) stack.push([v, `${holder}.${key}`]);
    }
  }
  const functionPlaces = [...places].map(([place, e]) => ({ place, ...e })).sort((a, b) => b.count - a.count || (a.place < b.place ? -1 : 1));
  return { scenario: id, atSeconds: untilS, containers, typedArrayBytes, functions, functionPlaces };
}

export function printStateGraph(g: StateGraph, shown = 12): void {
  console.log(
    `${g.scenario} at ${g.atSeconds} s: ${g.containers.toLocaleString('en-US')} objects, arrays and maps; ` +
      `${(g.typedArrayBytes / 1e6).toFixed(1)} MB of typed arrays; ${g.functions.toLocaleString('en-US')} functions in ${g.functionPlaces.length} places`,
  );
  for (const p of g.functionPlaces.slice(0, shown)) console.log(`  ${String(p.count).padStart(6)}  ${p.place}  ${p.sample}`);
}
