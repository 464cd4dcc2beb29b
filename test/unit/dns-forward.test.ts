import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/sim/core/scheduler';
import { Rng } from '../../src/sim/core/rng';
import { createContext } from '../../src/sim/context';
import { atSeconds, micros, millis, seconds, toSeconds, type SimTime } from '../../src/sim/core/time';
import { ForwardPlugin, forwardSettings, KUBEADM_MAX_CONCURRENT, MaxConcurrent, type ForwardSettings } from '../../src/sim/dns/forward';
import { newQuery, type DnsAnswer } from '../../src/sim/dns/message';
import { AdaptiveDialTimeout } from '../../src/sim/dns/upstream';
import { ipv4 } from '../../src/sim/net/ipv4';
import { FakeDnsTransport, scriptedServer } from '../fixtures/fake-dns-transport';

/** Offers Poisson queries at `qps` to a silent upstream that holds each admitted query `holdSeconds`. */
function saturate(slots: number, holdSeconds: number, qps: number, runSeconds = 60) {
  const sched = new Scheduler();
  const rng = new Rng(1).stream('queries');
  const limit = new MaxConcurrent(slots);
  let offered = 0;
  let admitted = 0;
  let peakMemory = 0;
  const warmUp = seconds(holdSeconds * 2);
  const release = sched.register('release', () => limit.release());
  const arrive = sched.register('arrive', () => {
    const counted = sched.now >= warmUp;
    if (counted) offered++;
    if (limit.tryAcquire()) {
      if (counted) admitted++;
      sched.after(seconds(holdSeconds), release);
    }
    peakMemory = Math.max(peakMemory, limit.memoryBytes);
    sched.after(micros(rng.exponential(1e6 / qps)), arrive);
  });
  sched.after(micros(0), arrive);
  sched.runUntil(seconds(runSeconds) as number as SimTime);
  const measured = runSeconds - holdSeconds * 2;
  return { admittedPerSecond: admitted / measured, refusedShare: 1 - admitted / offered, peakMemory };
}

describe('CoreDNS forward max_concurrent (docs/sources/dns.md#concurrency-saturation, #test-vectors)', () => {
  it('vector 1: 1000 slots, a silent upstream holding 5 s, 500 qps offered ⇒ ~200 qps admitted and 60 % REFUSED', () => {
    const r = saturate(KUBEADM_MAX_CONCURRENT, 5, 500);
    expect(Math.abs(r.admittedPerSecond - 200)).toBeLessThan(6);
    expect(Math.abs(r.refusedShare - 0.6)).toBeLessThan(0.03);
  });

  it.each([
    [1000, 2, 500],
    [1000, 4, 250],
    [400, 5, 80],
  ])('vector 2 and Little’s law: %i slots held %i s saturate at %i qps', (slots, hold, rate) => {
    const r = saturate(slots, hold, rate * 2);
    expect(Math.abs(r.admittedPerSecond / rate - 1)).toBeLessThan(0.03);
    expect(Math.abs(r.refusedShare - 0.5)).toBeLessThan(0.03);
  });

  it('refuses nothing below saturation, and holds about 2 KB per concurrent query (≈2 MB at 1000)', () => {
    const r = saturate(1000, 5, 150);
    expect(r.refusedShare).toBe(0);
    expect(saturate(1000, 5, 500).peakMemory).toBe(1000 * 2048);
  });
});

describe('forward dial timeout (docs/sources/dns.md#test-vectors, vector 4)', () => {
  it('starts at 30 s, is 22.5 s after one fast dial, and reaches the 1 s floor after 12 fast dials', () => {
    const dial = new AdaptiveDialTimeout();
    expect(dial.timeoutMs).toBe(30_000);
    dial.observe(1);
    expect(dial.timeoutMs / 1000).toBeCloseTo(22.5, 2);
    for (let i = 2; i <= 11; i++) dial.observe(1);
    expect(dial.timeoutMs).toBeGreaterThan(1_000);
    dial.observe(1);
    expect(dial.timeoutMs).toBe(1_000);
  });
});

interface Outcome {
  answer: DnsAnswer;
  fromUpstream: boolean;
  at: number;
}

/** One forward instance on the fake transport, with a receiver that records outcomes by token. */
function forwarder(upstreams: number[], overrides: Partial<ForwardSettings> = {}) {
  const ctx = createContext(11);
  const transport = new FakeDnsTransport(ctx);
  const plugin = new ForwardPlugin(ctx, transport);
  const instance = plugin.addInstance({ from: 0, entity: 'node/a', metrics: 'dns.test', settings: forwardSettings(upstreams, overrides) });
  const outcomes: Outcome[] = [];
  const receiver = {
    onForwarded(token: number, answer: DnsAnswer, fromUpstream: boolean) {
      outcomes[token] = { answer, fromUpstream, at: toSeconds(ctx.sched.now) };
    },
  };
  let next = 0;
  const ask = (name = 'example.com', proto: 'udp' | 'tcp' = 'udp') => {
    const token = next++;
    plugin.serve(instance, newQuery(transport.ids, name), proto, receiver, token);
    return token;
  };
  const answering = (ip: number) =>
    transport.listen(
      9,
      ip,
      scriptedServer(transport, () => ({ rcode: 'NOERROR', addresses: [ip], ttl: 30 })),
    );
  const counter = (name: string) => ctx.metrics.counter(`dns.test.${name}`).total;
  return { ctx, transport, plugin, instance, outcomes, ask, answering, counter };
}

