import { describe, expect, it } from 'vitest';
import type { RunReport, Sim } from '../../src/sim/api';
import { createSim } from '../../src/sim/sim';
import { eniPodDeletion, fault, scenarioText, type TimelineInput } from '../fixtures/scenario-builder';
import { loadText, runText } from '../fixtures/scenario-run';

/**
 * One server pod on node-a, one client on node-b, both cloud instances with pod addresses on a second interface
 * (Cilium ENI style). web-0 is deleted at 5 s with no grace period and kube-proxy never hears of it, so the client
 * keeps redialling the dead address, still attached to node-a's eth1 until 15.2 s (as in datapath.test.ts).
 * Each test adds a fault at 3 s, before the deletion.
 */
const ENI_SPEC = eniPodDeletion('faults-node', 14);
const ENI = scenarioText(ENI_SPEC);

const withFault = (entry: TimelineInput, sets: string[] = []) =>
  runText(
    scenarioText(ENI_SPEC, (s) => s.timeline.push(entry)),
    sets,
  );
const dropKinds = (r: RunReport) => Object.keys(r.drops).sort();
const failedFaults = (sim: Sim) => sim.eventsSince(0).filter((e) => e.kind === 'fault.failed');

describe('set-rp-filter', () => {
  it('turning it on (all = 2) where it was off moves the verdict from the source/destination check to rp_filter', () => {
    const off = runText(ENI, ['params.node.rpFilter=0']).report;
    expect(dropKinds(off)).toEqual(['source_dest_check']);
    const { sim, report } = withFault(fault(3, 'set-rp-filter', 'node/node-a', { mode: 2 }), ['params.node.rpFilter=0']);
    expect(failedFaults(sim)).toEqual([]);
    expect(dropKinds(report)).toEqual(['rp_filter_martian']);
    expect(report.drops.rp_filter_martian).toBe(off.drops.source_dest_check);
    const change = sim.eventsSince(0).find((e) => e.kind === 'node.rp_filter.changed')!;
    expect(change).toMatchObject({ entity: 'node/node-a', cause: 'timeline[1]', message: 'rp_filter (all) 0 → 2' });
  });

  it('lowering only `all` changes nothing while the interfaces keep 2 (the kernel takes the larger); lowering them too does', () => {
    const base = runText(ENI).report;
    expect(dropKinds(base)).toEqual(['rp_filter_martian']);
    const allOnly = withFault(fault(3, 'set-rp-filter', 'node/node-a', { mode: 0 })).report;
    expect(allOnly.drops).toEqual(base.drops);
    const everywhere = withFault(fault(3, 'set-rp-filter', 'node/node-a', { mode: 0, interfaces: true })).report;
    expect(dropKinds(everywhere)).toEqual(['source_dest_check']);
  });

  it('rejects a mode that is not 0, 1 or 2', () => {
    const sim = createSim(loadText(ENI));
    expect(() => sim.applyFault({ fault: 'set-rp-filter', target: 'node/node-a', params: { mode: 3 } })).toThrow('params.mode: must be at most 2');
    expect(() => sim.applyFault({ fault: 'set-rp-filter', target: 'node/node-a', params: { mode: 1.5 } })).toThrow('params.mode: expected a whole number');
    expect(() => sim.applyFault({ fault: 'set-rp-filter', target: 'node/node-x' })).toThrow('target: no node named "node-x"');
  });
});

describe('add-interface-address / remove-interface-address', () => {
  it('an address on eth1 lets loose rp_filter accept the SYNs; the source/destination check drops them instead', () => {
    const base = runText(ENI).report;
    const { sim, report } = withFault(fault(3, 'add-interface-address', 'node/node-a'));
    expect(failedFaults(sim)).toEqual([]);
    expect(dropKinds(report)).toEqual(['source_dest_check']);
    expect(report.drops.source_dest_check).toBe(base.drops.rp_filter_martian);
    expect(sim.eventsSince(0).find((e) => e.kind === 'iface.address.added')!.message).toBe('10.244.1.1 added to eth1');
  });

  it('taking the address away brings the martians back, even in loose mode', () => {
    const { sim, report } = withFault(fault(3, 'remove-interface-address', 'node/node-a'), ['params.node.podInterfaceHasIp=true']);
    expect(failedFaults(sim)).toEqual([]);
    expect(dropKinds(report)).toEqual(['rp_filter_martian']);
    const martian = sim.eventsSince(0).find((e) => e.kind === 'packet.dropped' && e.reason === 'rp_filter_martian')!;
    expect(martian.cause).toContain('eth1 has no IPv4 address, rp_filter 2');
  });

  it('refuses nodes without a pod interface, and changes that change nothing', () => {
    const sim = createSim(loadText(ENI));
    expect(() => sim.applyFault({ fault: 'remove-interface-address', target: 'node/node-a' })).toThrow('target: eth1 on node "node-a" has no IPv4 address to remove');
    sim.applyFault({ fault: 'add-interface-address', target: 'node/node-a' });
    expect(() => sim.applyFault({ fault: 'add-interface-address', target: 'node/node-a' })).toThrow('target: eth1 on node "node-a" already has an IPv4 address');
    const routed = createSim(loadText(ENI, ['params.node.podNetwork=routed']));
    expect(() => routed.applyFault({ fault: 'add-interface-address', target: 'node/node-a' })).toThrow(
      'target: node "node-a" has no pod-facing secondary interface (params.node.podNetwork is routed, not eni)',
    );
  });
});

describe('set-instance-allowance', () => {
  it('a tiny allowance on the client’s instance drops its redials once the table is full', () => {
    const base = runText(ENI).report;
    expect(base.drops.hypervisor_conntrack_exceeded).toBeUndefined();
    const { sim, report } = withFault(fault(3, 'set-instance-allowance', 'node/node-b', { conntrackAllowance: 2 }));
    expect(failedFaults(sim)).toEqual([]);
    expect(report.drops.hypervisor_conntrack_exceeded).toBeGreaterThan(0);
    expect(report.totals['hypervisor.conntrack_allowance_exceeded{instance=node-b}']).toBe(report.drops.hypervisor_conntrack_exceeded);
    expect(Math.max(...report.series['hypervisor.conntrack.used{instance=node-b}']!.values.slice(4))).toBeLessThanOrEqual(2);
    expect(sim.eventsSince(0).find((e) => e.kind === 'hypervisor.allowance.changed')).toMatchObject({
      entity: 'instance/node-b',
      message: 'tracked-connection allowance 75000 → 2',
    });
  });

  it('a larger allowance changes nothing for a run that never came near the limit', () => {
    const base = runText(ENI).report;
    const bigger = withFault(fault(3, 'set-instance-allowance', 'node/node-a', { conntrackAllowance: 150000 })).report;
    expect(bigger.drops).toEqual(base.drops);
    expect(bigger.series['hypervisor.conntrack_allowance_available{instance=node-a}']!.values.at(-1)).toBeGreaterThan(149_000);
  });

  it('refuses bare-metal nodes and allowances below 1', () => {
    const sim = createSim(loadText(ENI, ['topology.nodes[0].platform=bare-metal', 'params.node.podNetwork=routed']));
    expect(() => sim.applyFault({ fault: 'set-instance-allowance', target: 'node/node-a' })).toThrow('target: node "node-a" is bare-metal');
    expect(() => sim.applyFault({ fault: 'set-instance-allowance', target: 'node/node-b', params: { conntrackAllowance: 0 } })).toThrow('params.conntrackAllowance: must be at least 1');
  });
});
