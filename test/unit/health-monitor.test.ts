import { describe, expect, it } from 'vitest';
import { F5_MONITOR_DEFAULTS, MemberMonitor, receivesTraffic, RoundRobin } from '../../src/sim/infra/health-monitor';

/** Runs each member's probes up to `until` seconds; `serves(m)` says whether member m answers. */
function probe(monitors: MemberMonitor[], serves: (m: number) => boolean, until: number): void {
  monitors.forEach((monitor, m) => {
    for (let t = monitor.nextProbeAfter(monitor.addedAt); t <= until; t = monitor.nextProbeAfter(t)) monitor.record(t, serves(m));
  });
}

describe('F5-style health monitor (docs/sources/load-balancers.md#big-ip-health-monitors, #big-ip-test-vectors)', () => {
  it('vector 1: last success at 0, probes at 5, 10, 15 fail ⇒ red at 16 s, still up just before', () => {
    const monitor = new MemberMonitor(F5_MONITOR_DEFAULTS, -5);
    monitor.record(0, true);
    for (const t of [5, 10, 15]) monitor.record(t, false);
    expect(monitor.health(15.999)).toBe('up');
    expect(monitor.health(16)).toBe('down');
    expect(receivesTraffic(monitor.health(15.9), false)).toBe(true);
  });

  it('a new member is unknown until its first good probe, or down once the timeout passes without one', () => {
    const good = new MemberMonitor(F5_MONITOR_DEFAULTS, 100);
    const bad = new MemberMonitor(F5_MONITOR_DEFAULTS, 100);
    expect(good.health(100)).toBe('unknown');
    expect(good.nextProbeAfter(100)).toBe(105);
    good.record(105, true);
    bad.record(105, false);
    expect(good.health(105)).toBe('up');
    expect(bad.health(115.9)).toBe('unknown');
    expect(bad.health(116)).toBe('down');
    bad.record(120, true);
    expect(bad.health(120)).toBe('up');
  });

  it('a new member that cannot serve gets its round-robin share while unknown, and none once down or when unknown gets no traffic', () => {
    const share = (unknownReceivesTraffic: boolean, from: number, to: number) => {
      // Three members have served for a long time; member 3 joins at 100 s and never answers.
      const monitors = [0, 1, 2].map(() => new MemberMonitor(F5_MONITOR_DEFAULTS, 0));
      monitors.push(new MemberMonitor(F5_MONITOR_DEFAULTS, 100));
      probe(monitors, (m) => m !== 3, to);
      const rr = new RoundRobin();
      let toNew = 0;
      let total = 0;
      for (let t = from; t < to; t += 0.01) {
        const picked = rr.pick((m) => receivesTraffic(monitors[m]!.health(t), unknownReceivesTraffic), monitors.length);
        total++;
        if (picked === 3) toNew++;
      }
      return toNew / total;
    };
    expect(share(true, 100, 116)).toBeCloseTo(0.25, 2);
    expect(share(true, 116, 130)).toBe(0);
    expect(share(false, 100, 116)).toBe(0);
  });

  it('vector 2: ten members behind externalTrafficPolicy Local, endpoints on three ⇒ 70 % of new connections go nowhere until 16 s', () => {
    const monitors = Array.from({ length: 10 }, () => new MemberMonitor(F5_MONITOR_DEFAULTS, 0));
    probe(monitors, (m) => m < 3, 30);
    const rr = new RoundRobin();
    const lost = (from: number, to: number) => {
      let n = 0;
      let bad = 0;
      for (let t = from; t < to; t += 0.01) {
        n++;
        if (rr.pick((m) => receivesTraffic(monitors[m]!.health(t), true), 10) >= 3) bad++;
      }
      return bad / n;
    };
    expect(lost(0, 5)).toBeCloseTo(0.7, 2);
    expect(lost(16, 30)).toBe(0);
    expect(rr.pick(() => false, 10)).toBe(-1);
  });
});
