import { describe, expect, it } from 'vitest';
import type { LogEvent, Sim } from '../../src/sim/api';
import { atSeconds } from '../../src/sim/core/time';
import { createSim } from '../../src/sim/sim';
import { httpClient, httpServer, node, nodes, pod, scenarioText, service, webAndClients, type ScenarioDraft, type ScenarioSpec } from '../fixtures/scenario-builder';
import { loadText } from '../fixtures/scenario-run';

/** Two nodes, two web servers behind a Service, two clients with keep-alive connections. */
const BASE: ScenarioSpec = {
  id: 'faults-workloads',
  title: 'Faults on workloads',
  description: 'servers behind a Service, and clients',
  seed: 3,
  duration: 120,
  topology: { nodes: nodes(2, {}, { firstIp: 1 }), ...webAndClients(2, 2) },
  params: { client: { requestsPerSecond: 20, connectionsPerPod: 2 } },
};

function sim(yaml = scenarioText(BASE), sets: string[] = []): Sim {
  return createSim(loadText(yaml, sets));
}

const at = (s: Sim, t: number) => s.runUntil(atSeconds(t));
const events = (s: Sim, kind: string, entity?: string): LogEvent[] => s.eventsSince(0).filter((e) => e.kind === kind && (entity === undefined || e.entity === entity));
const seconds = (list: LogEvent[]) => list.map((e) => e.t / 1e6);
const webPods = (s: Sim) => s.topology().pods.filter((p) => p.deployment === 'web');
const endpoints = (s: Sim) => s.topology().services.find((x) => x.name === 'web')!.endpoints;
const counter = (s: Sim, name: string) => s.report(0).totals[name] ?? 0;

describe('scale-deployment', () => {
  it('scaling up: the ReplicaSet creates pods that start, turn Ready and join the endpoints', () => {
    const s = sim();
    at(s, 10);
    s.applyFault({ fault: 'scale-deployment', target: 'deployment/web', params: { replicas: 4 } });
    expect(
      webPods(s)
        .map((p) => p.phase)
        .sort(),
    ).toEqual(['pending', 'pending', 'running', 'running']);
    expect(events(s, 'deployment.scaled')[0]).toMatchObject({ entity: 'deployment/web', cause: 'user', message: 'scaled from 2 to 4 replicas' });
    // kube.podStartSeconds (2 s) later they run, and the endpoints follow.
    at(s, 13);
    expect(webPods(s).every((p) => p.phase === 'running' && p.ready)).toBe(true);
    expect(endpoints(s)).toHaveLength(4);
    // The new pods land on the less loaded nodes: two each.
    const perNode = new Map<string, number>();
    for (const p of webPods(s)) perNode.set(p.node, (perNode.get(p.node) ?? 0) + 1);
    expect([...perNode.values()]).toEqual([2, 2]);
  });

  it('scaling down: the pods doubled up on a node terminate gracefully and leave the endpoints; nothing replaces them', () => {
    const s = sim(scenarioText(BASE, (b) => (b.topology.deployments.web!.replicas = 3)));
    at(s, 10);
    s.applyFault({ fault: 'scale-deployment', target: 'deployment/web', params: { replicas: 1 } });
    const terminating = events(s, 'pod.terminating');
    // web-0 and web-2 share node-a, so they go first, and web-1 alone on node-b stays.
    expect(terminating.map((e) => e.entity).sort()).toEqual(['pod/web-0', 'pod/web-2']);
    expect(terminating.every((e) => e.cause === 'scale-down of deployment/web')).toBe(true);
    at(s, 40);
    expect(
      webPods(s)
        .filter((p) => p.phase !== 'gone')
        .map((p) => p.name),
    ).toEqual(['web-1']);
    expect(endpoints(s)).toEqual(['web-1']);
    expect(events(s, 'pod.created').filter((e) => e.t > 0)).toEqual([]);
    // A graceful exit: the servers closed their connections with FIN, so no pod was SIGKILLed.
    expect(events(s, 'pod.killed')).toEqual([]);
    expect(seconds(events(s, 'pod.gone')).every((t) => t < 11)).toBe(true);
  });

  it('rejects a bad target or replica count, naming the field', () => {
    const s = sim();
    expect(() => s.applyFault({ fault: 'scale-deployment', target: 'deployment/webb' })).toThrow('target: no deployment named "webb" (did you mean "web"?)');
    expect(() => s.applyFault({ fault: 'scale-deployment', target: 'deployment/web', params: { replicas: 1.5 } })).toThrow('params.replicas: expected a whole number');
    expect(() => s.applyFault({ fault: 'scale-deployment', target: 'deployment/web', params: { replicas: -1 } })).toThrow('params.replicas: must be at least 0');
    expect(() => s.applyFault({ fault: 'scale-deployment', target: 'pod/web-0' })).toThrow('target: fault "scale-deployment" applies to deployment, not pod');
  });
});

