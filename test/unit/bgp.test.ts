import { describe, expect, it } from 'vitest';
import { createContext, type SimContext } from '../../src/sim/context';
import { atSeconds, millis, seconds } from '../../src/sim/core/time';
import { Bgp, BGP_DEFAULTS, bgpOptions, type SessionEnd } from '../../src/sim/infra/bgp';
import { bgpParams, type BgpParams } from '../../src/sim/infra/bgp-params';
import { Router } from '../../src/sim/infra/router';
import { cidr, ipv4 } from '../../src/sim/net/ipv4';

const VIP = cidr('203.0.113.10/32');
const vip = ipv4('203.0.113.10');
const NODES = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'].map(ipv4);

function setup(nodes = 2) {
  const ctx = createContext(1);
  const router = new Router(ctx, 'tor');
  const bgp = new Bgp(ctx, { convergenceDelay: millis(500) });
  const speakers = NODES.slice(0, nodes).map((ip, i) => bgp.addSpeaker(ip, `node/node-${'abcd'[i]}`));
  const sessions = speakers.map((s) => bgp.connect(s, router));
  const run = (t: number) => ctx.sched.runUntil(atSeconds(t));
  return { ctx, router, bgp, speakers, sessions, run };
}

const kinds = (ctx: SimContext, prefix: string) => ctx.log.since(0).filter((e) => e.kind.startsWith(prefix));

describe('MetalLB BGP mode (docs/sources/load-balancers.md#metallb-bgp-mode)', () => {
  it('defaults: hold timer 90 s with keepalives every 30 s (RFC 4271 §10), sub-second convergence', () => {
    expect(BGP_DEFAULTS.holdTime).toBe(seconds(90));
    expect(BGP_DEFAULTS.keepaliveTime).toBe(seconds(30));
    expect(BGP_DEFAULTS.convergenceDelay).toBeLessThan(seconds(1));
  });

  it('a route appears, and disappears, only once the convergence delay has passed', () => {
    const { router, bgp, speakers, run } = setup(1);
    run(10);
    bgp.announce(speakers[0]!, VIP);
    run(10.499);
    expect(router.nextHop(vip, 123)).toBe(-1);
    run(10.5);
    expect(router.nextHop(vip, 123)).toBe(NODES[0]);
    bgp.withdraw(speakers[0]!, VIP);
    run(10.999);
    expect(router.nextHop(vip, 123)).toBe(NODES[0]);
    run(11);
    expect(router.nextHop(vip, 123)).toBe(-1);
  });

  it('routes that differ only in next hop form one ECMP group, in the order announced; a late speaker joins at the end', () => {
    const { router, bgp, speakers, run } = setup(4);
    for (const s of [2, 0, 1]) bgp.announce(speakers[s]!, VIP);
    run(1);
    expect(router.multipathHops(VIP)).toEqual([NODES[2], NODES[0], NODES[1]]);
    bgp.announce(speakers[3]!, VIP);
    bgp.announce(speakers[3]!, VIP);
    run(2);
    expect(router.multipathHops(VIP)).toEqual([NODES[2], NODES[0], NODES[1], NODES[3]]);
  });

  it('a speaker that dies silently keeps attracting traffic until the hold timer fires, 90 s after its last keepalive', () => {
    const { ctx, router, bgp, speakers, run } = setup(2);
    for (const s of speakers) bgp.announce(s, VIP);
    run(100);
    // Sessions came up at 0, so keepalives went out at 0, 30, 60, 90; the node dies at 100.
    bgp.speakerDown(speakers[1]!, 'dark');
    run(180.499);
    expect(router.multipathHops(VIP)).toEqual([NODES[0], NODES[1]]);
    run(180.5);
    expect(router.multipathHops(VIP)).toEqual([NODES[0]]);
    expect(kinds(ctx, 'bgp.hold_timer.expired')).toHaveLength(1);
    expect(kinds(ctx, 'bgp.hold_timer.expired')[0]!.t).toBe(atSeconds(180.5));
  });

  it('a graceful shutdown withdraws every route of the session at once, not after the hold timer', () => {
    const { ctx, router, bgp, speakers, sessions, run } = setup(2);
    const other = cidr('203.0.113.11/32');
    for (const s of speakers) {
      bgp.announce(s, VIP);
      bgp.announce(s, other);
    }
    run(50);
    bgp.sessionDown(sessions[0]!, 'cease');
    expect(bgp.isUp(sessions[0]!)).toBe(false);
    run(50.5);
    expect(router.multipathHops(VIP)).toEqual([NODES[1]]);
    expect(router.multipathHops(other)).toEqual([NODES[1]]);
    expect(kinds(ctx, 'bgp.session.down')).toHaveLength(1);
  });

  it('announcements made while a session is down reach the router when it comes back; a quick return keeps its place', () => {
    const { router, bgp, speakers, sessions, run } = setup(3);
    for (const s of speakers) bgp.announce(s, VIP);
    run(10);
    bgp.sessionDown(sessions[0]!, 'dark');
    const other = cidr('203.0.113.11/32');
    bgp.announce(speakers[0]!, other);
    run(20);
    expect(router.multipathHops(other)).toEqual([]);
    bgp.sessionUp(sessions[0]!);
    run(21);
    expect(router.multipathHops(other)).toEqual([NODES[0]]);
    run(300);
    // The hold timer was cancelled: node A is still first in the group.
    expect(router.multipathHops(VIP)).toEqual([NODES[0], NODES[1], NODES[2]]);
  });

  it('a session back after its routes were flushed re-announces them, now at the end of the group', () => {
    const { ctx, router, bgp, speakers, sessions, run } = setup(3);
    for (const s of speakers) bgp.announce(s, VIP);
    run(10);
    bgp.sessionDown(sessions[0]!, 'dark');
    bgp.withdraw(speakers[0]!, VIP);
    bgp.announce(speakers[0]!, VIP);
    run(200);
    expect(router.multipathHops(VIP)).toEqual([NODES[1], NODES[2]]);
    bgp.sessionUp(sessions[0]!);
    run(201);
    expect(router.multipathHops(VIP)).toEqual([NODES[1], NODES[2], NODES[0]]);
    expect(kinds(ctx, 'bgp.session.up')).toHaveLength(4);
    expect(kinds(ctx, 'bgp.announce').length).toBeGreaterThanOrEqual(3);
  });

  it('a graceful close followed by a quick reconnect withdraws, then re-learns, without losing later announcements', () => {
    const { router, bgp, speakers, sessions, run } = setup(2);
    for (const s of speakers) bgp.announce(s, VIP);
    run(10);
    bgp.sessionDown(sessions[0]!, 'cease');
    run(10.2);
    bgp.sessionUp(sessions[0]!);
    run(10.5);
    expect(router.multipathHops(VIP)).toEqual([NODES[1]]);
    run(10.7);
    expect(router.multipathHops(VIP)).toEqual([NODES[1], NODES[0]]);
  });
});

