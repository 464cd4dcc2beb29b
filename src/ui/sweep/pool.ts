import {
  compareImpacts,
  FixEffects,
  fixCandidates,
  fixesToTry,
  fixTasks,
  impactOf,
  type FixEffect,
  type SweepOptions,
  type SweepPlan,
  type SweepTask,
  type UnfaultedRun,
  type VariantImpact,
  type VariantRun,
} from '../../sim';
import type { SweepReply, SweepRequest, SweepSource } from '../../worker/sweep-protocol';
import { variantName } from './rows';

/** One sweep worker as the pool sees it: something to post requests to and to stop. */
export interface SweepPort {
  post(request: SweepRequest): void;
  terminate(): void;
}

/** Starts a worker whose replies go to `listen`; `crashed` hears of an error the worker did not catch. */
export type SpawnSweepWorker = (listen: (reply: SweepReply) => void, crashed: (message: string) => void) => SweepPort;

export interface SweepEvents {
  /** The unfaulted run is done and the variants are listed. */
  planned(plan: SweepPlan): void;
  /** One variant measured against the unfaulted run. */
  measured(impact: VariantImpact): void;
  /** One variant's run failed in its worker; the message names the variant. */
  failed(index: number, message: string): void;
  /** No plan: the scenario or an option was refused (the message names the field), or the planning worker failed. */
  refused(message: string): void;
  /** Every variant is done and the scenario's fixes are tried on the worst rows: `runs` runs, each reported by fixRun. */
  fixing?(runs: number): void;
  fixRun?(): void;
  /** What each fix did to each of the worst rows, by variant index. */
  fixed?(effects: Map<number, FixEffect[]>): void;
  /** Every variant has been measured or has failed, and every fix run is done. */
  finished(): void;
}

export interface SweepPool {
  /** Stops every worker at once; no event follows. */
  cancel(): void;
}

/** `variant 3 (power-off-node on node/node-a)`: a variant as messages name it. */
export function variantLabel(plan: SweepPlan, index: number): string {
  const variant = plan.variants[index];
  return `variant ${index + 1}${variant ? ` (${variantName(variant)})` : ''}`;
}

/** A run a worker is handed: a variant of the plan, or fix task `n`. */
type Job = { index: number } | { n: number; task: SweepTask };

/** The fix runs once the variants are done: which fixes loaded, the rows they are tried on, and each run's result. */
interface FixPhase {
  names: string[];
  ranked: VariantImpact[];
  candidates: number[];
  request: SweepRequest;
  /** Which fixes loaded, and their effects measured as the runs arrive; from the first worker's report of the fixes. */
  usable?: string[];
  effects?: FixEffects;
  tasks: SweepTask[];
  done: number;
}

/**
 * Plans the sweep in one worker (the unfaulted run stays off the page's thread), then runs the variants on up to `size`
 * workers, handing the next variant in the plan's order to whichever worker is idle. Results arrive in whatever order
 * the workers finish; each is measured as it comes, so the ranked table does not depend on the pool's size. Then, as
 * the CLI's sweep does, each of the scenario's own fixes is tried on the `fixTop` worst rows that did harm.
 */
