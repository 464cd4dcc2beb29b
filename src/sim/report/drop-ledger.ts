import type { Counter, Metrics } from '../core/metrics';
import { DROP_REASON_IDS, DROP_REASONS, type DropReason } from './drop-reasons';

/**
 * Counts drops by reason, both as run totals and as per-reason metric series. `packets.dropped` counts only packet
 * reasons, so that sent = delivered + dropped + in flight holds; request reasons (a REFUSED answer) are counted apart.
 */
export class DropLedger {
  private readonly counts = new Map<DropReason, number>();
  private readonly counters = new Map<DropReason, Counter>();
  private readonly packets: Counter;

  constructor(metrics: Metrics) {
    this.packets = metrics.counter('packets.dropped');
    for (const reason of DROP_REASON_IDS) {
      const name = DROP_REASONS[reason].kind === 'packet' ? 'packets.dropped' : 'requests.dropped';
      this.counters.set(reason, metrics.counter(name, { reason }));
    }
  }

  drop(reason: DropReason, count = 1): void {
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + count);
    this.counters.get(reason)!.inc(count);
    if (DROP_REASONS[reason].kind === 'packet') this.packets.inc(count);
  }

  /** Packets dropped, all reasons together. */
  get total(): number {
    return this.packets.total;
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
