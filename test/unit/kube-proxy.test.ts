import { describe, expect, it } from 'vitest';
import { createContext, type SimContext } from '../../src/sim/context';
import { Rng } from '../../src/sim/core/rng';
import { atSeconds, seconds } from '../../src/sim/core/time';
import type { PodLike } from '../../src/sim/k8s/endpoint-slice';
import { KubeProxy, KUBE_PROXY_DEFAULTS, type KubeProxySettings } from '../../src/sim/k8s/kube-proxy';
import { Service, ServiceDirectory, type ServiceExposure } from '../../src/sim/k8s/service';
import { ipv4, type Ipv4 } from '../../src/sim/net/ipv4';
import { Proto } from '../../src/sim/net/packet';

const LB_IP = ipv4('203.0.113.7');

/** `nodes` nodes and `services` Services of `perService` pods spread round-robin over the nodes, all programmed at t=0. */
function cluster(o: { nodes: number; services: number; perService: number; settings?: Partial<KubeProxySettings>; exposure?: ServiceExposure }) {
  const ctx = createContext(1);
  const nodes = Array.from({ length: o.nodes }, (_, i) => ({ name: `node-${i}`, ip: ipv4('192.168.0.0') + 10 + i }));
  const proxy = new KubeProxy(ctx, nodes, o.settings);
  const directory = new ServiceDirectory();
  const services: Service[] = [];
  const pods: PodLike[][] = [];
  let podIndex = 0;
  for (let s = 0; s < o.services; s++) {
    const service = new Service(`svc-${s}`, (ipv4('10.96.0.0') + s) as Ipv4, 80, `svc-${s}`, 8080, o.exposure);
    directory.add(service);
    const own = Array.from({ length: o.perService }, (_, i): PodLike => {
      const index = podIndex++;
      return { index, ip: ipv4('10.244.0.0') + index, hostIndex: i % o.nodes, phase: 'running', ready: true };
    });
    service.slice.update(own, 8080);
    proxy.addService(service);
    services.push(service);
    pods.push(own);
  }
  proxy.programAll();
  /** Flips one pod's readiness and tells kube-proxy, as the EndpointSlice controller and the watch would. */
  const flip = (s: number, p: number) => {
    const pod = pods[s]![p]!;
    pod.ready = !pod.ready;
    if (services[s]!.slice.update(pods[s]!, 8080)) proxy.changed(s);
  };
  const syncs = (node: number) => ctx.metrics.counter('kube_proxy.syncs', { node: `node-${node}` }).total;
  const programmedVersion = (node: number, s: number) => proxy.rules.chains(node, s)!.sliceVersion;
  return { ctx, proxy, services, pods, flip, syncs, programmedVersion };
}

/** Runs `action` at each of the given times (seconds). */
function at(ctx: SimContext, times: number[], action: (i: number) => void): void {
  times.forEach((t, i) => {
    ctx.sched.runUntil(atSeconds(t));
    action(i);
  });
}

const histogram = (ctx: SimContext, name: string, bounds: number[]) => ctx.metrics.histogram(name, bounds);
const DURATION_BOUNDS = [5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000];
const LATENCY_BOUNDS = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 30000, 60000, 120000];

describe('kube-proxy sync rate limit (docs/sources/kube-proxy.md#sync-rate-limit, #test-vectors, vector 1)', () => {
  it('10 readiness flips within 1 s ⇒ 1 sync, once the two-sync burst is spent', () => {
    const c = cluster({ nodes: 3, services: 2, perService: 6 });
    at(c.ctx, [10, 10.06], () => c.flip(0, 0));
    c.ctx.sched.runUntil(atSeconds(10.15));
    expect(c.syncs(0)).toBe(2);
    at(c.ctx, [10.15, 10.25, 10.35, 10.45, 10.55, 10.65, 10.75, 10.85, 10.95, 11.05], (i) => c.flip(i % 2, i % 6));
    c.ctx.sched.runUntil(atSeconds(14));
    for (let node = 0; node < 3; node++) {
      expect(c.syncs(node)).toBe(3);
      expect(c.programmedVersion(node, 0)).toBe(c.services[0]!.slice.version);
      expect(c.programmedVersion(node, 1)).toBe(c.services[1]!.slice.version);
    }
  });

  it('from idle with burstSyncs 1: the first flip syncs at once, the other nine ride together 1 s later', () => {
    const c = cluster({ nodes: 1, services: 1, perService: 10, settings: { burstSyncs: 1 } });
    at(c.ctx, [20, 20.1, 20.2, 20.3, 20.4, 20.5, 20.6, 20.7, 20.8, 20.9], (i) => c.flip(0, i));
    c.ctx.sched.runUntil(atSeconds(21));
    expect(c.syncs(0)).toBe(1);
    c.ctx.sched.runUntil(atSeconds(21.2));
    expect(c.syncs(0)).toBe(2);
    expect(c.programmedVersion(0, 0)).toBe(c.services[0]!.slice.version);
  });

  it('flips every 2 s ⇒ one sync per 2 s on every node, each full before 1.28, one full per syncPeriod after', () => {
    for (const restore of ['full', 'partial'] as const) {
      const c = cluster({ nodes: 4, services: 3, perService: 4, settings: { restore } });
      const times = Array.from({ length: 15 }, (_, i) => 10 + 2 * i);
      at(c.ctx, times, (i) => c.flip(i % 3, i % 4));
      c.ctx.sched.runUntil(atSeconds(39.5));
      for (let node = 0; node < 4; node++) expect(c.syncs(node)).toBe(15);
      const full = c.ctx.metrics.counter('kube_proxy.syncs.full').total;
      expect(full).toBe(restore === 'full' ? 60 : 4);
    }
  });

  it('with no changes a node still resyncs, fully, every syncPeriod', () => {
    const c = cluster({ nodes: 2, services: 1, perService: 2, settings: { restore: 'partial' } });
    c.ctx.sched.runUntil(atSeconds(95));
    expect(c.syncs(0)).toBe(3);
    expect(c.ctx.metrics.counter('kube_proxy.syncs.full').total).toBe(6);
  });
});