describe('drain-node', () => {
  it('cordons the node and evicts its pods gracefully; replacements land on the other node only', () => {
    const s = sim();
    at(s, 10);
    const onA = s
      .topology()
      .pods.filter((p) => p.node === 'node-a')
      .map((p) => p.name);
    expect(onA.length).toBeGreaterThan(0);
    s.applyFault({ fault: 'drain-node', target: 'node/node-a' });
    expect(events(s, 'node.cordoned')[0]).toMatchObject({ entity: 'node/node-a', cause: 'user' });
    expect(s.topology().nodes.map((n) => [n.name, n.schedulable, n.inCluster])).toEqual([
      ['node-a', false, true],
      ['node-b', true, true],
    ]);
    const evicted = events(s, 'pod.terminating');
    expect(evicted.map((e) => e.entity.slice(4)).sort()).toEqual([...onA].sort());
    // Each with its own grace period (30 s): SIGTERM, not SIGKILL.
    expect(evicted.every((e) => e.message.includes('30 s grace period') && e.cause === 'drain of node/node-a')).toBe(true);
    at(s, 45);
    const alive = s.topology().pods.filter((p) => p.phase !== 'gone');
    expect(alive.every((p) => p.node === 'node-b')).toBe(true);
    expect(alive.filter((p) => p.deployment === 'web')).toHaveLength(2);
    expect(endpoints(s)).toHaveLength(2);
    expect(events(s, 'pod.killed')).toEqual([]);
  });

  it('a grace period of 0 kills at once; with every node cordoned the ReplicaSet cannot place its pods', () => {
    const s = sim();
    at(s, 10);
    s.applyFault({ fault: 'drain-node', target: 'node/node-a', params: { gracePeriodSeconds: 0 } });
    s.applyFault({ fault: 'drain-node', target: 'node/node-b', params: { gracePeriodSeconds: 0 } });
    expect(events(s, 'pod.killed').length).toBe(4);
    const sent = counter(s, 'requests.sent');
    at(s, 20);
    expect(events(s, 'pod.unschedulable').length).toBeGreaterThan(0);
    expect(s.topology().pods.filter((p) => p.phase !== 'gone')).toEqual([]);
    // The clients were killed too: a dead process neither sends nor redials.
    expect(counter(s, 'requests.sent')).toBe(sent);
  });

  it('rejects an unknown node and a grace period below −1', () => {
    const s = sim();
    expect(() => s.applyFault({ fault: 'drain-node', target: 'node/node-z' })).toThrow('target: no node named "node-z"');
    expect(() => s.applyFault({ fault: 'drain-node', target: 'node/node-a', params: { gracePeriodSeconds: -2 } })).toThrow('params.gracePeriodSeconds: must be at least -1');
  });
});

