import { checkSweepOptions, planSweep, runSweepTask, runVariant, type FixTrial, type SweepOptions, type SweepPlan } from '../sim';
import { loadWithAdditions } from './load-with-additions';
import type { SweepReply, SweepRequest, SweepSource } from './sweep-protocol';

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The plan of the scenario as the app loads it (same loader, seed, fixes and timeline additions), or why there is none. */
function planOf(source: SweepSource, options: SweepOptions): SweepReply {
  let loaded;
  try {
    loaded = loadWithAdditions(source.text, source.fileName, source, 'timeline');
  } catch (error) {
    return { type: 'refused', message: messageOf(error) };
  }
  if (!loaded.ok) return { type: 'refused', message: loaded.errors.join('\n') };
  try {
    checkSweepOptions(loaded.scenario, options);
  } catch (error) {
    return { type: 'refused', message: messageOf(error) };
  }
  return { type: 'planned', plan: planSweep(loaded.scenario, loaded.appliedFixes, options) };
}

/** The scenario loaded again with each fix added (as the CLI's --fix does), and why each fix that does not load fails. */
function trialsOf(source: SweepSource, fixes: readonly string[]): { trials: FixTrial[]; unusable: [string, string][] } {
  const trials: FixTrial[] = [];
  const unusable: [string, string][] = [];
  for (const fix of fixes) {
    try {
      const loaded = loadWithAdditions(source.text, source.fileName, { ...source, fixes: [...source.fixes, fix] }, 'timeline');
      if (loaded.ok) trials.push({ fix, scenario: loaded.scenario, fixes: loaded.appliedFixes });
      else unusable.push([fix, loaded.errors.join('; ')]);
    } catch (error) {
      unusable.push([fix, messageOf(error)]);
    }
  }
  return { trials, unusable };
}

/**
 * What one sweep worker does with a request: plans (and keeps the plan), takes another worker's plan, runs a
 * variant of the plan it holds, loads the scenario's fixes, or runs a fix task. The reply, if the request has one, goes back to the pool.
 */
export function createSweepHandler(): (request: SweepRequest) => SweepReply | undefined {
  let plan: SweepPlan | undefined;
  let trials: FixTrial[] = [];
  return (request) => {
    switch (request.type) {
      case 'plan': {
        const reply = planOf(request.source, request.options);
        if (reply.type === 'planned') plan = reply.plan;
        return reply;
      }
      case 'take':
        plan = request.plan;
        return undefined;
      case 'run': {
        const variant = plan?.variants[request.index];
        if (!plan || !variant) return { type: 'failed', index: request.index, message: `variant ${request.index}: this worker has no plan holding it` };
        try {
          return { type: 'ran', run: runVariant(plan, variant) };
        } catch (error) {
          return { type: 'failed', index: request.index, message: messageOf(error) };
        }
      }
      case 'trials': {
        const made = trialsOf(request.source, request.fixes);
        trials = made.trials;
        return { type: 'trials', usable: trials.map((t) => t.fix), unusable: made.unusable };
      }
      case 'task': {
        if (!plan) return { type: 'taskFailed', n: request.n, message: 'this worker has no plan' };
        try {
          return { type: 'tasked', n: request.n, run: runSweepTask(plan, trials, request.task) };
        } catch (error) {
          return { type: 'taskFailed', n: request.n, message: messageOf(error) };
        }
      }
    }
  };
}
