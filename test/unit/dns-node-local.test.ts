import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/sim/context';
import { atSeconds, micros, seconds } from '../../src/sim/core/time';
import { recentMaxConnectAttempts, type ForwardSettings } from '../../src/sim/dns/forward';
import { NODE_LOCAL_DNS_IP, NodeLocalDns, nodeLocalDnsOptions } from '../../src/sim/dns/node-local-dns';
import { ipv4 } from '../../src/sim/net/ipv4';
import { FakeDnsTransport, RawDnsClient, scriptedServer } from '../fixtures/fake-dns-transport';

const KUBE_DNS = ipv4('10.96.0.10');
const CLUSTER_DNS = ipv4('10.96.0.11');
const VPC_RESOLVER = ipv4('10.0.0.2');
const SERVICE_IP = ipv4('10.96.5.5');

function setup(clusterForward: Partial<ForwardSettings> = {}, externalForward: Partial<ForwardSettings> = {}) {
  const ctx = createContext(7);
  const transport = new FakeDnsTransport(ctx);
  const nodeLocal = new NodeLocalDns(
    ctx,
    transport,
    nodeLocalDnsOptions({ kubeDnsIp: KUBE_DNS, clusterDnsIps: [CLUSTER_DNS], upstreamServers: [VPC_RESOLVER], clusterForward, externalForward }),
  );
  const node = nodeLocal.addNode(0, 0, 'node-a');
  const client = new RawDnsClient(ctx, transport, 1);
  return { ctx, transport, nodeLocal, node, client };
}

/**
 * Offers Poisson queries for a cluster name at `qps` to node-local DNS whose cluster DNS accepts TCP connections but
 * never answers; returns admitted queries per second, the share answered REFUSED and the slot hold time, measured
 * over whole multiples of the expected hold once the first waves of slot turnover have passed.
 */
function saturate(clusterForward: Partial<ForwardSettings>, qps: number, hold: number) {
  const from = 3 * hold;
  const to = 11 * hold;
  const { ctx, transport, nodeLocal, node, client } = setup(clusterForward);
  transport.listen(
    9,
    CLUSTER_DNS,
    scriptedServer(transport, () => null),
  );
  const rng = ctx.rng.stream('test/arrivals');
  let peakInflight = 0;
  const arrive = ctx.sched.register('test.arrive', () => {
    client.ask(NODE_LOCAL_DNS_IP, 'web.default.svc.cluster.local');
    peakInflight = Math.max(peakInflight, nodeLocal.inflight(node));
    ctx.sched.after(micros(rng.exponential(1e6 / qps)), arrive);
  });
  ctx.sched.after(micros(0), arrive);
  ctx.sched.runUntil(atSeconds(to + 10));
  const counted = client.asked.filter((a) => a.sentAt >= seconds(from) && a.sentAt < seconds(to));
  const admitted = counted.filter((a) => a.answer?.rcode === 'SERVFAIL');
  const refused = counted.filter((a) => a.answer?.rcode === 'REFUSED');
  const holds = admitted.map((a) => (a.answeredAt - a.sentAt) / 1e6);
  return {
    ctx,
    unanswered: counted.length - admitted.length - refused.length,
    admittedPerSecond: admitted.length / (to - from),
    refusedShare: refused.length / counted.length,
    meanHold: holds.reduce((x, y) => x + y, 0) / holds.length,
    peakInflight,
    memoryPeak: ctx.metrics.gauge('dns.nodelocal.memory_bytes').peak,
  };
}