const UP1 = ipv4('10.0.0.2');
const UP2 = ipv4('10.0.0.3');

describe('forward health checks (docs/sources/dns.md#health-checks, #test-vectors, vector 3)', () => {
  it('vector 3: an upstream dead from t=0 fails its first query at 2 s and is down after the 3rd failed check', () => {
    const f = forwarder([UP1]);
    f.transport.setPath(UP1, { blackhole: true });
    f.ask();
    // Checks start at 2 s (the first read timeout) and fail after 1 s each, 0.5 s apart: at 3, 4.5 and 6 s.
    f.ctx.sched.runUntil(atSeconds(2.01));
    expect(f.counter('forward.upstream_errors')).toBe(1);
    f.ctx.sched.runUntil(atSeconds(5.99));
    expect(f.plugin.upstreamHealth(f.instance)[0]).toMatchObject({ fails: 2, down: false });
    f.ctx.sched.runUntil(atSeconds(6.01));
    expect(f.plugin.upstreamHealth(f.instance)[0]).toMatchObject({ fails: 3, down: true });
    expect(f.counter('forward.healthcheck_failures')).toBe(3);
    expect(f.ctx.log.since(0).find((e) => e.kind === 'dns.upstream.down')?.t).toBe(atSeconds(6));
    // The query itself kept retrying until the 5 s deadline, its last read overrunning it to 6 s.
    expect(f.outcomes[0]).toMatchObject({ answer: { rcode: 'SERVFAIL' }, fromUpstream: false, at: 6 });
  });

  it('keeps checking while the upstream is down and marks it up at the first answered check', () => {
    const f = forwarder([UP1]);
    f.answering(UP1);
    f.transport.setPath(UP1, { blackhole: true });
    f.ask();
    f.ctx.sched.runUntil(atSeconds(10));
    f.transport.setPath(UP1, { blackhole: false });
    // Checks keep going every 1.5 s (1 s timeout + 0.5 s): the one sent at 9.5 s fails at 10.5 s, the one at 11 s succeeds.
    f.ctx.sched.runUntil(atSeconds(10.9));
    expect(f.plugin.upstreamHealth(f.instance)[0]!.down).toBe(true);
    f.ctx.sched.runUntil(atSeconds(11.01));
    expect(f.plugin.upstreamHealth(f.instance)[0]).toMatchObject({ fails: 0, down: false });
    expect(f.ctx.log.since(0).some((e) => e.kind === 'dns.upstream.up')).toBe(true);
  });

  it('skips a down upstream while another is healthy', () => {
    const f = forwarder([UP1, UP2]);
    f.answering(UP2);
    f.transport.setPath(UP1, { blackhole: true });
    for (let i = 0; i < 20; i++) f.ask();
    f.ctx.sched.runUntil(atSeconds(20));
    const before = f.transport.deliveredTo(UP2).length;
    for (let i = 0; i < 20; i++) f.ask();
    f.ctx.sched.runUntil(atSeconds(21));
    expect(f.plugin.upstreamHealth(f.instance)[0]!.down).toBe(true);
    expect(f.outcomes.slice(20).every((o) => o.answer.rcode === 'NOERROR' && o.at < 20.01)).toBe(true);
    expect(f.transport.deliveredTo(UP2).length - before).toBe(20);
  });

  it('with every upstream down it still tries a random one (healthcheck broken), or SERVFAILs with failfast', () => {
    for (const failfast of [false, true]) {
      const f = forwarder([UP1], { failfastAllUnhealthy: failfast });
      f.answering(UP1);
      f.transport.setPath(UP1, { blackhole: true });
      f.ask();
      f.ctx.sched.runUntil(atSeconds(6.5));
      f.transport.setPath(UP1, { blackhole: false });
      f.ask();
      f.ctx.sched.runUntil(atSeconds(6.6));
      expect(f.counter('forward.healthcheck_broken')).toBe(1);
      expect(f.outcomes[1]!.answer.rcode).toBe(failfast ? 'SERVFAIL' : 'NOERROR');
    }
  });

  it('max_fails 0 never checks and never marks down', () => {
    const f = forwarder([UP1], { maxFails: 0 });
    f.transport.setPath(UP1, { blackhole: true });
    f.ask();
    f.ctx.sched.runUntil(atSeconds(30));
    expect(f.counter('forward.healthcheck_failures')).toBe(0);
    expect(f.plugin.upstreamHealth(f.instance)[0]!.down).toBe(false);
  });

  it('a REFUSED over max_concurrent is answered at once and is not a health failure', () => {
    const f = forwarder([UP1], { maxConcurrent: 1 });
    f.answering(UP1);
    f.transport.setPath(UP1, { latency: millis(500) });
    f.ask();
    f.ask();
    expect(f.outcomes[1]).toMatchObject({ answer: { rcode: 'REFUSED' }, fromUpstream: false, at: 0 });
    f.ctx.sched.runUntil(atSeconds(2));
    expect(f.outcomes[0]!.answer.rcode).toBe('NOERROR');
    expect(f.counter('refused')).toBe(1);
    expect(f.plugin.upstreamHealth(f.instance)[0]!.fails).toBe(0);
    expect(f.ctx.log.since(0).some((e) => e.kind === 'dns.forward.saturated')).toBe(true);
  });
});

