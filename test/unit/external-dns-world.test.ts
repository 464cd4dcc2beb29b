import { describe, expect, it } from 'vitest';
import { clusterDns, httpServer, nodes, scenarioText, service } from '../fixtures/scenario-builder';
import { worldOf } from '../fixtures/scenario-run';
import { atSeconds } from '../../src/sim/core/time';
import { formatIpv4 } from '../../src/sim/net/ipv4';

const SCENARIO = scenarioText({
  id: 'external-dns',
  title: 'external-dns in the world',
  description: 'metric pods published under one name on a 15 s loop',
  duration: 80,
  topology: {
    nodes: nodes(2, { platform: 'cloud' }),
    deployments: { metric: httpServer(2) },
    services: { metric: service('metric', '10.96.0.20') },
    dns: clusterDns({ externalDns: { hostname: 'metric.example.com', deployment: 'metric' } }),
  },
  params: { node: { podNetwork: 'eni' }, externalDns: { intervalS: 15 } },
});

function world(sets: string[] = []) {
  const { ctx, w } = worldOf(SCENARIO, sets);
  const served = () => (w.dns!.provider.servedRecord('metric.example.com')?.addresses ?? []).map(formatIpv4).sort();
  const ipOf = (name: string) => formatIpv4(w.workloads.findPod(name)!.ip);
  return { ctx, w, served, ipOf };
}

describe('external-dns on its loop (docs/sources/dns.md#external-dns, #test-vectors)', () => {
  it('publishes the pods at start and follows a deletion only at its next run', () => {
    const { ctx, w, served, ipOf } = world();
    ctx.sched.runUntil(atSeconds(1));
    const [a, b] = [ipOf('metric-0'), ipOf('metric-1')];
    expect(served()).toEqual([a, b].sort());
    ctx.sched.runUntil(atSeconds(17));
    w.workloads.deletePod(w.workloads.findPod('metric-0')!, 5, 'test');
    // The old address stays published until the run at 30 s, although the pod has been gone since about 17 s.
    ctx.sched.runUntil(atSeconds(29.9));
    expect(served()).toContain(a);
    ctx.sched.runUntil(atSeconds(30.5));
    expect(served()).not.toContain(a);
    expect(served()).toContain(b);
    // The replacement is Ready at about 19.2 s and was published by the same run.
    expect(served()).toHaveLength(2);
  });

  it('publishes a terminating pod until it is deleted, unless told to drop it at SIGTERM', () => {
    for (const deregisterOn of ['delete', 'sigterm']) {
      const { ctx, w, served, ipOf } = world([`params.externalDns.deregisterOn=${deregisterOn}`]);
      ctx.sched.runUntil(atSeconds(14));
      const a = ipOf('metric-0');
      const pod = w.workloads.findPod('metric-0')!;
      // Keep the pod terminating across the run at 15 s: its app never finishes draining, so SIGKILL comes at 44 s.
      pod.app = { start: () => {}, terminate: () => {} };
      w.workloads.deletePod(pod, 30, 'test');
      ctx.sched.runUntil(atSeconds(16));
      expect(pod.phase).toBe('terminating');
      expect(served().includes(a)).toBe(deregisterOn === 'delete');
    }
  });

  it("writes the record with Route 53's 300 s TTL unless the TTL annotation (params.externalDns.recordTtlS) says otherwise", () => {
    for (const [sets, ttl] of [
      [[], 300],
      [['params.externalDns.recordTtlS=5'], 5],
    ] as const) {
      const { ctx, w } = world([...sets]);
      ctx.sched.runUntil(atSeconds(1));
      expect(w.dns!.provider.servedRecord('metric.example.com')?.ttl).toBe(ttl);
    }
  });
});
