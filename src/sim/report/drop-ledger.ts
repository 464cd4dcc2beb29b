import type { Counter, Metrics } from '../core/metrics';
import { DROP_REASON_IDS, DROP_REASONS, dropReasonIndex, type DropReason } from './drop-reasons';

/**
 * Counts drops by reason, both as run totals and as per-reason metric series. `packets.dropped` counts only packet
 * reasons, so that sent = delivered + dropped + in flight holds; request reasons (a REFUSED answer) are counted apart.
 */
export class DropLedger {
  /** By reason, in DROP_REASON_IDS order. */
  private readonly counts = new Float64Array(DROP_REASON_IDS.length);
  private readonly counters: Counter[];
  private readonly isPacket: boolean[];
  private readonly packets: Counter;

  constructor(metrics: Metrics) {
    this.packets = metrics.counter('packets.dropped');
    this.isPacket = DROP_REASON_IDS.map((reason) => DROP_REASONS[reason].kind === 'packet');
    this.counters = DROP_REASON_IDS.map((reason, i) => metrics.counter(this.isPacket[i] ? 'packets.dropped' : 'requests.dropped', { reason }));
  }

  drop(reason: DropReason, count = 1): void {
    this.dropAt(dropReasonIndex(reason), count);
  }

  /** `drop` by the reason's index (dropReasonIndex), for the packet path. */
  dropAt(r: number, count = 1): void {
    this.counts[r]! += count;
    this.counters[r]!.inc(count);
    if (this.isPacket[r]) this.packets.inc(count);
  }

  /** Packets dropped, all reasons together. */
  get total(): number {
    return this.packets.total;
  }

  /** Only reasons that happened, in the catalog's order, so reports stay small and stable. */
  totals(): Record<string, number> {
    const out: Record<string, number> = {};
    DROP_REASON_IDS.forEach((reason, i) => {
      const n = this.counts[i]!;
      if (n) out[reason] = n;
    });
    return out;
  }
}