describe('noticing a peer that has gone (docs/sources/load-balancers.md#bgp-timers, #bfd, #graceful-restart, #silent-node-loss-test-vectors)', () => {
  const params = (over: Partial<BgpParams> = {}): BgpParams => ({ ...bgpParams.parse({}), ...over });

  function lossAt(t: number, end: SessionEnd, p: BgpParams) {
    const ctx = createContext(1);
    const router = new Router(ctx, 'tor');
    const bgp = new Bgp(ctx, bgpOptions(p));
    const speakers = NODES.slice(0, 2).map((ip, i) => bgp.addSpeaker(ip, `node/node-${'ab'[i]}`));
    for (const s of speakers) bgp.connect(s, router);
    for (const s of speakers) bgp.announce(s, VIP);
    ctx.sched.runUntil(atSeconds(t));
    bgp.speakerDown(speakers[1]!, end);
    /** The first time (to 1 ms) at which the router no longer holds node B, up to `limit` s. */
    const goneAt = (limit: number): number => {
      for (let ms = t * 1000; ms <= limit * 1000; ms++) {
        ctx.sched.runUntil(atSeconds(ms / 1000));
        if (!router.multipathHops(VIP).includes(NODES[1]!)) return ms / 1000;
      }
      return Infinity;
    };
    return { ctx, goneAt };
  }

  it('params.bgp defaults: MetalLB’s 90 s hold time with a 30 s keepalive; BFD 300 ms × 3 when on; graceful restart 120 s when on', () => {
    const o = bgpOptions(params());
    expect(o).toMatchObject({ holdTime: seconds(90), keepaliveTime: seconds(30), bfd: null, restartTime: null });
    const on = bgpOptions(bgpParams.parse({ bfd: { enabled: true }, gracefulRestart: { enabled: true } }));
    expect(on.bfd).toEqual({ interval: millis(300), detectTime: millis(900) });
    expect(on.restartTime).toBe(seconds(120));
    expect(() => bgpParams.parse({ holdTimeS: 2 })).toThrow();
    expect(() => bgpParams.parse({ bfd: { detectMultiplier: 1 } })).toThrow();
  });

  it('vector 1: a node dark at 100 s stays a next hop until the hold timer fires at 180 s (last KEEPALIVE at 90 s)', () => {
    const { ctx, goneAt } = lossAt(100, 'dark', params());
    expect(goneAt(400)).toBe(180.5);
    expect(kinds(ctx, 'bgp.hold_timer.expired').map((e) => e.entity)).toEqual(['router/tor']);
    expect(ctx.causes.find('bgp_peer_lost', 'node/node-b')!.detail).toMatchObject({ detection: 'hold timer', detectedAt: atSeconds(180), lastKeepaliveAt: atSeconds(90) });
  });

  it('vector 2: with BFD the same node is gone 900 ms after its last BFD packet', () => {
    const { ctx, goneAt } = lossAt(100, 'dark', bgpParams.parse({ bfd: { enabled: true } }));
    expect(goneAt(400)).toBe(101.3);
    expect(kinds(ctx, 'bgp.bfd.down')).toHaveLength(1);
  });

  it('BFD does not see a hung BGP daemon on a node that still forwards: the hold timer decides', () => {
    const { goneAt } = lossAt(100, 'silent', bgpParams.parse({ bfd: { enabled: true } }));
    expect(goneAt(400)).toBe(180.5);
  });

  it('vector 3: graceful restart keeps a dead node’s route as stale for the restart time after the hold timer', () => {
    const { ctx, goneAt } = lossAt(100, 'dark', bgpParams.parse({ gracefulRestart: { enabled: true } }));
    expect(goneAt(400)).toBe(300.5);
    expect(kinds(ctx, 'bgp.restart_timer.expired')).toHaveLength(1);
  });

  it('vector 4: a 9 s hold time (keepalive 3 s) drops the node at 108 s', () => {
    const { goneAt } = lossAt(100, 'dark', params({ holdTimeS: 9 }));
    expect(goneAt(400)).toBe(108.5);
  });

  it('the black hole scales with the hold time: the time from loss to withdrawal lies between 2/3 and all of it', () => {
    for (const hold of [9, 30, 90, 180]) {
      const lost = lossAt(100, 'dark', params({ holdTimeS: hold })).goneAt(500) - 0.5 - 100;
      expect(lost).toBeGreaterThanOrEqual((hold * 2) / 3);
      expect(lost).toBeLessThanOrEqual(hold);
    }
  });

  it('a planned restart: without graceful restart the route goes at once; with it the router keeps it and the group never changes', () => {
    expect(lossAt(50, 'restart', params()).goneAt(60)).toBe(50.5);
    const gr = bgpParams.parse({ gracefulRestart: { enabled: true } });
    const ctx = createContext(1);
    const router = new Router(ctx, 'tor');
    const bgp = new Bgp(ctx, bgpOptions(gr));
    const speakers = NODES.slice(0, 3).map((ip, i) => bgp.addSpeaker(ip, `node/node-${'abc'[i]}`));
    const sessions = speakers.map((s) => bgp.connect(s, router));
    for (const s of speakers) bgp.announce(s, VIP);
    ctx.sched.runUntil(atSeconds(10));
    bgp.sessionDown(sessions[1]!, 'restart');
    ctx.sched.runUntil(atSeconds(20));
    expect(router.multipathHops(VIP)).toEqual([NODES[0], NODES[1], NODES[2]]);
    bgp.sessionUp(sessions[1]!);
    ctx.sched.runUntil(atSeconds(300));
    expect(router.multipathHops(VIP)).toEqual([NODES[0], NODES[1], NODES[2]]);
    expect(kinds(ctx, 'router.ecmp.changed').filter((e) => e.t > atSeconds(1))).toEqual([]);
  });
});
