import { describe, expect, it } from 'vitest';
import type { SimContext } from '../../src/sim/context';
import { atSeconds } from '../../src/sim/core/time';
import { findFault } from '../../src/sim/faults/catalog';
import { parseTarget, resolveParams, type FaultParams } from '../../src/sim/faults/fault';
import { TcpState } from '../../src/sim/net/tcp';
import type { World } from '../../src/sim/world';
import { createSim } from '../../src/sim/sim';
import { clusterDns, fault, grpcClient, grpcServer, node, pod, scenarioText, type ScenarioSpec, type TimelineInput } from '../fixtures/scenario-builder';
import { loadText, runText, worldOf } from '../fixtures/scenario-run';

/** Four gRPC clients (pick_first, gRPC backoff by default) find two metric servers through a fixed DNS record. */
const GRPC: ScenarioSpec = {
  id: 'faults-grpc',
  title: 'gRPC client policy faults',
  description: 'gRPC clients resolve two servers by DNS',
  duration: 40,
  topology: {
    nodes: [node('a', { pods: [pod('metric-0', { ip: '10.244.1.10' })] }), node('b', { pods: [pod('metric-1', { ip: '10.244.2.10' })] })],
    deployments: { metric: grpcServer(2, { port: 9090 }), alerting: grpcClient(4, 'metric.example.com:9090') },
    dns: clusterDns({ nodeLocal: false, records: { 'metric.example.com': ['10.244.1.10', '10.244.2.10'] } }),
  },
};
const SCENARIO = scenarioText(GRPC);

function apply(w: World, fault: string, target: string, params: FaultParams = {}): void {
  const f = findFault(fault)!;
  const { kind, name } = parseTarget(f, target);
  f.apply(w, kind, name, resolveParams(f, params), 'test');
}

const runTo = (ctx: SimContext, t: number) => ctx.sched.runUntil(atSeconds(t));

/** Established connections to the metric port, per running alerting pod. */
function connectionsPerClient(w: World): number[] {
  return w.workloads.pods
    .filter((p) => p.deployment === 'alerting' && p.phase === 'running')
    .map((p) => p.tcp.sockets().filter((s) => s.remotePort === 9090 && s.state === TcpState.established).length);
}

describe('set-lb-policy', () => {
  it('rolls the clients to round_robin: each new pod keeps a connection to every server instead of one', () => {
    const { ctx, w } = worldOf(SCENARIO);
    runTo(ctx, 5);
    expect(connectionsPerClient(w)).toEqual([1, 1, 1, 1]);
    apply(w, 'set-lb-policy', 'deployment/alerting', { lbPolicy: 'round_robin' });
    expect(w.grpcClientSettings('alerting')!.lbPolicy).toBe('round_robin');
    const rollout = ctx.log.since(0).find((e) => e.kind === 'deployment.rollout')!;
    expect(rollout).toMatchObject({ entity: 'deployment/alerting', cause: 'test' });
    runTo(ctx, 30);
    const alerting = w.workloads.pods.filter((p) => p.deployment === 'alerting' && p.phase === 'running');
    expect(alerting.every((p) => p.revision === 2)).toBe(true);
    expect(connectionsPerClient(w)).toEqual([2, 2, 2, 2]);
  });

  it('refuses deployments without a gRPC client and unknown policies', () => {
    const sim = createSim(loadText(SCENARIO));
    expect(() => sim.applyFault({ fault: 'set-lb-policy', target: 'deployment/metric' })).toThrow('target: deployment "metric" runs no gRPC client');
    expect(() => sim.applyFault({ fault: 'set-lb-policy', target: 'deployment/alerting', params: { lbPolicy: 'random' } })).toThrow(
      'params.lbPolicy: expected one of "pick_first", "round_robin"',
    );
    expect(() => sim.applyFault({ fault: 'set-lb-policy', target: 'deployment/alertin' })).toThrow('target: no deployment named "alertin"');
  });
});

describe('set-reconnect-policy', () => {
  it('a fixed 300 ms interval makes clients redial crashed servers several times as often as gRPC’s backoff', () => {
    // The servers crash at 20 s and stay down until 30 s; the clients were rolled to the new policy by then.
    const timeline = (...policy: TimelineInput[]) => scenarioText({ ...GRPC, timeline: [...policy, fault(20, 'crash-loop', 'deployment/metric', { runSeconds: 5, durationSeconds: 100 })] });
    const base = runText(timeline());
    const fixed = runText(timeline(fault(1, 'set-reconnect-policy', 'deployment/alerting', { reconnect: 'fixed', reconnectIntervalMs: 300 })));
    expect(fixed.sim.eventsSince(0).filter((e) => e.kind === 'fault.failed')).toEqual([]);
    const attempts = (r: typeof base) => r.report.series['grpc.client.connect_attempts']!.values.slice(21, 29).reduce((a, b) => a + b, 0);
    expect(attempts(base)).toBeGreaterThan(0);
    expect(attempts(fixed)).toBeGreaterThan(3 * attempts(base));
    // The event log says what the pod template sets now.
    const settings = fixed.sim.eventsSince(0).find((e) => e.kind === 'grpc.client.settings.changed')!;
    expect(settings.message).toBe('pod template now sets reconnect=fixed, reconnectIntervalMs=300');
  });

  it('rejects an interval outside its range', () => {
    const sim = createSim(loadText(SCENARIO));
    expect(() => sim.applyFault({ fault: 'set-reconnect-policy', target: 'deployment/alerting', params: { reconnectIntervalMs: 0 } })).toThrow(
      'params.reconnectIntervalMs: must be at least 1',
    );
  });
});