describe('crash-loop', () => {
  it('containers exit and restart in place after 10, 20, 40 s: readiness flaps, endpoints follow, clients are reset', () => {
    const s = sim();
    at(s, 10);
    const before = webPods(s).map((p) => `${p.name} ${p.ip}`);
    s.applyFault({ fault: 'crash-loop', target: 'deployment/web', params: { runSeconds: 5, durationSeconds: 100 } });
    expect(webPods(s).every((p) => p.phase === 'running' && !p.ready)).toBe(true);
    at(s, 10.5);
    expect(endpoints(s)).toEqual([]);
    at(s, 21);
    expect(endpoints(s)).toHaveLength(2);
    at(s, 120);
    // Crashes at 10, 25 (restart 20 + 5 s), 50, 95; restarts after 10, 20, 40 s back-off; the last one (95 + 80 s) is after the run.
    expect(seconds(events(s, 'pod.crashed', 'pod/web-0'))).toEqual([10, 25, 50, 95]);
    expect(seconds(events(s, 'pod.restarted', 'pod/web-0'))).toEqual([20, 45, 90]);
    expect(events(s, 'pod.crashed', 'pod/web-0')[1]!.message).toContain('back-off 20 s');
    // The same pods, same addresses: a container restart, not a replacement.
    expect(webPods(s).map((p) => `${p.name} ${p.ip}`)).toEqual(before);
    expect(events(s, 'pod.created').filter((e) => e.t > 0)).toEqual([]);
    const r = s.report(0);
    expect(r.totals['tcp.rst.received']).toBeGreaterThan(0);
    expect(r.drops.service_no_endpoints).toBeGreaterThan(0);
    expect(r.packets.delivered + r.packets.dropped + r.packets.inFlight).toBe(r.packets.sent);
  });

  it('the back-off doubles up to 300 s, and containers stay up once the crash loop is over', () => {
    const s = sim(
      scenarioText(BASE, (b) => {
        b.duration = 1300;
        delete b.topology.deployments.client;
        delete b.params.client;
      }),
    );
    at(s, 10);
    s.applyFault({ fault: 'crash-loop', target: 'deployment/web', params: { runSeconds: 0.5, durationSeconds: 700 } });
    at(s, 1300);
    const crashes = seconds(events(s, 'pod.crashed', 'pod/web-1'));
    const restarts = seconds(events(s, 'pod.restarted', 'pod/web-1'));
    expect(restarts.map((t, i) => Math.round((t - crashes[i]!) * 10) / 10)).toEqual([10, 20, 40, 80, 160, 300, 300]);
    // The last crash (623 s) is inside the loop, which ends at 710 s; the restart at 923 s stays up.
    expect(crashes.at(-1)).toBe(623);
    expect(restarts.at(-1)).toBe(923);
    expect(webPods(s).every((p) => p.phase === 'running' && p.ready)).toBe(true);
  });

  it('applied again, it crashes the running containers now and the crash they had pending is dropped', () => {
    const s = sim();
    at(s, 10);
    s.applyFault({ fault: 'crash-loop', target: 'deployment/web', params: { runSeconds: 5, durationSeconds: 100 } });
    at(s, 22);
    s.applyFault({ fault: 'crash-loop', target: 'deployment/web', params: { runSeconds: 5, durationSeconds: 100 } });
    at(s, 41);
    expect(seconds(events(s, 'pod.crashed', 'pod/web-0'))).toEqual([10, 22]);
    at(s, 48);
    expect(seconds(events(s, 'pod.restarted', 'pod/web-0'))).toEqual([20, 42]);
    expect(seconds(events(s, 'pod.crashed', 'pod/web-0'))).toEqual([10, 22, 47]);
  });

  it('with a run-time spread, pods crash apart from each other, the same way for the same seed', () => {
    const crashes = () => {
      const s = sim();
      at(s, 10);
      s.applyFault({ fault: 'crash-loop', target: 'deployment/web', params: { runSeconds: 5, durationSeconds: 100, jitter: 0.5 } });
      at(s, 120);
      return ['pod/web-0', 'pod/web-1'].map((pod) => seconds(events(s, 'pod.crashed', pod)));
    };
    const [web0, web1] = crashes();
    // The first crash comes within 2.5 s (5 s × 0.5), not at once; each run lasts 2.5 to 7.5 s.
    for (const list of [web0!, web1!]) {
      expect(list[0]!).toBeGreaterThan(10);
      expect(list[0]!).toBeLessThanOrEqual(12.5);
      expect(list.length).toBeGreaterThanOrEqual(3);
    }
    expect(web0).not.toEqual(web1);
    expect(crashes()).toEqual([web0, web1]);
  });

  it('a pod deleted while it waits out its back-off goes at once, and is replaced by a pod that crashes too', () => {
    const s = sim();
    at(s, 10);
    s.applyFault({ fault: 'crash-loop', target: 'deployment/web', params: { runSeconds: 5, durationSeconds: 60 } });
    at(s, 12);
    s.applyFault({ fault: 'delete-pod', target: 'pod/web-0' });
    expect(seconds(events(s, 'pod.gone', 'pod/web-0'))).toEqual([12]);
    at(s, 30);
    const replacement = webPods(s).find((p) => p.name !== 'web-0' && p.name !== 'web-1')!;
    // Created 200 ms after the deletion, Ready 2 s later, crashing 5 s after that.
    expect(seconds(events(s, 'pod.crashed', `pod/${replacement.name}`))).toEqual([19.2]);
  });
});

