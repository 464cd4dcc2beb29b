import type { FaultRequest, Sim, WhyChain } from '../api';
import { atSeconds, type SimTime } from '../core/time';
import { faultCatalog } from '../faults/catalog';
import { targetNames } from '../scenario/cross-checks';
import { withSets } from '../scenario/load';
import type { Scenario } from '../scenario/schema';
import { createSim } from '../sim';
import { SETTING_IDS, settingUses, type SettingUse } from './settings';
import { whyCandidates } from './why';
import { clientWindow, windowStart, type ClientWindow } from './window';

/** What to sweep: which faults and risky settings, alone or in pairs, when faults land and how long the run goes on after them. */
export interface SweepOptions {
  /** Catalog fault ids to try, in catalog order whatever the order given; every fault when absent. */
  faults?: readonly string[];
  /** Risky setting ids to try (settings.ts), in its order; every setting when absent, none when empty. */
  settings?: readonly string[];
  pairs: boolean;
  /** Simulated seconds from the start at which the fault lands. */
  at: number;
  /** Simulated seconds the run goes on after it. */
  for: number;
}

/**
 * One run of the sweep: the faults (none, one, or two for a pair) that land together at the sweep's time, parameters at
 * their defaults, and the risky setting turned on from time 0, if any.
 */
export interface Variant {
  index: number;
  faults: FaultRequest[];
  setting?: SettingUse;
}

/** Everything every run of a sweep shares, as plain data a worker can be sent. */
export interface SweepPlan {
  scenario: Scenario;
  /** The fixes the scenario was loaded with, as each run's report records them. */
  fixes: string[];
  options: SweepOptions;
  variants: Variant[];
  /** Faults of the catalog (or of `options.faults`) that have nothing to land on in this scenario. */
  untargeted: string[];
  /** Chosen risky settings with nothing to apply to, and those the scenario already has (not variants). */
  settings: { untargeted: string[]; inEffect: { id: string; target: string }[] };
  baseline: UnfaultedRun;
}

/** The unfaulted run: its digest, what clients saw from the faults' step on, and the why chains it can tell. */
export interface UnfaultedRun {
  digest: string;
  window: ClientWindow;
  why: WhyChain[];
}

/** Checks the options against the scenario; throws naming the option (`at`, `for`, `faults`). */
export function checkSweepOptions(scenario: Scenario, options: SweepOptions): void {
  const known = faultCatalog().map((f) => f.id);
  for (const id of options.faults ?? []) {
    if (!known.includes(id)) throw new Error(`faults: no fault "${id}" in the catalog (known: ${known.join(', ')})`);
  }
  for (const id of options.settings ?? []) {
    if (!SETTING_IDS.includes(id)) throw new Error(`settings: no risky setting "${id}" (known: ${SETTING_IDS.join(', ')})`);
  }
  if (!(options.at >= 0 && options.at < scenario.duration)) {
    throw new Error(`at: ${options.at} s is not within the run (the scenario lasts ${scenario.duration} s)`);
  }
  if (!(options.for > 0 && options.at + options.for <= scenario.duration)) {
    throw new Error(`for: ${options.at} s + ${options.for} s runs past the end of the scenario (${scenario.duration} s); at most ${scenario.duration - options.at} s`);
  }
}

/**
 * Runs the unfaulted scenario and lists every variant: each chosen catalog fault on each target of its kinds the
 * scenario names (pods: those running in the unfaulted run when the fault lands), then, with `pairs`, every two of those;
 * then each chosen risky setting on each target the scenario does not have it on, and, with `pairs`, each of those with
 * each single fault.
 */
