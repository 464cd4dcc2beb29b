import { checkSweepOptions, planSweep, runVariant, type SweepPlan } from '../sim';
import { loadWithAdditions } from './load-with-additions';
import type { SweepReply, SweepRequest, SweepSource } from './sweep-protocol';

/** A worker of the browser's sweep pool: plans a sweep when asked, then runs the variants it is handed one at a time. */

let plan: SweepPlan | undefined;

const reply = (message: SweepReply): void => globalThis.postMessage(message);
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The plan of the scenario as the app loads it (same loader, seed and fixes), or why there is none. */
function planOf(source: SweepSource, options: Parameters<typeof planSweep>[2]): SweepReply {
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
  plan = planSweep(loaded.scenario, loaded.appliedFixes, options);
  return { type: 'planned', plan };
}

globalThis.addEventListener('message', (event: MessageEvent<SweepRequest>) => {
  const request = event.data;
  switch (request.type) {
    case 'plan':
      reply(planOf(request.source, request.options));
      return;
    case 'take':
      plan = request.plan;
      return;
    case 'run': {
      const variant = plan?.variants[request.index];
      if (!variant) {
        reply({ type: 'failed', index: request.index, message: `variant ${request.index}: this worker has no plan holding it` });
        return;
      }
      try {
        reply({ type: 'ran', run: runVariant(plan!, variant) });
      } catch (error) {
        reply({ type: 'failed', index: request.index, message: messageOf(error) });
      }
      return;
    }
  }
});