export function startSweepPool(size: number, spawn: SpawnSweepWorker, source: SweepSource, options: SweepOptions, events: SweepEvents, fixTop = 0): SweepPool {
  /** A worker and the run it is doing, if any. */
  interface Slot {
    port: SweepPort;
    busy?: Job;
  }
  const slots: Slot[] = [];
  let plan: SweepPlan | undefined;
  let queue: Job[] = [];
  let settled = 0;
  const impacts: VariantImpact[] = [];
  let fixes: FixPhase | undefined;
  let stopped = false;

  const stop = (): void => {
    stopped = true;
    for (const slot of slots.splice(0)) slot.port.terminate();
  };
  const finish = (): void => {
    stop();
    events.finished();
  };
  const give = (slot: Slot): void => {
    slot.busy = queue.shift();
    if (slot.busy === undefined) return;
    slot.port.post('index' in slot.busy ? { type: 'run', index: slot.busy.index } : { type: 'task', n: slot.busy.n, task: slot.busy.task });
  };

  /** The variants are all done: try the fixes on the worst rows, if there are both. */
  const variantsDone = (): void => {
    const ranked = [...impacts].sort(compareImpacts);
    const names = fixesToTry(plan!);
    const candidates = fixCandidates(ranked, fixTop);
    if (names.length === 0 || candidates.length === 0) return finish();
    fixes = { names, ranked, candidates, request: { type: 'trials', source, fixes: names }, tasks: [], done: 0 };
    for (const slot of slots) slot.port.post(fixes.request);
  };
  /** The first worker has loaded the fixes (every worker loads them alike): hand out the fix runs. */
  const trialsLoaded = (usable: string[], unusable: [string, string][]): void => {
    const phase = fixes!;
    phase.usable = usable;
    phase.effects = new FixEffects(plan!, phase.ranked, phase.names, usable, new Map(unusable), phase.candidates);
    phase.tasks = fixTasks(usable.length, phase.candidates);
    if (phase.tasks.length === 0) return fixesDone();
    events.fixing?.(phase.tasks.length);
    queue = phase.tasks.map((task, n) => ({ n, task }));
    for (const slot of slots) if (slot.busy === undefined) give(slot);
  };
  const fixRunDone = (n: number, result: VariantRun | UnfaultedRun | string): void => {
    const phase = fixes!;
    phase.effects!.add(n, result);
    phase.done++;
    events.fixRun?.();
    if (phase.done === phase.tasks.length) fixesDone();
  };
  const fixesDone = (): void => {
    events.fixed?.(fixes!.effects!.effects());
    finish();
  };
  const variantDone = (): void => {
    settled++;
    if (settled === plan!.variants.length) variantsDone();
  };

  const add = (planner: boolean): void => {
    const slot: Slot = { port: spawn(listen, crashed) };
    slots.push(slot);
    if (planner) slot.port.post({ type: 'plan', source, options });
    else {
      slot.port.post({ type: 'take', plan: plan! });
      if (fixes) slot.port.post(fixes.request);
      // Fix runs wait until the fixes are loaded, which trialsLoaded hands out.
      if (!fixes || fixes.usable) give(slot);
    }

    function listen(message: SweepReply): void {
      if (stopped) return;
      switch (message.type) {
        case 'planned':
          plan = message.plan;
          events.planned(plan);
          if (plan.variants.length === 0) return finish();
          queue = plan.variants.map((v) => ({ index: v.index }));
          give(slot);
          for (let k = 1; k < Math.min(size, plan.variants.length); k++) add(false);
          return;
        case 'refused':
          stop();
          events.refused(message.message);
          return;
        case 'trials':
          if (!fixes!.usable) trialsLoaded(message.usable, message.unusable);
          return;
        case 'ran': {
          const impact = impactOf(plan!, message.run);
          impacts.push(impact);
          events.measured(impact);
          break;
        }
        case 'failed':
          events.failed(message.index, `${variantLabel(plan!, message.index)}: ${message.message}`);
          break;
        case 'tasked':
        case 'taskFailed':
          break;
      }
      const job = slot.busy;
      give(slot);
      if (message.type === 'tasked') fixRunDone(message.n, message.run);
      else if (message.type === 'taskFailed') fixRunDone(message.n, message.message);
      else if (job && 'index' in job) variantDone();
    }

    function crashed(message: string): void {
      if (stopped) return;
      if (!plan) {
        stop();
        events.refused(`the planning worker failed: ${message}`);
        return;
      }
      slots.splice(slots.indexOf(slot), 1);
      slot.port.terminate();
      const lost = slot.busy;
      // The runs not yet handed out, or the fixes no worker has loaded yet, still need a worker.
      if (queue.length > 0 || (fixes && !fixes.usable && slots.length === 0)) add(false);
      if (lost === undefined) return;
      if ('n' in lost) return fixRunDone(lost.n, `its worker failed: ${message}`);
      events.failed(lost.index, `${variantLabel(plan, lost.index)}: its worker failed: ${message}`);
      variantDone();
    }
  };

  add(true);
  return { cancel: stop };
}
