import { describe, expect, it } from 'vitest';
import { clusterDns, fault, grpcClient, grpcServer, httpServer, nodes, scenarioText, service, type ScenarioDraft } from '../fixtures/scenario-builder';
import { runText } from '../fixtures/scenario-run';
import type { RunReport } from '../../src/sim/api';

// Twenty gRPC clients on three cloud instances query a metric service of three pods, found through Route 53 by
// external-dns; the service resolves its `index` dependency through DNS before each query. At 30 s it rolls.
const grpcApps = (dependency: string, edit?: (s: ScenarioDraft) => void): string =>
  scenarioText(
    {
      id: 'grpc-apps',
      title: 'gRPC clients and servers on the packet path',
      description: 'a metric service rolls while its clients look it up through DNS',
      duration: 100,
      topology: {
        nodes: nodes(3, { platform: 'cloud' }),
        deployments: {
          index: httpServer(1),
          metric: grpcServer(3, { port: 9090, dependencies: [dependency], terminationGracePeriodSeconds: 10 }),
          alerting: grpcClient(20, 'metric.example.com:9090'),
        },
        services: { index: service('index', '10.96.0.30') },
        dns: clusterDns({ nodeLocal: true, externalDns: { hostname: 'metric.example.com', deployment: 'metric' } }),
      },
      params: {
        node: { podNetwork: 'eni' },
        externalDns: { intervalS: 15 },
        alerting: { lbPolicy: 'round_robin', reconnect: 'fixed', reconnectIntervalMs: 300, minConnectTimeoutMs: 300 },
      },
      timeline: [fault(30, 'rolling-update', 'deployment/metric')],
    },
    edit,
  );

function run(sets: string[] = [], dependency = 'index'): RunReport {
  return runText(grpcApps(dependency), sets).report;
}

const values = (r: RunReport, metric: string) => r.series[metric]?.values ?? [];
const sum = (xs: number[], from = 0, to = xs.length) => xs.slice(from, to).reduce((a, b) => a + b, 0);

describe('gRPC clients and servers over DNS, TCP and the data plane', () => {
  const incident = run();

  it('serves every query before the rollout, each after resolving its dependency', () => {
    expect(sum(values(incident, 'grpc.client.ok'), 0, 30)).toBeGreaterThan(900);
    expect(sum(values(incident, 'grpc.client.failed'), 0, 30)).toBe(0);
    expect(incident.totals['grpc.server.ok']).toBe(incident.totals['grpc.client.ok']);
    expect(incident.totals['dns.client.lookups']).toBeGreaterThanOrEqual(incident.totals['grpc.server.requests']!);
  });

  it('during GracefulStop new connections are reset; after it, SYNs to the dead addresses die as martians', () => {
    expect(incident.drops.no_socket_reset).toBeGreaterThan(0);
    expect(incident.drops.rp_filter_martian).toBeGreaterThan(1000);
  });

  it('an old pod drains at once but stays until SIGKILL at the end of its grace period, resetting new connections', () => {
    const { sim } = runText(grpcApps('index'), ['duration=45']);
    const events = sim.eventsSince(0);
    const pod = events.find((e) => e.kind === 'pod.terminating' && e.entity.startsWith('pod/metric-'))!.entity;
    const at = (kind: string) => events.find((e) => e.kind === kind && e.entity === pod)?.t;
    const sigterm = at('pod.terminating')!;
    expect(at('grpc.server.drained')! - sigterm).toBeLessThan(1e6);
    expect(at('pod.gone')! - sigterm).toBe(10e6);
  });

  it('clients only move to the new pods at a re-resolution, a multiple of 30 s after their last', () => {
    const ok = values(incident, 'grpc.client.ok');
    const failed = values(incident, 'grpc.client.failed');
    const firstFailure = failed.findIndex((v) => v > 0);
    const recovered = ok.findIndex((v, i) => i > firstFailure && v > 0);
    expect(firstFailure).toBeGreaterThan(30);
    // The first lookups ran at 0 s and again after the first connection loss (30 s later, at the window's end).
    expect(recovered).toBeGreaterThanOrEqual(60);
    expect(recovered).toBeLessThanOrEqual(64);
    expect(sum(failed, recovered + 1)).toBe(0);
  });

  it("gRPC's default backoff makes more than ten times fewer connection attempts at the dead addresses than a 300 ms loop", () => {
    const gentle = run(['params.alerting.reconnect=backoff', 'params.alerting.minConnectTimeoutMs=20000']);
    // The old pods reset new connections for their 10 s of grace from 30 s; from 41 s their addresses are dead.
    const stormy = sum(values(incident, 'grpc.client.connect_attempts'), 41);
    const calm = sum(values(gentle, 'grpc.client.connect_attempts'), 41);
    expect(stormy).toBeGreaterThan(10 * calm);
    // The kernel still retransmits each attempt's SYN (1 s, 2 s, 4 s, ...), so packets shrink less than attempts.
    expect(sum(values(gentle, 'tcp.syn.sent'), 31)).toBeLessThan(sum(values(incident, 'tcp.syn.sent'), 31) / 3);
  });

  it('a dependency that does not resolve turns into server errors', () => {
    const broken = run([], 'missing');
    expect(broken.totals['grpc.server.errors{reason=dns}']).toBeGreaterThan(0);
    expect(broken.totals['grpc.server.ok'] ?? 0).toBe(0);
    // UNAVAILABLE, so the clients retried each query before giving up.
    expect(broken.totals['grpc.client.failed{code=UNAVAILABLE}']).toBeGreaterThan(0);
    expect(broken.totals['grpc.client.retries']).toBeGreaterThan(0);
  });
});