describe('set-cpu-limit', () => {
  const CFS = scenarioText({
    id: 'cfs',
    title: 'CPU limit',
    description: 'One API pod whose requests take CPU time.',
    seed: 3,
    duration: 30,
    topology: {
      nodes: [node('a', { pods: [pod('api-0')] })],
      deployments: { api: httpServer(1, { cpuPerRequestMs: 0.25 }), client: httpClient(4, 'api'), other: httpServer(1) },
      services: { api: service('api', '10.96.0.40') },
    },
    params: { client: { requestsPerSecond: 100 }, cpu: { kernel: 'expiring' }, node: { cores: 32 } },
  });

  it('limits a running pod in place, and lifting it ends the throttling', () => {
    const s = createSim(loadText(CFS));
    s.runUntil(atSeconds(5));
    expect(counter(s, 'cpu.throttled_periods{deployment=api}')).toBe(0);
    expect(s.inspect('pod/api-0')!.sections.find((x) => x.title === 'CPU (CFS bandwidth)')!.rows[0]).toEqual(['limit', 'none: no quota, never throttled']);
    s.applyFault({ fault: 'set-cpu-limit', target: 'deployment/api', params: { cores: 0.3 } });
    expect(events(s, 'cpu.limit.changed').map((e) => e.message)).toEqual(['limits.cpu 0.3']);
    s.runUntil(atSeconds(15));
    const throttled = counter(s, 'cpu.throttled_periods{deployment=api}');
    expect(throttled).toBeGreaterThan(50);
    expect(s.inspect('pod/api-0')!.sections.find((x) => x.title === 'CPU (CFS bandwidth)')!.rows[0]).toEqual(['quota', '30.0 ms per 100.0 ms period']);
    s.applyFault({ fault: 'set-cpu-limit', target: 'deployment/api', params: { cores: 0 } });
    s.runUntil(atSeconds(25));
    expect(counter(s, 'cpu.throttled_periods{deployment=api}')).toBe(throttled);
  });

  it('names a deployment without CPU work, and an out-of-range limit', () => {
    const s = createSim(loadText(CFS));
    expect(() => s.applyFault({ fault: 'set-cpu-limit', target: 'deployment/other', params: { cores: 1 } })).toThrow(
      'target: deployment "other" takes no CPU time per request (cpuPerRequestMs), so there is nothing to limit',
    );
    expect(() => s.applyFault({ fault: 'set-cpu-limit', target: 'deployment/api', params: { cores: -1 } })).toThrow('params.cores');
  });
});

/** Three nodes and a fourth not yet joined, running each test's own `deployments`. */
const spread = (deployments: ScenarioSpec['topology']['deployments'], edit?: (s: ScenarioDraft) => void): string =>
  scenarioText(
    {
      id: 'placement',
      title: 'Placement',
      description: 'a DaemonSet and a node selector',
      seed: 5,
      duration: 120,
      topology: { nodes: nodes(4, (i) => (i === 3 ? { joined: false } : {}), { firstIp: 1 }), deployments },
    },
    edit,
  );
