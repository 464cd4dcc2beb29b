/**
 * The shipped replay of the Calico story (public/scenarios/calico-collision.yaml): a node deleted and registered
 * again keeps its tunl0 address while IPAM's garbage collector releases the allocation; the next pod on the node
 * gets the address and is unreachable, to clients and to the kubelet's probes alike, until calico-node restarts and
 * takes a new one.
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/sim/api';
import { atSeconds } from '../../src/sim/core/time';
import { runShipped, shippedSim } from '../fixtures/scenario-run';

const FILE = 'calico-collision.yaml';
const run = (fixes: string[] = [], sets: string[] = []): RunReport => runShipped(FILE, fixes, sets);
const failedAfter = (r: RunReport, from: number): number => r.series['client.connections.failed']!.values.slice(from).reduce((a, b) => a + b, 0);
const ipamRows = (sim: ReturnType<typeof shippedSim>, node: string) => sim.inspect(node)!.sections.find((s) => s.title === 'IPAM blocks (Calico)')!.rows;
const failedIn = (r: RunReport, from: number, to: number): number => r.series['client.connections.failed']!.values.slice(from, to).reduce((a, b) => a + b, 0);
const victimAt = (sim: ReturnType<typeof shippedSim>, at: number) => {
  sim.runUntil(atSeconds(at));
  return sim.topology().pods.find((p) => p.ip === '10.244.2.0')!;
};

describe(FILE, () => {
  const base = run();
  const fixed = run(['restart-calico-node']);
  const gated = run(['readiness-probe']);

  it('holds every expectation it ships, with and without each fix', () => {
    expect(base.expect.filter((e) => !e.held)).toEqual([]);
    expect(fixed.expect.filter((e) => !e.held)).toEqual([]);
    expect(gated.expect.filter((e) => !e.held)).toEqual([]);
  });

  it("the kubelet's liveness probes are refused by node-b itself: three failures, a kill, and the pod out of the endpoints for its back-off", () => {
    const sim = shippedSim(FILE);
    expect(victimAt(sim, 43)).toMatchObject({ phase: 'running', ready: true });
    const probes = sim.eventsSince(0).filter((e) => e.kind === 'probe.failed');
    expect(probes[0]).toMatchObject({ t: atSeconds(42), entity: expect.stringMatching(/^pod\/web-/) });
    expect(probes[0]!.message).toBe('Liveness probe failed: Get "http://10.244.2.0:8080/": dial tcp 10.244.2.0:8080: connect: connection refused');
    expect(victimAt(sim, 63)).toMatchObject({ phase: 'running', ready: false });
    const kill = sim.eventsSince(0).find((e) => e.kind === 'pod.crashed')!;
    expect(kill.t).toBe(atSeconds(62));
    expect(kill.message).toMatch(/^Container web failed liveness probe, will be restarted \(restart 1\); CrashLoopBackOff: back-off 10 s/);
    const kubelet = () => sim.inspect(`pod/${victimAt(sim, sim.now() / 1e6).name}`)!.sections.find((x) => x.title === 'Probes (kubelet)')!.rows;
    expect(kubelet()).toEqual([
      ['liveness', 'httpGet 10.244.2.0:8080 every 10 s (timeout 1 s); stopped, the container is not running; last failed (3 in a row of 3 needed)'],
      ['restarts', '1'],
    ]);
    expect(victimAt(sim, 73)).toMatchObject({ phase: 'running', ready: true });
    expect(kubelet()[0]![1]).toBe('httpGet 10.244.2.0:8080 every 10 s (timeout 1 s); passing; last failed (1 in a row of 3 needed)');
    // Refused while in the endpoints, nothing while out of them; each kill waits twice as long as the last.
    expect(failedIn(base, 42, 62)).toBeGreaterThan(100);
    expect(failedIn(base, 64, 72)).toBe(0);
    expect(failedIn(base, 94, 112)).toBe(0);
    expect(failedIn(base, 112, 132)).toBeGreaterThan(100);
    sim.runUntil(sim.durationUs);
    const kills = sim
      .eventsSince(0)
      .filter((e) => e.kind === 'pod.crashed')
      .map((e) => e.t / 1e6);
    expect(kills).toEqual([62, 92, 132]);
    expect(base.totals['kubelet.probes.failed{probe=liveness}']).toBe(9);
  });

  it('the time the pod stays in the endpoints is (failureThreshold − 1) × period per restart, and client failures follow it', () => {
    const kills = (set: string) => {
      const sim = shippedSim(FILE, [], [set]);
      sim.runUntil(sim.durationUs);
      return {
        at: sim
          .eventsSince(0)
          .filter((e) => e.kind === 'pod.crashed')
          .map((e) => e.t / 1e6),
        failed: sim.report(0).totals['client.connections.failed']!,
      };
    };
    const patient = kills('topology.deployments.web.livenessProbe.failureThreshold=6');
    const eager = kills('topology.deployments.web.livenessProbe.periodSeconds=5');
    expect(patient.at).toEqual([92]);
    expect(eager.at).toEqual([52, 72, 102]);
    const failed = base.totals['client.connections.failed']!;
    expect(patient.failed / failed).toBeGreaterThan(1.4);
    expect(eager.failed / failed).toBeLessThan(0.7);
  });

  it('with a readiness probe the pod never turns Ready: clients see nothing while the kubelet still restarts it', () => {
    const sim = shippedSim(FILE, ['readiness-probe']);
    expect(victimAt(sim, 60)).toMatchObject({ phase: 'running', ready: false });
    expect(victimAt(sim, 140)).toMatchObject({ phase: 'running', ready: false });
    expect(failedIn(gated, 20, 150)).toBe(0);
    expect(gated.totals['kubelet.probes.failed{probe=readiness}']).toBe(gated.totals['kubelet.probes.failed{probe=liveness}']);
    expect(sim.eventsSince(0).filter((e) => e.kind === 'pod.crashed').length).toBe(3);
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
    expect(fixed.totals['kubelet.probes.failed{probe=liveness}']).toBe(1);
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
    expect(chain.steps.map((s) => s.entity)).toEqual([expect.stringMatching(/^pod\/web-/), 'node/node-b', 'node/node-b', 'node/node-b']);
    expect(chain.steps[0]!.text).toMatch(
      /^its address 10\.244\.2\.0 is also tunl0's on node\/node-b: the host's local route wins, so packets to the pod are delivered to the node itself, which refused \d+ of them$/,
    );
    expect(chain.steps[1]!.text).toBe(
      `the kubelet's liveness probes of the pod failed 9 times from 42.0 s (Get "http://10.244.2.0:8080/": dial tcp 10.244.2.0:8080: connect: connection refused), so the kubelet killed its container 3 times and restarts it under CrashLoopBackOff`,
    );
    expect(chain.steps[2]!.text).toBe(
      "Calico's IPAM gave 10.244.2.0 to the pod at 40.0 s: its garbage collector had released the address at 30.0 s as leaked, 20 s after the allocation's node was deleted",
    );
    expect(chain.steps[3]!.text).toBe("was deleted from the cluster at 10.0 s and registered again at 15.0 s; tunl0 kept the address the deleted node's allocation was for");
  });
});
