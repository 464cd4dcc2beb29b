import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/sim/context';
import { FluidPackets } from '../../src/sim/net/fluid-packets';

describe('packets of a flow model, booked whole', () => {
  it('carries fractions, and holds a drop until its packet is booked so no count ever goes down', () => {
    const ctx = createContext(1);
    const sent = ctx.metrics.counter('flow.packets');
    const dropped = ctx.metrics.counter('flow.packets.dropped');
    const flow = new FluidPackets(ctx, sent, dropped, 'hypervisor_pps_exceeded');
    const ledger = () => [ctx.metrics.counter('packets.sent').total, ctx.metrics.counter('packets.delivered').total, ctx.drops.total];
    expect(flow.book(1, 0.6)).toBe(0);
    // 1.1 packets lost of 1.5 sent: the second lost packet's packet is not whole yet, so its drop waits.
    expect(flow.book(0.5, 0.5)).toBe(0);
    expect([sent.total, dropped.total, ...ledger()]).toEqual([1, 0, 1, 1, 0]);
    expect(flow.book(0.5, 0)).toBe(1);
    expect([sent.total, dropped.total, ...ledger(), flow.droppedTotal]).toEqual([2, 1, 2, 1, 1, 1]);
  });
});