export function planSweep(scenario: Scenario, fixes: readonly string[], options: SweepOptions): SweepPlan {
  checkSweepOptions(scenario, options);
  let running: string[] = [];
  const baseline = runUnfaulted(scenario, fixes, options, (sim) => {
    running = sim
      .topology()
      .pods.filter((p) => p.phase === 'running')
      .map((p) => p.name);
  });
  const names: Record<string, string[]> = { ...targetNames(scenario.topology), pod: running };
  const chosen = faultCatalog().filter((f) => options.faults === undefined || options.faults.includes(f.id));
  const singles: FaultRequest[] = chosen.flatMap((f) => f.targets.flatMap((kind) => (names[kind] ?? []).map((name) => ({ fault: f.id, target: `${kind}/${name}` }))));
  const untargeted = chosen.filter((f) => !singles.some((s) => s.fault === f.id)).map((f) => f.id);
  const lists: FaultRequest[][] = singles.map((s) => [s]);
  if (options.pairs) singles.forEach((a, i) => singles.slice(i + 1).forEach((b) => lists.push([a, b])));
  const variants: Omit<Variant, 'index'>[] = lists.map((faults) => ({ faults }));
  const settings = settingUses(scenario, options.settings);
  for (const setting of settings.uses) variants.push({ faults: [], setting });
  if (options.pairs) for (const setting of settings.uses) for (const fault of singles) variants.push({ faults: [fault], setting });
  return {
    scenario,
    fixes: [...fixes],
    options: { ...options, ...(options.faults ? { faults: [...options.faults] } : {}), ...(options.settings ? { settings: [...options.settings] } : {}) },
    variants: variants.map((v, index) => ({ index, ...v })),
    untargeted,
    settings: { untargeted: settings.untargeted, inEffect: settings.inEffect },
    baseline,
  };
}

/** Runs the scenario without the sweep's faults to the window's end; `atLanding` sees it where they would land. */
export function runUnfaulted(scenario: Scenario, fixes: readonly string[], options: SweepOptions, atLanding?: (sim: Sim) => void): UnfaultedRun {
  const sim = createSim(scenario, { fixes });
  sim.runUntil(atSeconds(options.at));
  atLanding?.(sim);
  sim.runUntil(atSeconds(options.at + options.for));
  const report = sim.report(0);
  return { digest: report.digest, window: windowAfter(sim, options.at), why: whyCandidates(sim, report) };
}

/** What clients saw from the step that holds `at` to where the run stopped. */
function windowAfter(sim: Sim, at: number): ClientWindow {
  const { stepSeconds } = sim.seriesSince(sim.sampleCount());
  return clientWindow(sim.seriesSince(windowStart(at, stepSeconds)));
}

/** Why timeline entry `index` failed where it landed at `at` (a pod already gone, a node that cannot take it), if it did. */
export function timelineFailure(sim: Sim, index: number, at: SimTime): string | undefined {
  const prefix = `timeline[${index}] `;
  const event = sim.eventsSince(0).find((e) => e.kind === 'fault.failed' && e.t === at && e.message.startsWith(prefix));
  return event && event.message.slice(event.message.indexOf(': ', prefix.length) + 2);
}

/** How one variant's run went: what clients saw after the faults landed, or why a fault could not land. */
export type VariantRun = { index: number; refused: string } | { index: number; digest: string; window: ClientWindow; why: WhyChain[] };

/**
 * Runs one variant as `npm run sim -- … --set PATH=VALUE --fault AT:FAULT:TARGET --until END` runs it (the setting's
 * overrides after the sweep's, the faults appended to the timeline), so that command reproduces its digest. A fault
 * its target cannot take stops the run where it lands.
 */
export function runVariant(plan: Pick<SweepPlan, 'scenario' | 'options' | 'fixes'>, variant: Variant): VariantRun {
  const { options } = plan;
  let scenario = plan.scenario;
  if (variant.setting) {
    try {
      scenario = withSets(scenario, variant.setting.sets);
    } catch (error) {
      return { index: variant.index, refused: `${variant.setting.id} on ${variant.setting.target}: ${(error as Error).message}` };
    }
  }
  // After the scenario's own entries, where `--fault` puts them.
  const first = scenario.timeline.length;
  const timeline = [...scenario.timeline, ...variant.faults.map((f) => ({ at: options.at, fault: f.fault, target: f.target, params: {} }))];
  const sim = createSim({ ...scenario, timeline }, { fixes: plan.fixes });
  const landing = atSeconds(options.at);
  sim.runUntil(landing);
  for (let k = 0; k < variant.faults.length; k++) {
    const reason = timelineFailure(sim, first + k, landing);
    if (reason !== undefined) return { index: variant.index, refused: `${variant.faults[k]!.fault} on ${variant.faults[k]!.target}: ${reason}` };
  }
  sim.runUntil(atSeconds(options.at + options.for));
  const report = sim.report(0);
  return { index: variant.index, digest: report.digest, window: windowAfter(sim, options.at), why: whyCandidates(sim, report) };
}
