import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/sim/context';
import { atSeconds, millis, seconds, toSeconds } from '../../src/sim/core/time';
import { CIS_NODE_POLL_INTERVAL, DEFAULT_SNAT, LoadBalancer } from '../../src/sim/infra/load-balancer';
import { POOL_DEFAULTS, type MemberSpec, type PoolSettings } from '../../src/sim/infra/lb-pool';
import { ipv4 } from '../../src/sim/net/ipv4';

const VIP = ipv4('198.51.100.80');
const SELF = ipv4('192.0.2.10');
const nodeMember = (i: number): MemberSpec => ({ kind: 'node', ip: ipv4(`10.0.0.${i + 1}`), port: 30080 });

/** A BIG-IP whose probes are answered `rttMs` later by members for which `serves(member, seconds)` holds, else never. */
function setup(pool: Partial<PoolSettings> = {}, serves: (member: number, t: number) => boolean = () => true, rttMs = 2) {
  const ctx = createContext(1);
  const answers: ((ok: boolean) => void)[] = [];
  const answer = ctx.sched.register('test/answer', (m) => answers[m]!(true));
  const lb = new LoadBalancer(ctx, 'bigip', SELF, (m, done) => {
    if (!serves(m, toSeconds(ctx.sched.now))) return;
    answers[m] = done;
    ctx.sched.after(millis(rttMs), answer, m);
  });
  const vs = lb.addVirtualServer({ name: 'web', vip: VIP, port: 443, pool });
  /** Share of new connections from `from` to `to` s (one every 10 ms) that go to members in `set`; -1 counts as none. */
  const share = (from: number, to: number, set: (member: number) => boolean) => {
    let hits = 0;
    let n = 0;
    for (let t = from; t < to - 1e-9; t += 0.01) {
      ctx.sched.runUntil(atSeconds(t));
      const m = lb.pick(vs);
      n++;
      if (m >= 0 && set(m)) hits++;
    }
    return hits / n;
  };
  return { ctx, lb, vs, share };
}

const events = (ctx: ReturnType<typeof createContext>, kind: string) => ctx.log.since(0).filter((e) => e.kind === kind);

