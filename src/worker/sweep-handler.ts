import { checkSweepOptions, planSweep, runVariant, type SweepOptions, type SweepPlan } from '../sim';
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

/**
 * What one sweep worker does with a request: plans (and keeps the plan), takes another worker's plan, or runs a
 * variant of the plan it holds. The reply, if the request has one, goes back to the pool.
 */
export function createSweepHandler(): (request: SweepRequest) => SweepReply | undefined {
  let plan: SweepPlan | undefined;
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
    }
  };
}
