import type { Counter, Metrics } from '../core/metrics';
import { DROP_REASON_IDS, type DropReason } from './drop-reasons';

/** Counts dropped packets by reason, both as run totals and as per-reason metric series. */
export class DropLedger {
  private readonly counts = new Map<DropReason, number>();
  private readonly counters = new Map<DropReason, Counter>();
  private readonly all: Counter;

  constructor(metrics: Metrics) {
    this.all = metrics.counter('packets.dropped');
    for (const reason of DROP_REASON_IDS) this.counters.set(reason, metrics.counter('packets.dropped', { reason }));
  }

  drop(reason: DropReason): void {
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + 1);
    this.counters.get(reason)!.inc();
    this.all.inc();
  }

  get total(): number {
    return this.all.total;
  }

  /** Only reasons that happened, in the catalog's order, so reports stay small and stable. */
  totals(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const reason of DROP_REASON_IDS) {
      const n = this.counts.get(reason);
      if (n) out[reason] = n;
    }
    return out;
  }
}