describe('F5-style load balancer pool (docs/sources/load-balancers.md#big-ip-health-monitors, #container-ingress-services)', () => {
  it('defaults: monitor every 5 s, down after 16 s, unknown members take traffic, immediate activation, SNAT automap, node poll 30 s', () => {
    expect(POOL_DEFAULTS.monitor).toEqual({ intervalSeconds: 5, timeoutSeconds: 16 });
    expect(POOL_DEFAULTS.unknownReceivesTraffic).toBe(true);
    expect(POOL_DEFAULTS.activation).toBe('immediate');
    expect(DEFAULT_SNAT).toBe('automap');
    expect(CIS_NODE_POLL_INTERVAL).toBe(seconds(30));
  });

  it('a new member that never answers gets its round-robin share until the monitor turns it down at 16 s', () => {
    const { ctx, lb, vs, share } = setup({}, (m) => m !== 3);
    for (let i = 0; i < 3; i++) lb.addMember(vs, nodeMember(i));
    ctx.sched.runUntil(atSeconds(100));
    const late = lb.addMember(vs, nodeMember(3));
    expect(share(100, 116, (m) => m === late)).toBeCloseTo(0.25, 2);
    expect(lb.member(late).health).toBe('unknown');
    ctx.sched.runUntil(atSeconds(116));
    expect(lb.member(late).health).toBe('down');
    expect(share(116, 130, (m) => m === late)).toBe(0);
    const down = events(ctx, 'lb.member.down');
    expect(down).toHaveLength(1);
    expect(down[0]!.t).toBe(atSeconds(116));
    expect(ctx.metrics.gauge('lb.members', { vs: 'web', state: 'up' }).value).toBe(3);
    expect(ctx.metrics.gauge('lb.members', { vs: 'web', state: 'down' }).value).toBe(1);
  });

  it('under after-healthy activation the same member gets nothing, and healthy newcomers wait for their first probe', () => {
    const { ctx, lb, vs, share } = setup({ activation: 'after-healthy' }, (m) => m !== 3);
    for (let i = 0; i < 3; i++) lb.addMember(vs, nodeMember(i));
    expect(share(0, 5, () => true)).toBe(0);
    ctx.sched.runUntil(atSeconds(100));
    const late = lb.addMember(vs, nodeMember(3));
    expect(share(100, 130, (m) => m === late)).toBe(0);
    expect(share(130, 131, (m) => m !== late)).toBe(1);
  });

  it('with unknownReceivesTraffic off, no member takes traffic before its first good probe', () => {
    const { lb, vs, share } = setup({ unknownReceivesTraffic: false });
    lb.addMember(vs, nodeMember(0));
    expect(lb.pick(vs)).toBe(-1);
    expect(share(0, 5.002, () => true)).toBe(0);
    expect(share(5.002, 6, () => true)).toBe(1);
  });

  it('vector 1: a pod that stops answering is still sent new connections until it goes red 16 s after its last success', () => {
    const { ctx, lb, vs, share } = setup({}, (_m, t) => t < 50);
    const pod = lb.addMember(vs, { kind: 'pod', ip: ipv4('10.244.1.5'), port: 8080, reach: 'vxlan' });
    expect(lb.member(pod).reach).toBe('vxlan');
    // Last good probe at 45 s, answered 2 ms later; probes at 50, 55 and 60 s go unanswered.
    const connections = ctx.metrics.counter('lb.connections', { vs: 'web' });
    expect(share(45, 61.002, (m) => m === pod)).toBe(1);
    const served = connections.total;
    expect(share(61.002, 62, (m) => m === pod)).toBe(0);
    expect(connections.total).toBe(served);
    expect(events(ctx, 'lb.member.down')[0]!.t).toBe(atSeconds(61.002));
    ctx.sched.runUntil(atSeconds(65));
    expect(ctx.metrics.counter('lb.probes.sent', { vs: 'web' }).total).toBe(13);
    expect(ctx.metrics.counter('lb.probes.failed', { vs: 'web' }).total).toBe(3);
  });

  it('a member that answers again comes back up at its next probe', () => {
    const { ctx, lb, vs } = setup({}, (_m, t) => t < 20 || t > 60);
    const m = lb.addMember(vs, nodeMember(0));
    ctx.sched.runUntil(atSeconds(50));
    expect(lb.member(m).health).toBe('down');
    ctx.sched.runUntil(atSeconds(65.002));
    expect(lb.member(m).health).toBe('up');
    expect(events(ctx, 'lb.member.up').map((e) => toSeconds(e.t))).toEqual([5.002, 65.002]);
  });

  it('an answer slower than the probe timeout counts as a failure, so the member never comes up', () => {
    const { ctx, lb, vs } = setup({ probeTimeoutSeconds: 1 }, () => true, 1500);
    const m = lb.addMember(vs, nodeMember(0));
    ctx.sched.runUntil(atSeconds(30));
    expect(lb.member(m).health).toBe('down');
    expect(ctx.metrics.counter('lb.probes.failed', { vs: 'web' }).total).toBe(5);
    expect(() => setup({ probeTimeoutSeconds: 6 })).toThrow(RangeError);
  });

  it('faster monitor settings send proportionally more probes: load = members / interval', () => {
    const probes = (intervalSeconds: number, timeoutSeconds: number) => {
      const { ctx, lb, vs } = setup({ monitor: { intervalSeconds, timeoutSeconds }, probeTimeoutSeconds: intervalSeconds });
      for (let i = 0; i < 10; i++) lb.addMember(vs, nodeMember(i));
      ctx.sched.runUntil(atSeconds(100));
      return ctx.metrics.counter('lb.probes.sent', { vs: 'web' }).total;
    };
    expect(probes(5, 16)).toBe((10 * 100) / 5);
    expect(probes(1, 4)).toBe((10 * 100) / 1);
  });

  it('vector 2: ten node members behind ETP=Local with endpoints on three ⇒ 70 % of new connections blackhole until 16 s', () => {
    const { ctx, lb, vs, share } = setup({}, (m) => m < 3);
    lb.syncMembers(
      vs,
      Array.from({ length: 10 }, (_, i) => nodeMember(i)),
    );
    expect(share(0, 5, (m) => m >= 3)).toBeCloseTo(0.7, 2);
    expect(share(16, 30, (m) => m >= 3)).toBe(0);
    expect(ctx.metrics.gauge('lb.members', { vs: 'web', state: 'down' }).value).toBe(7);

    // The next node poll finds two nodes gone: their members leave the pool and are no longer probed.
    ctx.sched.runUntil(atSeconds(30));
    lb.syncMembers(vs, [0, 1, 3, 4, 5, 6, 7, 8].map(nodeMember));
    expect(lb.members(vs)).toEqual([0, 1, 3, 4, 5, 6, 7, 8]);
    expect(ctx.metrics.gauge('lb.members', { vs: 'web', state: 'up' }).value).toBe(2);
    expect(ctx.metrics.gauge('lb.members', { vs: 'web', state: 'down' }).value).toBe(6);
    const sent = ctx.metrics.counter('lb.probes.sent', { vs: 'web' });
    const before = sent.total;
    ctx.sched.runUntil(atSeconds(60));
    expect(sent.total - before).toBe(8 * 6);
    expect(share(60, 61, (m) => m === 0 || m === 1)).toBe(1);
    expect(events(ctx, 'lb.member.removed')).toHaveLength(2);
  });

  it('finds the virtual server by VIP and port, and SNATs to its self IP only with automap', () => {
    const { lb, vs } = setup();
    const plain = lb.addVirtualServer({ name: 'plain', vip: VIP, port: 80, snat: 'none' });
    expect(lb.virtualServer(VIP, 443)).toBe(vs);
    expect(lb.virtualServer(VIP, 80)).toBe(plain);
    expect(lb.virtualServer(VIP, 8443)).toBe(-1);
    const client = ipv4('203.0.113.7');
    expect(lb.snatSource(vs, client)).toBe(SELF);
    expect(lb.snatSource(plain, client)).toBe(client);
    expect(lb.pick(plain)).toBe(-1);
  });
});
