import type { SimContext } from '../context';
import type { Counter } from '../core/metrics';
import type { DropReason } from '../report/drop-reasons';

/**
 * Packets a flow model carries without an event each (ZooKeeper's reads, HAProxy's health checks), booked in whole
 * packets in their own counters and the run's ledger: the fractions carry over to the next booking, and a drop waits
 * for the packet it belongs to, so sent = delivered + dropped holds exactly and no count ever goes down.
 */
export class FluidPackets {
  private readonly ledgerSent: Counter;
  private readonly ledgerDelivered: Counter;
  private offered = 0;
  private lost = 0;
  private sentBooked = 0;
  private droppedBooked = 0;

  constructor(
    private readonly ctx: SimContext,
    private readonly sent: Counter,
    private readonly dropped: Counter,
    private readonly reason: DropReason,
  ) {
    this.ledgerSent = ctx.metrics.counter('packets.sent');
    this.ledgerDelivered = ctx.metrics.counter('packets.delivered');
  }

  /** Every packet dropped so far, in whole packets. */
  get droppedTotal(): number {
    return this.droppedBooked;
  }

  /** Adds `offered` packets (fractions allowed), `dropped` of them lost; returns the whole packets dropped now. */
  book(offered: number, dropped: number): number {
    this.offered += offered;
    this.lost += dropped;
    const sent = Math.floor(this.offered) - this.sentBooked;
    const lost = Math.min(Math.floor(this.lost) - this.droppedBooked, sent);
    this.sentBooked += sent;
    this.droppedBooked += lost;
    this.sent.inc(sent);
    this.dropped.inc(lost);
    this.ledgerSent.inc(sent);
    this.ledgerDelivered.inc(sent - lost);
    if (lost > 0) this.ctx.drops.drop(this.reason, lost);
    return lost;
  }
}
