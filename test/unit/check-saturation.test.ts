/**
 * HAProxy's health checks through the nodes' packet allowance (docs/sources/service-discovery.md#health-check-saturation):
 * what the allowances drop, the checks that fail for it, the health counter that marks live servers DOWN
 * (docs/sources/service-discovery.md#haproxy-health-checks), and requests that wait out a lost SYN.
 */
import { describe, expect, it } from 'vitest';
import type { SimContext } from '../../src/sim/context';
import { atSeconds, seconds, type SimTime } from '../../src/sim/core/time';
import { PpsAllowance } from '../../src/sim/infra/pps-allowance';
import type { World } from '../../src/sim/world';
import { meshScenario } from '../fixtures/mesh-scenario';
import type { ParamsInput } from '../fixtures/scenario-builder';
import { runText, worldOf } from '../fixtures/scenario-run';

const at = (ctx: SimContext, s: number) => ctx.sched.runUntil(atSeconds(s));

/** 4 client pods × (2 services × 10 backends) on three cloud instances, each allowed `allowance` packets a second. */
function text(allowance: number, params: ParamsInput = {}, duration = 120): string {
  return meshScenario(
    { id: 'saturation', seed: 5, duration, nodes: 3, services: ['s0', 's1'], backends: 10, clients: 4, params: { ...params, instance: { ppsAllowance: allowance } } },
    (draft) => {
      for (const n of draft.topology.nodes) n.platform = 'cloud';
    },
  );
}

const world = (allowance: number, params: ParamsInput = {}) => worldOf(text(allowance, params));

const exceeded = (ctx: SimContext) => ctx.metrics.counter('hypervisor.pps_allowance_exceeded').total;
const skipped = (ctx: SimContext) => ctx.metrics.counter('haproxy.skipped_live_servers').total;
const hostsOf = (w: World) => {
  const client = w.workloads.pods.find((p) => p.deployment === 'api')!;
  const backend = w.workloads.pods.find((p) => p.deployment === 's0' && p.host !== client.host)!;
  return { a: client.host, b: backend.host };
};

describe('a flow of packets through a token bucket', () => {
  it('admits what the bucket holds and what it refills over the time since, no more', () => {
    const bucket = new PpsAllowance(100);
    expect(bucket.admitFlow(atSeconds(0), 150)).toBe(100);
    expect(bucket.admitFlow(atSeconds(0.5), 100)).toBeCloseTo(50, 9);
    expect(bucket.admitFlow(atSeconds(10), 30)).toBe(30);
  });
});

describe("checks fill the nodes' packet allowance", () => {
  it('every node over its allowance drops the excess (2 ends × 4 clients × 20 lines × 4 packets / 2 s − 3 × allowance); within it, none', () => {
    const { ctx } = world(50);
    at(ctx, 10);
    const before = exceeded(ctx);
    at(ctx, 30);
    // 320 packets a second at the ends over the three nodes, each admitting 50.
    expect((exceeded(ctx) - before) / 20).toBeCloseTo(320 - 3 * 50, 0);
    // Within the allowance, nothing is dropped and no live server is ever passed over.
    const ample = world(10_000);
    at(ample.ctx, 60);
    expect(exceeded(ample.ctx)).toBe(0);
    expect(skipped(ample.ctx)).toBe(0);
    expect(ample.ctx.metrics.counter('requests.failed').total).toBe(0);
  });

  it('a check fails when every SYN sent within `inter` is lost or its SYN-ACK is: two at 2 s, three at 5 s', () => {
    for (const [inter, sends] of [
      [2000, 2],
      [5000, 3],
    ] as const) {
      const { ctx, w } = world(20, { haproxy: { checkInterMs: inter } });
      at(ctx, 20);
      const traffic = w.mesh!.clients.haproxies.traffic;
      const { a, b } = hostsOf(w);
      const t = ctx.sched.now - seconds(1);
      const pass = ((1 - traffic.lossAt(a, t)) * (1 - traffic.lossAt(b, t))) ** 2;
      expect(traffic.lossAt(a, t)).toBeGreaterThan(0);
      expect(traffic.checkFailsAt(a, b, t)).toBeCloseTo((1 - pass) ** sends, 12);
    }
  });
});