describe('sync cost and programming latency', () => {
  it('a change during a long sync lands only after it, and the next sync starts right away', () => {
    // 5 Services × (2 + 3 × 66 endpoints) ≈ 1000 rules at 2 ms each: every full sync takes ≈2.04 s.
    const c = cluster({ nodes: 2, services: 5, perService: 66, settings: { restore: 'full', syncCostPerRuleUs: 2000 } });
    at(c.ctx, [10], () => c.flip(0, 0));
    expect(c.proxy.syncing(0)).toBe(true);
    at(c.ctx, [11], () => c.flip(0, 1));
    const second = c.services[0]!.slice.version;
    c.ctx.sched.runUntil(atSeconds(12.04));
    expect(c.programmedVersion(0, 0)).toBe(second - 2);
    c.ctx.sched.runUntil(atSeconds(12.06));
    expect(c.programmedVersion(0, 0)).toBe(second - 1);
    expect(c.proxy.syncing(0)).toBe(true);
    c.ctx.sched.runUntil(atSeconds(14.07));
    expect(c.programmedVersion(0, 0)).toBe(second - 1);
    c.ctx.sched.runUntil(atSeconds(14.1));
    expect(c.programmedVersion(0, 0)).toBe(second);
    const latency = histogram(c.ctx, 'kube_proxy.programming_latency_ms', LATENCY_BOUNDS);
    expect(latency.count).toBe(4);
    expect(latency.quantile(1)).toBeGreaterThan(2000);
    expect(latency.quantile(1)).toBeLessThanOrEqual(5000);
    const slow = c.ctx.log.since(0).filter((e) => e.kind === 'kube_proxy.sync.slow');
    expect(slow.map((e) => e.entity)).toEqual(['node/node-0', 'node/node-1']);
    expect(slow[0]!.message).toContain('997 rules');
  });

  it('C.3 vector 1: a pod taken out of endpoints keeps receiving new connections until the node syncs', () => {
    const c = cluster({ nodes: 2, services: 1, perService: 2 });
    at(c.ctx, [30, 30.01], () => c.flip(0, 1));
    c.ctx.sched.runUntil(atSeconds(30.5));
    at(c.ctx, [30.5], () => c.flip(0, 0));
    expect(c.services[0]!.slice.endpoints[0]!.ready).toBe(false);
    const id = c.proxy.rules.lookup(1, c.services[0]!.clusterIp, 80, Proto.tcp);
    const rng = new Rng(9).stream('dnat');
    const pickedGone = (t: number) => {
      c.ctx.sched.runUntil(atSeconds(t));
      let hits = 0;
      for (let i = 0; i < 200; i++) if (c.proxy.rules.endpointPod(1, c.proxy.rules.choose(1, id, true, rng.next())) === 0) hits++;
      return hits;
    };
    expect(pickedGone(31)).toBeGreaterThan(60);
    expect(pickedGone(31.2)).toBe(0);
  });

  it('KEP-3453: at scale partial restores are far cheaper than full ones and programming latency drops', () => {
    const run = (restore: 'full' | 'partial') => {
      // 300 Services × 100 endpoints ≈ 90k rules: a full restore takes ≈0.95 s.
      const c = cluster({ nodes: 2, services: 300, perService: 100, settings: { restore } });
      const rng = new Rng(5).stream('churn');
      const times = Array.from({ length: 240 }, (_, i) => 10 + 0.25 * i);
      at(c.ctx, times, () => c.flip(rng.int(300), rng.int(100)));
      c.ctx.sched.runUntil(atSeconds(80));
      return {
        duration: histogram(c.ctx, 'kube_proxy.sync.duration_ms', DURATION_BOUNDS).quantile(0.5),
        latency: histogram(c.ctx, 'kube_proxy.programming_latency_ms', LATENCY_BOUNDS).quantile(0.5),
      };
    };
    const full = run('full');
    const partial = run('partial');
    expect(full.duration).toBeGreaterThan(500);
    expect(partial.duration).toBeLessThan(full.duration / 5);
    expect(partial.latency).toBeLessThan(full.latency / 2);
  });

  it("the rest of the cluster's rules: a full restore rewrites all of them, a partial one only their jump rules", () => {
    const syncMs = (restore: 'full' | 'partial') => {
      // One small Service of our own, and 1,000 Services with 30,000 endpoints elsewhere in the cluster.
      const c = cluster({ nodes: 1, services: 1, perService: 2, settings: { restore, otherServices: 1000, otherEndpoints: 30_000 } });
      at(c.ctx, [10], () => c.flip(0, 0));
      c.ctx.sched.runUntil(atSeconds(20));
      return histogram(c.ctx, 'kube_proxy.sync.duration_ms', DURATION_BOUNDS).quantile(0.5);
    };
    // Full: 50 ms + 10 µs × (1000 × 2 + 3 × 30,000 + the Service's own) ≈ 970 ms; partial: 50 ms + 10 µs × ~1,000.
    expect(syncMs('full')).toBeGreaterThan(500);
    expect(syncMs('full')).toBeLessThanOrEqual(1000);
    expect(syncMs('partial')).toBeLessThanOrEqual(100);
  });

  it('kube_proxy.busy shows the share of a second the busiest node spent syncing', () => {
    const c = cluster({ nodes: 2, services: 10, perService: 33, settings: { restore: 'full', syncCostPerRuleUs: 500 } });
    const busy = c.ctx.metrics.gauge('kube_proxy.busy');
    at(c.ctx, [10], () => c.flip(0, 0));
    c.ctx.sched.runUntil(atSeconds(11));
    expect(busy.value).toBeCloseTo(0.55, 2);
    expect(c.proxy.busy(1)).toBeCloseTo(0.55, 2);
    c.ctx.sched.runUntil(atSeconds(12));
    expect(busy.value).toBe(0);
  });
});

