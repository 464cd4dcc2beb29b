/**
 * Cohorts (docs/cohorts.md) against the per-packet model they stand for: the same replay run both ways must come out
 * the same in every figure the report holds, to the packet and to the second.
 */
import { describe, expect, it } from 'vitest';
import { bothWays, differences, reducedItsNotDns } from '../fixtures/cohort-compare';

describe('cohorts', () => {
  const { cohorts, perPacket } = bothWays(reducedItsNotDns());

  it('run the reduced "It wasn\'t DNS" replay exactly as the per-packet model does', () => {
    expect(differences(cohorts, perPacket)).toEqual([]);
    expect(cohorts.digest).toBe(perPacket.digest);
  });

  it('replay the storm the comparison is about, with far fewer events', () => {
    // The old pods' instances fill and drop, the SYNs to dead addresses die as martians, node-local DNS refuses.
    for (const reason of ['hypervisor_conntrack_exceeded', 'rp_filter_martian', 'no_socket_reset']) expect(cohorts.drops[reason]).toBeGreaterThan(1000);
    expect(cohorts.totals['grpc.client.switchover_s.count']).toBeGreaterThan(100);
    expect(cohorts.events).toBeLessThan(perPacket.events / 2);
  });
});
