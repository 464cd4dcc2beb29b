import { impactOf, type SweepOptions, type SweepPlan, type VariantImpact } from '../../sim';
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
  /** Every variant has been measured or has failed. */
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

/**
 * Plans the sweep in one worker (the unfaulted run stays off the page's thread), then runs the variants on up to `size`
 * workers, handing the next variant in the plan's order to whichever worker is idle. Results arrive in whatever order
 * the workers finish; each is measured as it comes, so the ranked table does not depend on the pool's size.
 */
export function startSweepPool(size: number, spawn: SpawnSweepWorker, source: SweepSource, options: SweepOptions, events: SweepEvents): SweepPool {
  /** A worker and the variant it is running, if any. */
  interface Slot {
    port: SweepPort;
    busy?: number;
  }
  const slots: Slot[] = [];
  let plan: SweepPlan | undefined;
  let next = 0;
  let settled = 0;
  let stopped = false;

  const stop = (): void => {
    stopped = true;
    for (const slot of slots.splice(0)) slot.port.terminate();
  };
  const settle = (): void => {
    settled++;
    if (settled === plan!.variants.length) {
      stop();
      events.finished();
    }
  };
  const give = (slot: Slot): void => {
    slot.busy = next < plan!.variants.length ? next++ : undefined;
    if (slot.busy !== undefined) slot.port.post({ type: 'run', index: slot.busy });
  };

  const add = (planner: boolean): void => {
    const slot: Slot = { port: spawn(listen, crashed) };
    slots.push(slot);
    if (planner) slot.port.post({ type: 'plan', source, options });
    else {
      slot.port.post({ type: 'take', plan: plan! });
      give(slot);
    }

    function listen(message: SweepReply): void {
      if (stopped) return;
      switch (message.type) {
        case 'planned':
          plan = message.plan;
          events.planned(plan);
          if (plan.variants.length === 0) {
            stop();
            events.finished();
            return;
          }
          give(slot);
          for (let k = 1; k < Math.min(size, plan.variants.length); k++) add(false);
          return;
        case 'refused':
          stop();
          events.refused(message.message);
          return;
        case 'ran':
          events.measured(impactOf(plan!, message.run));
          break;
        case 'failed':
          events.failed(message.index, `${variantLabel(plan!, message.index)}: ${message.message}`);
          break;
      }
      if (stopped) return;
      give(slot);
      settle();
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
      // The variants not yet handed out still need a worker.
      if (next < plan.variants.length) add(false);
      if (lost === undefined) return;
      events.failed(lost, `${variantLabel(plan, lost)}: its worker failed: ${message}`);
      settle();
    }
  };

  add(true);
  return { cancel: stop };
}