describe('healthCheckNodePort (docs/sources/kube-proxy.md#healthchecknodeport, #test-vectors, vector 2)', () => {
  const local: ServiceExposure = { type: 'LoadBalancer', loadBalancerIp: LB_IP, externalTrafficPolicy: 'Local' };

  it('503 with localEndpoints 0 on a node without endpoints, 200 with a local ready one; terminating ones do not count', () => {
    const c = cluster({ nodes: 3, services: 1, perService: 2, exposure: local });
    expect(c.services[0]!.healthCheckNodePort).toBe(30001);
    expect(c.proxy.healthCheck(2, 0)).toEqual({ status: 503, localEndpoints: 0, serviceProxyHealthy: true });
    expect(c.proxy.healthCheck(0, 0)).toEqual({ status: 200, localEndpoints: 1, serviceProxyHealthy: true });
    c.pods[0]![0]!.phase = 'terminating';
    if (c.services[0]!.slice.update(c.pods[0]!, 8080)) c.proxy.changed(0);
    expect(c.proxy.healthCheck(0, 0)!.status).toBe(200);
    c.ctx.sched.runUntil(atSeconds(1));
    expect(c.proxy.healthCheck(0, 0)).toEqual({ status: 503, localEndpoints: 0, serviceProxyHealthy: true });
  });

  it('Services without Local + LoadBalancer serve no health check', () => {
    const c = cluster({ nodes: 1, services: 1, perService: 1, exposure: { type: 'NodePort', externalTrafficPolicy: 'Local' } });
    expect(c.services[0]!.healthCheckNodePort).toBeUndefined();
    expect(c.proxy.healthCheck(0, 0)).toBeNull();
  });

  it('serviceProxyHealthy turns false once a change has waited healthTimeout (2 × syncPeriod) and back after it lands', () => {
    // A stalled kube-proxy: every sync takes 100 s.
    const c = cluster({ nodes: 2, services: 1, perService: 2, exposure: local, settings: { syncFixedCostUs: 100_000_000, syncCostPerRuleUs: 0 } });
    at(c.ctx, [10], () => c.flip(0, 1));
    at(c.ctx, [20], () => c.flip(0, 1));
    c.ctx.sched.runUntil(atSeconds(69.9));
    expect(c.proxy.healthCheck(0, 0)!.status).toBe(200);
    c.ctx.sched.runUntil(atSeconds(70));
    expect(c.proxy.healthCheck(0, 0)).toEqual({ status: 503, localEndpoints: 1, serviceProxyHealthy: false });
    expect(c.proxy.proxyHealthy(1)).toBe(false);
    c.ctx.sched.runUntil(atSeconds(150));
    expect(c.proxy.syncing(0)).toBe(true);
    expect(c.proxy.proxyHealthy(0)).toBe(false);
    c.ctx.sched.runUntil(atSeconds(210));
    expect(c.proxy.healthCheck(0, 0)).toEqual({ status: 200, localEndpoints: 1, serviceProxyHealthy: true });
  });
});

describe('defaults', () => {
  it('carry kube-proxy’s: minSyncPeriod 1 s, syncPeriod 30 s, burst 2', () => {
    expect(KUBE_PROXY_DEFAULTS.minSyncPeriod).toBe(seconds(1));
    expect(KUBE_PROXY_DEFAULTS.syncPeriod).toBe(seconds(30));
    expect(KUBE_PROXY_DEFAULTS.burstSyncs).toBe(2);
  });
});