describe('node-local DNS max_concurrent, end to end (docs/sources/dns.md#concurrency-saturation, #test-vectors)', () => {
  it('vector 1: 1000 slots, a silent cluster DNS holding each query 5 s, 500 qps ⇒ ~200 qps admitted and 60 % REFUSED', () => {
    // Two 2.5 s reads end exactly at the 5 s request deadline, so each admitted query holds its slot 5 s; max_fails 0
    // turns health checks off, which would otherwise shorten the hold (next test).
    const r = saturate({ maxConcurrent: 1000, readTimeout: seconds(2.5), maxFails: 0 }, 500, 5);
    expect(r.unanswered).toBe(0);
    expect(r.meanHold).toBeCloseTo(5, 2);
    expect(Math.abs(r.admittedPerSecond - 200)).toBeLessThan(6);
    expect(Math.abs(r.refusedShare - 0.6)).toBeLessThan(0.03);
    expect(r.ctx.metrics.counter('dns.nodelocal.refused').total).toBeGreaterThan(0);
  });

  it.each<[string, Partial<ForwardSettings>, number, number]>([
    ['one attempt (2 s)', { maxConcurrent: 1000, maxConnectAttempts: 1, maxFails: 0 }, 2, 500],
    ['the recent 2 × upstreams attempts (4 s)', { maxConcurrent: 1000, maxConnectAttempts: recentMaxConnectAttempts(1), maxFails: 0 }, 4, 250],
    ['retries until the deadline, the last read overrunning it (6 s)', { maxConcurrent: 1000, maxFails: 0 }, 6, 1000 / 6],
    ['400 slots, two 2.5 s reads (5 s)', { maxConcurrent: 400, readTimeout: seconds(2.5), maxFails: 0 }, 5, 80],
    ['health checks on: the only upstream is down, so one 2 s attempt', { maxConcurrent: 1000 }, 2, 500],
  ])('vector 2 and Little’s law: %s', (_label, settings, hold, rate) => {
    const r = saturate(settings, rate * 2, hold);
    expect(r.meanHold).toBeCloseTo(hold, 2);
    expect(Math.abs(r.admittedPerSecond / rate - 1)).toBeLessThan(0.03);
    expect(Math.abs(r.refusedShare - 0.5)).toBeLessThan(0.03);
  });

  it('vector 2: 1000 queries in flight hold about 2 MB, and never more than the limit', () => {
    const r = saturate({ maxConcurrent: 1000, readTimeout: seconds(2.5), maxFails: 0 }, 500, 5);
    expect(r.peakInflight).toBe(1000);
    expect(r.memoryPeak).toBe(1000 * 2048);
    expect(r.ctx.metrics.gauge('dns.nodelocal.inflight', { node: 'node-a' }).peak).toBe(1000);
  });

  it('refuses nothing below saturation', () => {
    const r = saturate({ maxConcurrent: 1000, readTimeout: seconds(2.5), maxFails: 0 }, 150, 5);
    expect(r.refusedShare).toBe(0);
    expect(r.ctx.metrics.counter('dns.nodelocal.refused').total).toBe(0);
  });

  it('the `.` zone has no max_concurrent unless configured', () => {
    const { ctx, transport, client } = setup();
    transport.listen(
      9,
      VPC_RESOLVER,
      scriptedServer(transport, () => null),
    );
    for (let i = 0; i < 3000; i++) client.ask(NODE_LOCAL_DNS_IP, `host-${i}.example.com`);
    ctx.sched.runUntil(atSeconds(10));
    expect(client.asked.every((a) => a.answer?.rcode === 'SERVFAIL')).toBe(true);
    expect(ctx.metrics.counter('dns.nodelocal.refused').total).toBe(0);
  });
});

