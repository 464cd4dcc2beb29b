/**
 * Cohorts (docs/cohorts.md) against the per-packet model they stand for: the same replay run both ways must come out
 * the same in every figure the report holds, to the packet and to the second.
 */
import { describe, expect, it } from 'vitest';
import { atSeconds } from '../../src/sim/core/time';
import { createSim } from '../../src/sim/sim';
import { bothWays, differences, reducedItsNotDns } from '../fixtures/cohort-compare';
import { loadText } from '../fixtures/scenario-run';

describe('cohorts', () => {
  const runs = bothWays(reducedItsNotDns());
  const cohorts = runs.cohorts.report;
  const perPacket = runs.perPacket.report;

  it('run the reduced "It wasn\'t DNS" replay exactly as the per-packet model does', () => {
    expect(differences(cohorts, perPacket)).toEqual([]);
    expect(cohorts.digest).toBe(perPacket.digest);
  });

  it('send the same packets, which the pcap export and the sampled traces show one by one with their tuples', () => {
    expect(Buffer.from(runs.cohorts.pcap).equals(Buffer.from(runs.perPacket.pcap))).toBe(true);
    expect(cohorts.traces).toEqual(perPacket.traces);
    // In the storm the sampled packets are mostly the cohort's SYNs, each traced hop by hop to the reason it ends.
    const sim = createSim(loadText(reducedItsNotDns()));
    sim.runUntil(atSeconds(58));
    const martians = sim.report(0).traces.filter((t) => t.summary.startsWith('SYN ') && t.hops.at(-1)?.what === 'dropped: rp_filter_martian');
    expect(martians.length).toBeGreaterThan(0);
    expect(martians[0]!.hops.map((h) => h.where)).toEqual(expect.arrayContaining([expect.stringMatching(/^pod\/alerting-/), expect.stringMatching(/^instance\//)]));
  });

  it('replay the storm the comparison is about, with far fewer events', () => {
    // The old pods' instances fill and drop, the SYNs to dead addresses die as martians, node-local DNS refuses.
    for (const reason of ['hypervisor_conntrack_exceeded', 'rp_filter_martian', 'no_socket_reset']) expect(cohorts.drops[reason]).toBeGreaterThan(1000);
    expect(cohorts.totals['grpc.client.switchover_s.count']).toBeGreaterThan(100);
    expect(cohorts.events).toBeLessThan(perPacket.events / 2);
  });
});