const nodesOf = (s: Sim, deployment: string) =>
  s
    .topology()
    .pods.filter((p) => p.deployment === deployment && p.phase !== 'gone' && p.phase !== 'terminating')
    .map((p) => p.node)
    .sort();

describe('placement: DaemonSets and node selectors', () => {
  it('a DaemonSet runs one pod on each node its selector allows, follows joins and deletions, and survives a drain', () => {
    const s = sim(spread({ proxy: { app: 'http-server', kind: 'DaemonSet', nodes: ['node-a', 'node-c', 'node-d'] } }));
    at(s, 1);
    expect(nodesOf(s, 'proxy')).toEqual(['node-a', 'node-c']);
    s.applyFault({ fault: 'join-node', target: 'node/node-d' });
    at(s, 5);
    expect(nodesOf(s, 'proxy')).toEqual(['node-a', 'node-c', 'node-d']);
    // kubectl drain --ignore-daemonsets leaves the DaemonSet's pod where it is.
    s.applyFault({ fault: 'drain-node', target: 'node/node-c' });
    at(s, 10);
    expect(nodesOf(s, 'proxy')).toEqual(['node-a', 'node-c', 'node-d']);
    // Deleting the node takes its pod, and nothing replaces it elsewhere.
    s.applyFault({ fault: 'remove-node', target: 'node/node-c' });
    at(s, 50);
    expect(nodesOf(s, 'proxy')).toEqual(['node-a', 'node-d']);
    expect(() => s.applyFault({ fault: 'scale-deployment', target: 'deployment/proxy', params: { replicas: 5 } })).toThrow(
      'target: proxy is a DaemonSet: it runs one pod per node and has no replica count to scale',
    );
  });

  it('a deleted DaemonSet pod and a rolling update come back on the same node, one node at a time', () => {
    const s = sim(spread({ proxy: { app: 'http-server', kind: 'DaemonSet' } }));
    at(s, 1);
    s.applyFault({ fault: 'delete-pod', target: `pod/${s.topology().pods.find((p) => p.node === 'node-b')!.name}` });
    at(s, 40);
    expect(nodesOf(s, 'proxy')).toEqual(['node-a', 'node-b', 'node-c']);
    s.applyFault({ fault: 'rolling-update', target: 'deployment/proxy' });
    expect(events(s, 'deployment.rollout').at(-1)!.message).toContain('maxSurge 0, maxUnavailable 1');
    expect(events(s, 'pod.terminating').filter((e) => e.t >= atSeconds(40))).toHaveLength(1);
    at(s, 119);
    expect(nodesOf(s, 'proxy')).toEqual(['node-a', 'node-b', 'node-c']);
    expect(s.topology().pods.filter((p) => p.deployment === 'proxy' && p.phase === 'running').length).toBe(3);
  });

  it("a node selector keeps a Deployment's pods on its nodes, however the others are loaded", () => {
    const s = sim(spread({ web: httpServer(4, { nodes: ['node-b'] }) }));
    at(s, 1);
    expect(nodesOf(s, 'web')).toEqual(['node-b', 'node-b', 'node-b', 'node-b']);
  });

  it('scale-down deletes pods that share a node with more of their deployment first, youngest first among equals', () => {
    const placed = ['web-a1', 'web-a2', 'web-a3'].map((name) => pod(name, { deployment: 'web' }));
    const s = sim(spread({ web: httpServer(6) }, (b) => (b.topology.nodes[0]!.pods = placed)));
    at(s, 1);
    // Three on node-a, and the three the scheduler placed: one each on node-b and node-c, then one more.
    expect(nodesOf(s, 'web')).toEqual(['node-a', 'node-a', 'node-a', 'node-b', 'node-b', 'node-c']);
    s.applyFault({ fault: 'scale-deployment', target: 'deployment/web', params: { replicas: 3 } });
    const gone = events(s, 'pod.terminating').map((e) => e.entity);
    expect(gone).toEqual(['pod/web-a3', 'pod/web-a2', 'pod/web-a1']);
  });
});