describe('node-local DNS zones and cache (docs/sources/dns.md#nodelocal-dnscache, #test-vectors, vector 5)', () => {
  function withClusterDns() {
    const s = setup();
    s.transport.listen(
      9,
      CLUSTER_DNS,
      scriptedServer(s.transport, (q) => (q.name === 'web.default.svc.cluster.local' ? { rcode: 'NOERROR', addresses: [SERVICE_IP], ttl: 30 } : { rcode: 'NXDOMAIN', ttl: 30 })),
    );
    const upstreamAsked = (name: string) => s.transport.deliveredTo(CLUSTER_DNS).filter((q) => q.name === name).length;
    const askAt = (t: number, name: string) => {
      s.ctx.sched.runUntil(atSeconds(t));
      return s.client.ask(NODE_LOCAL_DNS_IP, name);
    };
    return { ...s, upstreamAsked, askAt };
  }

  it('vector 5: NXDOMAIN for x.svc.cluster.local is cached 5 s', () => {
    const { ctx, upstreamAsked, askAt } = withClusterDns();
    const first = askAt(0, 'x.svc.cluster.local');
    const cached = askAt(4.5, 'x.svc.cluster.local');
    askAt(5.5, 'x.svc.cluster.local');
    ctx.sched.runUntil(atSeconds(6));
    expect(first.answer?.rcode).toBe('NXDOMAIN');
    expect(cached.answer?.rcode).toBe('NXDOMAIN');
    expect(cached.answer?.ttl).toBe(1);
    expect(upstreamAsked('x.svc.cluster.local')).toBe(2);
  });

  it('vector 5: a positive answer is cached 30 s, served with the TTL it has left', () => {
    const { ctx, upstreamAsked, askAt } = withClusterDns();
    askAt(0, 'web.default.svc.cluster.local');
    const cached = askAt(29.5, 'web.default.svc.cluster.local');
    askAt(30.5, 'web.default.svc.cluster.local');
    ctx.sched.runUntil(atSeconds(31));
    expect(cached.answer?.addresses).toEqual([SERVICE_IP]);
    expect(cached.answer?.ttl).toBe(1);
    expect(upstreamAsked('web.default.svc.cluster.local')).toBe(2);
  });

  it('sends cluster names to cluster DNS over TCP (force_tcp) and other names to the node’s resolver over UDP', () => {
    const { ctx, transport, client } = withClusterDns();
    transport.listen(
      9,
      VPC_RESOLVER,
      scriptedServer(transport, () => ({ rcode: 'NOERROR', addresses: [ipv4('93.184.216.34')], ttl: 60 })),
    );
    client.ask(NODE_LOCAL_DNS_IP, 'web.default.svc.cluster.local');
    client.ask(KUBE_DNS, 'example.com');
    ctx.sched.runUntil(atSeconds(1));
    expect(client.asked.map((a) => a.answer?.rcode)).toEqual(['NOERROR', 'NOERROR']);
    expect(transport.deliveredTo(CLUSTER_DNS).map((q) => q.name)).toContain('web.default.svc.cluster.local');
    expect(transport.deliveredTo(VPC_RESOLVER).map((q) => q.name)).toEqual(['example.com']);
    expect(transport.opened.tcp).toBe(1);
  });

  it('does not cache the SERVFAIL it makes up when the upstream is silent', () => {
    const { ctx, transport, client } = setup({ maxConnectAttempts: 1 });
    transport.setPath(CLUSTER_DNS, { blackhole: true });
    transport.listen(
      9,
      CLUSTER_DNS,
      scriptedServer(transport, () => null),
    );
    client.ask(NODE_LOCAL_DNS_IP, 'web.default.svc.cluster.local');
    ctx.sched.runUntil(atSeconds(40));
    transport.setPath(CLUSTER_DNS, { blackhole: false });
    transport.listen(
      9,
      CLUSTER_DNS,
      scriptedServer(transport, () => ({ rcode: 'NOERROR', addresses: [SERVICE_IP], ttl: 30 })),
    );
    const after = client.ask(NODE_LOCAL_DNS_IP, 'web.default.svc.cluster.local');
    ctx.sched.runUntil(atSeconds(41));
    expect(client.asked[0]!.answer?.rcode).toBe('SERVFAIL');
    expect(after.answer?.addresses).toEqual([SERVICE_IP]);
  });

  it('stops answering when stopped, and answers again when started', () => {
    const { ctx, nodeLocal, node, client } = withClusterDns();
    nodeLocal.stop(node);
    const lost = client.ask(NODE_LOCAL_DNS_IP, 'web.default.svc.cluster.local');
    ctx.sched.runUntil(atSeconds(1));
    nodeLocal.start(node);
    const ok = client.ask(NODE_LOCAL_DNS_IP, 'web.default.svc.cluster.local');
    ctx.sched.runUntil(atSeconds(2));
    expect(lost.answer).toBeNull();
    expect(ok.answer?.rcode).toBe('NOERROR');
    expect(ctx.log.since(0).some((e) => e.kind === 'dns.nodelocal.stopped')).toBe(true);
  });
});

describe('provider TTLs through node-local DNS', () => {
  it.each<[number, number]>([
    [10, 10],
    [300, 30],
  ])('a record with TTL %i s is re-fetched after %i s', (ttl, refetchAfter) => {
    const { ctx, transport, client } = setup();
    transport.listen(
      9,
      VPC_RESOLVER,
      scriptedServer(transport, () => ({ rcode: 'NOERROR', addresses: [ipv4('52.1.2.3')], ttl })),
    );
    const tick = ctx.sched.register('test.poll', () => {
      client.ask(NODE_LOCAL_DNS_IP, 'api.example.com');
      ctx.sched.after(seconds(0.5), tick);
    });
    ctx.sched.after(micros(0), tick);
    ctx.sched.runUntil(atSeconds(65));
    // Polled every 0.5 s, an entry is found expired on the first poll after its TTL.
    expect(transport.deliveredTo(VPC_RESOLVER).length).toBe(Math.floor(65 / (refetchAfter + 0.5)) + 1);
  });
});
