import type { FaultDescriptor } from '../sim';
import type { ScenarioSummary } from '../worker/protocol';
import type { CompareLink } from './url-params';

type FixList = ScenarioSummary['fixes'];

/** The chosen fixes in the order the scenario lists them, which is the order the loader applies them in. */
export function orderFixes(available: FixList, chosen: Iterable<string>): string[] {
  const wanted = new Set(chosen);
  return available.map((f) => f.name).filter((name) => wanted.has(name));
}

/** The selection after switching one fix on or off. */
export function toggleFix(available: FixList, current: readonly string[], name: string, on: boolean): string[] {
  const next = new Set(current);
  if (on) next.add(name);
  else next.delete(name);
  return orderFixes(available, next);
}

/** Splits fix names asked for in the URL into the scenario's own (in its order) and one `fix: …` line per unknown name. */
export function checkFixNames(summary: ScenarioSummary, names: readonly string[]): { fixes: string[]; problems: string[] } {
  const known = new Set(summary.fixes.map((f) => f.name));
  const available = summary.fixes.length > 0 ? `available: ${[...known].join(', ')}` : 'it has no fixes';
  const problems = [...new Set(names)].filter((name) => !known.has(name)).map((name) => `fix: unknown fix "${name}" for scenario ${summary.id} (${available})`);
  return { fixes: orderFixes(summary.fixes, names), problems };
}

/** The fixes a compare run uses: the main run's with `fix` switched the other way, and whether B has it on. */
export function fixesForB(available: FixList, aFixes: readonly string[], fix: string): { fixes: string[]; on: boolean } {
  const on = !aFixes.includes(fix);
  return { fixes: toggleFix(available, aFixes, fix, on), on };
}

/** Why a link's compare cannot start on the loaded scenario (one `compare:`, `bfault:` or `branch:` line), or null when it can. */
export function compareProblem(summary: ScenarioSummary, catalog: readonly FaultDescriptor[], aFixes: readonly string[], compare: CompareLink): string | null {
  if (compare.branchS !== undefined && compare.branchS > summary.durationSeconds)
    return `branch: ${summary.id} runs ${summary.durationSeconds} s; the link asks for run B to part at ${compare.branchS} s`;
  if ('fault' in compare) {
    return catalog.some((f) => f.id === compare.fault.fault) ? null : `bfault: unknown fault "${compare.fault.fault}" (known: ${catalog.map((f) => f.id).join(', ')})`;
  }
  const fix = summary.fixes.find((f) => f.name === compare.fix);
  if (!fix) return checkFixNames(summary, [compare.fix]).problems[0]!.replace(/^fix:/, 'compare:');
  if (compare.branchS === undefined) return null;
  if (aFixes.includes(fix.name)) return `branch: run A has fix ${fix.name} already, so B cannot roll it out`;
  return fix.rollout === null ? null : `branch: fix ${fix.name} cannot be rolled out while the run goes on: ${fix.rollout}`;
}