describe('the loss each node keeps', () => {
  it('is bounded on a long run: an hour keeps 8 × (rise + fall) checks of ticks per node, and every tick kept reads as it did when new', () => {
    const { ctx, w } = worldOf(text(95, {}, 3600));
    const traffic = w.mesh!.clients.haproxies.traffic;
    const { a } = hostsOf(w);
    const tick = seconds(0.1);
    const seen: number[] = [];
    for (let n = 1; n * tick <= seconds(3600); n++) {
      ctx.sched.runUntil((n * tick) as SimTime);
      seen[n] = traffic.lossAt(a, n * tick);
    }
    // 8 × (3 + 2) checks 2 s apart, in ticks of 100 ms, and the tick in progress.
    expect(traffic.window).toBe(801);
    expect(traffic.heldTicks()).toBe(801);
    const kept = seen.slice(-801);
    expect(kept.some((loss) => loss > 0)).toBe(true);
    for (let n = seen.length - 801; n < seen.length; n++) expect(traffic.lossAt(a, n * tick)).toBe(seen[n]);
    expect(traffic.heldSince).toBe((seen.length - 801) * tick);
    expect(() => traffic.lossAt(a, traffic.heldSince - 1)).toThrow(/before the 801 ticks of loss kept/);
    // Health counters were read back under loss all along, never past what is kept.
    expect(skipped(ctx)).toBeGreaterThan(0);
  });
});

describe('failed checks mark live servers DOWN, and they come back after rise', () => {
  const skips = (params: ParamsInput) => {
    // About 125 packets a second at the busiest node against 95: a check in ten or so fails there.
    const { ctx } = world(95, params);
    at(ctx, 90);
    return skipped(ctx);
  };

  it('under loss HAProxy passes over backends that serve, and more of them the more passes it needs to bring one back', () => {
    const quick = skips({ haproxy: { rise: 1 } });
    const slow = skips({ haproxy: { rise: 6 } });
    expect(quick).toBeGreaterThan(0);
    expect(slow).toBeGreaterThan(quick * 1.5);
  });

  it('a long-lived process needs `fall` failures in a row: fall 1 passes over more servers than fall 4', () => {
    expect(skips({ haproxy: { fall: 1 } })).toBeGreaterThan(skips({ haproxy: { fall: 4 } }) * 1.5);
  });

  it('requests cross the same allowances: a lost handshake costs a retransmission timeout of 1 s', () => {
    const slow = (allowance: number) => {
      const { report } = runText(text(allowance));
      // Buckets above the slowest request are left out of the totals.
      const count = report.totals['requests.latency_ms.count']!;
      return count - (report.totals['requests.latency_ms.le_1000'] ?? count);
    };
    expect(slow(95)).toBeGreaterThan(0);
    expect(slow(10_000)).toBe(0);
  });
});

describe('why requests lost their handshakes', () => {
  it('walks from the lost connections to the instance whose allowance the health checks ran over', () => {
    const { report } = runText(text(95));
    const chain = report.why.find((c) => c.symptom.startsWith('lost handshakes at pod/api-'));
    expect(chain).toBeDefined();
    const [first, over, checks] = chain!.steps;
    expect(first!.text).toMatch(/^[\d,]+ connections to backends lost their SYN or SYN-ACK and sent it again; the latest, to pod\/s[01]-\d+ of s[01], waited \d+ ms/);
    expect(over!.entity).toMatch(/^instance\/node-[abc]$/);
    expect(over!.text).toMatch(/HAProxy health checks alone came to [\d,]+ packets a second against 95,/);
    expect(checks!.text).toMatch(/checks a second start or end here, 4 packets each/);
  });
});