describe('switch-over times', () => {
  it('land on the resolution grid: nothing before the first re-resolution, everything by the next windows', () => {
    const r = run();
    const t = r.totals;
    expect(t['grpc.client.switchover_s.count']).toBe(60);
    // The rollout starts at 30 s; a client's first look after it is at the 30 s window's end, 30 s after its start-up lookup.
    expect(t['grpc.client.switchover_s.le_25'] ?? 0).toBe(0);
    expect(t['grpc.client.switchover_s.le_35']).toBe(60);
  });
});

describe('why: causal chains from recorded causes', () => {
  it('walks from martian drops to the deleted pod and the clients that keep redialling it', () => {
    const [chain] = run().why;
    expect(chain?.symptom).toMatch(/^martian drops at node\/node-[abc]$/);
    const texts = chain!.steps.map((s) => `${s.entity}: ${s.text}`);
    expect(texts[0]).toMatch(/packets dropped as martians on eth1, which has no IPv4 address \(rp_filter 2\)$/);
    expect(texts[1]).toMatch(/^pod\/metric-\d: 10\.244\.\d\.\d+ was this pod's address; it was deleted at 3\d\.\d s/);
    expect(texts[2]).toMatch(/^deployment\/alerting: made \d+ of the \d+ connection attempts to /);
    expect(texts[3]).toContain('every 300 ms (a fixed interval)');
  });

  it('walks from DNS refusals through the full hypervisor table to the reconnect storm', () => {
    const r = run(['params.instance.conntrackAllowance=300', 'params.dns.maxConcurrent=5']);
    const chain = r.why.find((c) => c.symptom.startsWith('DNS refusals'));
    expect(chain).toBeDefined();
    const texts = chain!.steps.map((s) => s.text);
    expect(texts[0]).toMatch(/^node-local DNS answered \d{1,3}(,\d{3})* queries REFUSED with all 5 max_concurrent slots taken$/);
    expect(texts[1]).toMatch(/^its queries to the upstream DNS failed \d{1,3}(,\d{3})* times/);
    expect(texts[2]).toMatch(/^the hypervisor dropped \d{1,3}(,\d{3})* packets of new flows: 300 of 300 tracked connections in use$/);
    expect(texts[3]).toMatch(/^\d+ % of the tracked flows sampled go to 10\.244\./);
    expect(texts.at(-1)).toContain('every 300 ms');
  });

  it('has nothing to explain in a quiet run', () => {
    const quiet = grpcApps('index', (s) => (s.timeline = []));
    expect(runText(quiet).report.why).toEqual([]);
  });
});

describe('knobs move the storm the way they should', () => {
  const attemptsAfterRollout = (r: RunReport) => sum(values(r, 'grpc.client.connect_attempts'), 31, 60);

  it('halving the redial interval roughly doubles the connection attempts at the dead addresses', () => {
    const base = attemptsAfterRollout(run(['params.alerting.reconnectIntervalMs=600', 'params.alerting.minConnectTimeoutMs=600']));
    const half = attemptsAfterRollout(run(['params.alerting.reconnectIntervalMs=300', 'params.alerting.minConnectTimeoutMs=300']));
    expect(half / base).toBeGreaterThan(1.7);
    expect(half / base).toBeLessThan(2.3);
  });

  it('an allowance above the peak demand removes the hypervisor drops; a small one brings them', () => {
    expect(run(['params.instance.conntrackAllowance=300']).drops.hypervisor_conntrack_exceeded).toBeGreaterThan(0);
    expect(run(['params.instance.conntrackAllowance=100000']).drops.hypervisor_conntrack_exceeded ?? 0).toBe(0);
  });

  it('an address on the pod interface turns the martians into traffic the node sees', () => {
    const withIp = run(['params.node.podInterfaceHasIp=true']);
    expect(withIp.drops.rp_filter_martian ?? 0).toBe(0);
    // Loose rp_filter now lets the SYNs in; the node forwards them and the instance's source/destination check stops them.
    expect(withIp.drops.source_dest_check).toBeGreaterThan(0);
  });
});
