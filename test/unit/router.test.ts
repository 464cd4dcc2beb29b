import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/sim/context';
import { Rng } from '../../src/sim/core/rng';
import { atSeconds, millis } from '../../src/sim/core/time';
import { Bgp } from '../../src/sim/infra/bgp';
import { Router, type RouterOptions } from '../../src/sim/infra/router';
import type { EcmpMode } from '../../src/sim/net/ecmp';
import { cidr, ipv4 } from '../../src/sim/net/ipv4';

const TCP = 6;
const VIP = cidr('203.0.113.10/32');
const vip = ipv4('203.0.113.10');
const NODES = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'].map(ipv4);

function newRouter(options: Partial<RouterOptions> = {}) {
  const ctx = createContext(1);
  return { ctx, router: new Router(ctx, 'tor', options) };
}

/** Client flows to the VIP: random client addresses and ports, as seen by the router. */
function flows(n = 20_000) {
  const rng = new Rng(5).stream('clients');
  return Array.from({ length: n }, () => ({ src: rng.int(2 ** 32), sport: 1024 + rng.int(60_000) }));
}

describe('router: longest-prefix match over connected, static and BGP routes', () => {
  it('picks the most specific route; a withdrawn /32 falls back to the covering static route', () => {
    const { router } = newRouter();
    router.addConnected(cidr('10.0.0.0/24'));
    router.addStatic(cidr('10.244.1.0/24'), NODES[0]!);
    router.addStatic(cidr('10.244.2.0/24'), NODES[1]!);
    router.addStatic(cidr('203.0.113.0/24'), ipv4('192.0.2.254'));
    expect(router.nextHop(ipv4('8.8.8.8'), 1)).toBe(-1);
    router.addStatic(cidr('0.0.0.0/0'), ipv4('192.0.2.1'));

    expect(router.nextHop(ipv4('10.0.0.3'), 1)).toBe(ipv4('10.0.0.3'));
    expect(router.nextHop(ipv4('10.244.1.7'), 1)).toBe(NODES[0]);
    expect(router.nextHop(ipv4('10.244.2.7'), 1)).toBe(NODES[1]);
    expect(router.nextHop(ipv4('8.8.8.8'), 1)).toBe(ipv4('192.0.2.1'));
    expect(router.nextHop(vip, 1)).toBe(ipv4('192.0.2.254'));

    router.learn(VIP, NODES[2]!);
    router.learn(VIP, NODES[3]!);
    const seen = new Set(flows(200).map((f) => router.route(TCP, f.src, f.sport, vip, 443)));
    expect(seen).toEqual(new Set([NODES[2], NODES[3]]));
    expect(router.nextHop(ipv4('203.0.113.11'), 1)).toBe(ipv4('192.0.2.254'));

    router.forget(VIP, NODES[2]!);
    router.forget(VIP, NODES[3]!);
    expect(router.nextHop(vip, 1)).toBe(ipv4('192.0.2.254'));
    expect(router.removeStatic(cidr('203.0.113.0/24'))).toBe(1);
    expect(router.nextHop(vip, 1)).toBe(ipv4('192.0.2.1'));
  });

  it('keeps a gauge of next hops per ECMP prefix and counts each rehash', () => {
    const { ctx, router } = newRouter();
    const gauge = ctx.metrics.gauge('router.ecmp.next_hops', { router: 'tor', prefix: '203.0.113.10/32' });
    const rehashes = ctx.metrics.counter('router.rehashes', { router: 'tor' });
    for (const n of NODES) router.learn(VIP, n);
    expect(gauge.value).toBe(4);
    expect(rehashes.total).toBe(3);
    router.forget(VIP, NODES[1]!);
    expect(gauge.value).toBe(3);
    expect(rehashes.total).toBe(4);
  });

  it('a new hash seed rehashes every flow: about (N-1)/N of them change next hop', () => {
    const { ctx, router } = newRouter();
    for (const n of NODES) router.learn(VIP, n);
    const fs = flows();
    const before = fs.map((f) => router.route(TCP, f.src, f.sport, vip, 443));
    router.setHashing('hash-threshold', 99);
    const moved = fs.filter((f, i) => router.route(TCP, f.src, f.sport, vip, 443) !== before[i]).length / fs.length;
    expect(moved).toBeCloseTo(3 / 4, 1);
    expect(ctx.metrics.counter('router.rehashes', { router: 'tor' }).total).toBe(4);
    expect(ctx.log.since(0).some((e) => e.kind === 'router.hashing.changed')).toBe(true);
  });

  it('3-tuple hashing sends every connection of one client to the same next hop; 5-tuple spreads them', () => {
    const spread = (hashPorts: boolean) => {
      const { router } = newRouter({ hashPorts });
      for (const n of NODES) router.learn(VIP, n);
      return new Set(flows(100).map((f) => router.route(TCP, ipv4('198.51.100.7'), f.sport, vip, 443))).size;
    };
    expect(spread(false)).toBe(1);
    expect(spread(true)).toBe(4);
  });
});

describe('MetalLB ETP=Local through BGP and the router (docs/sources/load-balancers.md#ecmp-test-vectors, vector 5)', () => {
  it.each<[EcmpMode, number]>([
    // Node C is the third of four next hops: D(4,3) = 1/3 (docs/sources/load-balancers.md#ecmp-hash-threshold).
    ['hash-threshold', 1 / 3],
    ['modulo', 3 / 4],
    ['resilient', 1 / 4],
  ])('node C loses its last pod and withdraws: N 4→3 under %s moves %f of flows', (mode, expected) => {
    const ctx = createContext(1);
    const router = new Router(ctx, 'tor', { ecmpMode: mode });
    const bgp = new Bgp(ctx, { convergenceDelay: millis(300) });
    const speakers = NODES.map((ip, i) => bgp.addSpeaker(ip, `node/node-${'abcd'[i]}`));
    for (const s of speakers) {
      bgp.connect(s, router);
      bgp.announce(s, VIP);
    }
    ctx.sched.runUntil(atSeconds(1));
    const fs = flows();
    const before = fs.map((f) => router.route(TCP, f.src, f.sport, vip, 443));
    const onC = before.filter((h) => h === NODES[2]).length;
    expect(onC / fs.length).toBeCloseTo(1 / 4, 1);

    bgp.withdraw(speakers[2]!, VIP);
    ctx.sched.runUntil(atSeconds(1.299));
    expect(fs.every((f, i) => router.route(TCP, f.src, f.sport, vip, 443) === before[i])).toBe(true);
    ctx.sched.runUntil(atSeconds(1.3));

    const after = fs.map((f) => router.route(TCP, f.src, f.sport, vip, 443));
    const moved = after.filter((h, i) => h !== before[i]).length / fs.length;
    expect(Math.abs(moved - expected)).toBeLessThan(0.02);
    expect(after.includes(NODES[2]!)).toBe(false);
    // Beyond C's own quarter, the rest is collateral: flows of live nodes landing on a node that never saw them.
    const collateral = after.filter((h, i) => h !== before[i] && before[i] !== NODES[2]).length / fs.length;
    expect(Math.abs(collateral - (expected - 1 / 4))).toBeLessThan(0.02);
  });
});