describe('forward connections (docs/sources/dns.md#connection-reuse)', () => {
  it('reuses one TCP connection for queries in sequence and dials again after 10 s idle', () => {
    const f = forwarder([UP1], { forceTcp: true });
    f.answering(UP1);
    for (const t of [0, 1, 2, 3]) {
      f.ctx.sched.runUntil(atSeconds(t));
      f.ask();
    }
    f.ctx.sched.runUntil(atSeconds(4));
    expect(f.transport.opened.tcp).toBe(1);
    expect(f.counter('forward.conn_cache_hits')).toBe(3);
    f.ctx.sched.runUntil(atSeconds(14));
    f.ask();
    f.ctx.sched.runUntil(atSeconds(15));
    expect(f.transport.opened.tcp).toBe(2);
    expect(f.outcomes.every((o) => o.answer.rcode === 'NOERROR')).toBe(true);
  });

  it('dials a connection per concurrent query', () => {
    const f = forwarder([UP1], { forceTcp: true });
    f.answering(UP1);
    for (let i = 0; i < 50; i++) f.ask();
    f.ctx.sched.runUntil(atSeconds(1));
    expect(f.transport.opened.tcp).toBe(50);
  });

  it('a cold upstream that drops SYNs holds a query for the 30 s initial dial timeout', () => {
    const f = forwarder([UP1], { forceTcp: true, maxFails: 0 });
    f.transport.setPath(UP1, { blackhole: true });
    f.ask('web.default.svc.cluster.local', 'udp');
    f.ctx.sched.runUntil(atSeconds(40));
    expect(f.outcomes[0]).toMatchObject({ answer: { rcode: 'SERVFAIL' }, at: 30 });
    expect(f.counter('forward.dial_timeouts')).toBe(1);
  });

  it('after fast dials the dial timeout is at its 1 s floor, so SYN drops end a query within the 5 s deadline plus one dial', () => {
    const f = forwarder([UP1], { forceTcp: true, maxFails: 0, expire: millis(1) });
    f.answering(UP1);
    for (let t = 0; t < 20; t++) {
      f.ctx.sched.runUntil(atSeconds(t));
      f.ask();
    }
    f.ctx.sched.runUntil(atSeconds(30));
    f.transport.setPath(UP1, { blackhole: true });
    const token = f.ask();
    f.ctx.sched.runUntil(atSeconds(60));
    const held = f.outcomes[token]!.at - 30;
    expect(f.outcomes[token]!.answer.rcode).toBe('SERVFAIL');
    expect(held).toBeGreaterThan(5);
    expect(held).toBeLessThan(7);
    expect(f.counter('forward.dial_timeouts')).toBeGreaterThanOrEqual(5);
  });

  it('an upstream that refuses connections fails each attempt at once', () => {
    const f = forwarder([UP1], { forceTcp: true, maxConnectAttempts: 2 });
    f.ask();
    f.ctx.sched.runUntil(atSeconds(1));
    expect(f.outcomes[0]).toMatchObject({ answer: { rcode: 'SERVFAIL' }, fromUpstream: false });
    expect(f.outcomes[0]!.at).toBeLessThan(0.01);
    expect(f.counter('forward.upstream_errors')).toBe(2);
  });

  it('passes an upstream’s own answer through, whatever its rcode', () => {
    const f = forwarder([UP1]);
    f.transport.listen(
      9,
      UP1,
      scriptedServer(f.transport, () => ({ rcode: 'NXDOMAIN', ttl: 60 })),
    );
    f.ask('nope.example.com');
    f.ctx.sched.runUntil(atSeconds(1));
    expect(f.outcomes[0]).toMatchObject({ answer: { rcode: 'NXDOMAIN', ttl: 60, name: 'nope.example.com' }, fromUpstream: true });
  });
});
