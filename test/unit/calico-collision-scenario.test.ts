/**
 * The shipped replay of the Calico story (public/scenarios/calico-collision.yaml): a node deleted and registered
 * again keeps its tunl0 address while IPAM's garbage collector releases the allocation; the next pod on the node
 * gets the address and is unreachable until calico-node restarts and takes a new one.
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/sim/api';
import { atSeconds } from '../../src/sim/core/time';
import { runShipped, shippedSim } from '../fixtures/scenario-run';

const FILE = 'calico-collision.yaml';
const run = (fixes: string[] = [], sets: string[] = []): RunReport => runShipped(FILE, fixes, sets);
const failedAfter = (r: RunReport, from: number): number => r.series['client.connections.failed']!.values.slice(from).reduce((a, b) => a + b, 0);
const ipamRows = (sim: ReturnType<typeof shippedSim>, node: string) => sim.inspect(node)!.sections.find((s) => s.title === 'IPAM blocks (Calico)')!.rows;

describe(FILE, () => {
  const base = run();
  const fixed = run(['restart-calico-node']);

  it('holds every expectation it ships, with and without the fix', () => {
    expect(base.expect.filter((e) => !e.held)).toEqual([]);
    expect(fixed.expect.filter((e) => !e.held)).toEqual([]);
  });

  it('gives the pod the tunnel address only once the garbage collector released it, and a node past 64 pods a second block', () => {
    const sim = shippedSim(FILE);
    sim.runUntil(atSeconds(29));
    expect(ipamRows(sim, 'node/node-b').at(-1)).toEqual(['tunl0 address', '10.244.2.0, IPAM handle: ipip-tunnel-addr-node-b']);
    expect(ipamRows(sim, 'node/node-a').map(([block]) => block)).toEqual(['10.244.1.0/26', '10.244.1.64/26', 'tunl0 address']);
    sim.runUntil(atSeconds(31));
    expect(ipamRows(sim, 'node/node-b').at(-1)).toEqual(['tunl0 address', '10.244.2.0, IPAM handle: none (released)']);
    sim.runUntil(atSeconds(45));
    const victim = sim.topology().pods.find((p) => p.ip === '10.244.2.0')!;
    expect(victim.node).toBe('node-b');
    expect(ipamRows(sim, 'node/node-b').at(-1)).toEqual(['tunl0 address', `10.244.2.0, IPAM handle: k8s-pod-network.${victim.name}`]);
  });

  it('the collision needs the leak to be released first: with the full 15-minute grace nothing fails', () => {
    const patient = run([], ['params.calico.leakGraceS=900']);
    expect(failedAfter(patient, 20)).toBe(0);
  });

  it('restarting calico-node moves tunl0 to a free address and the pod is reachable again', () => {
    expect(failedAfter(base, 52)).toBeGreaterThan(100);
    expect(failedAfter(fixed, 52)).toBe(0);
    const sim = shippedSim(FILE, ['restart-calico-node']);
    sim.runUntil(atSeconds(55));
    const tunnel = ipamRows(sim, 'node/node-b').at(-1)![1];
    expect(tunnel).toMatch(/^10\.244\.2\.\d+, IPAM handle: ipip-tunnel-addr-node-b$/);
    expect(tunnel.startsWith('10.244.2.0,')).toBe(false);
  });

  it('restarting calico-node while its tunnel allocation is intact changes nothing; an unknown node is named', () => {
    const sim = shippedSim(FILE);
    sim.runUntil(atSeconds(5));
    const before = ipamRows(sim, 'node/node-a');
    sim.applyFault({ fault: 'restart-node-agent', target: 'node/node-a' });
    expect(ipamRows(sim, 'node/node-a')).toEqual(before);
    expect(sim.eventsSince(0).filter((e) => e.kind === 'cni.tunnel-readdressed')).toEqual([]);
    expect(() => sim.applyFault({ fault: 'restart-node-agent', target: 'node/node-x' })).toThrow('target: no node named "node-x"');
  });

  it('explains the unreachable pod down to the deleted node', () => {
    const chain = base.why.find((c) => c.symptom.endsWith('unreachable'))!;
    expect(chain.steps.map((s) => s.entity)).toEqual([expect.stringMatching(/^pod\/web-/), 'node/node-b', 'node/node-b']);
    expect(chain.steps[0]!.text).toMatch(
      /^its address 10\.244\.2\.0 is also tunl0's on node\/node-b: the host's local route wins, so packets to the pod are delivered to the node itself, which refused \d+ of them$/,
    );
    expect(chain.steps[1]!.text).toBe(
      "Calico's IPAM gave 10.244.2.0 to the pod at 40.0 s: its garbage collector had released the address at 30.0 s as leaked, 20 s after the allocation's node was deleted",
    );
    expect(chain.steps[2]!.text).toBe("was deleted from the cluster at 10.0 s and registered again at 15.0 s; tunl0 kept the address the deleted node's allocation was for");
  });
});
