/**
 * HAProxy health checks as traffic with a cost (docs/sources/service-discovery.md#health-check-traffic), and the
 * queue in front of every mesh backend's workers that the checks share (docs/sources/service-discovery.md#backend-queue).
 */
import { describe, expect, it } from 'vitest';
import type { SimContext } from '../../src/sim/context';
import { atSeconds } from '../../src/sim/core/time';
import { LATENCY_BUCKETS, type MeshClient } from '../../src/sim/discovery/mesh-client';
import type { MeshServer } from '../../src/sim/discovery/mesh-server';
import type { World } from '../../src/sim/world';
import { meshScenario } from '../fixtures/mesh-scenario';
import type { ParamsInput } from '../fixtures/scenario-builder';
import { worldOf } from '../fixtures/scenario-run';

const at = (ctx: SimContext, s: number) => ctx.sched.runUntil(atSeconds(s));
const backendsOf = (w: World): MeshServer[] => w.workloads.pods.filter((p) => p.deployment !== 'api' && p.phase === 'running').map((p) => w.mesh!.servers.of(p.index)!);

function world(clients: number, params: ParamsInput = {}, services = 2, backends = 10) {
  const names = Array.from({ length: services }, (_, k) => `s${k}`);
  return worldOf(meshScenario({ id: 'checks', seed: 5, duration: 60, nodes: 3, services: names, backends, clients, params }));
}

describe('health checks are traffic: every active HAProxy process checks every server line once per inter', () => {
  it.each([2, 4])('%i client pods × 20 lines: clients × lines / inter checks a second, 4 packets each, and each backend checked by every client', (clients) => {
    const { ctx, w } = world(clients);
    at(ctx, 5);
    const packets = ctx.metrics.counter('haproxy.checks.packets');
    w.mesh!.clients.sample();
    const before = packets.total;
    at(ctx, 25);
    w.mesh!.clients.sample();
    // 20 lines per pod, inter 2 s, 4 packets a check, 20 s.
    expect(packets.total - before).toBeCloseTo((clients * 20 * 4 * 20) / 2, -1);
    const backends = backendsOf(w);
    expect(backends).toHaveLength(20);
    for (const b of backends) expect(b.checkers).toBe(clients);
  });

  it('a server synapse disables over the stats socket is no longer checked, long before the reload that drops it', () => {
    // Reloads 30 s apart: the first after the run's start comes at 30 s.
    const { ctx, w } = world(3, { synapse: { restartIntervalS: 30 } }, 1, 10);
    at(ctx, 2);
    const [victim] = w.workloads.pods.filter((p) => p.deployment === 's0' && p.phase === 'running');
    const server = w.mesh!.servers.of(victim!.index)!;
    expect(server.checkers).toBe(3);
    w.workloads.deletePod(victim!, undefined, 'test');
    at(ctx, 10);
    expect(ctx.metrics.counter('haproxy.reloads').total).toBe(0);
    // Every watcher has read s0 without it: each HAProxy put it in maintenance and stopped its checks.
    for (const c of w.workloads.pods.filter((p) => p.deployment === 'api')) expect((c.app as MeshClient).watcherOf('s0')!.list.some((r) => r.pod === victim!.index)).toBe(false);
    expect(server.checkers).toBe(0);
    // 3 pods × (10 lines − 1 disabled) / 2 s; its replacement joins at the next reload.
    expect(w.mesh!.clients.haproxies.census().checksPerSecond).toBe((3 * 9) / 2);
  });

  it("the backend's inspector shows the checks it answers and its workers' share of them", () => {
    const { ctx, w } = world(4, { mesh: { backendWorkers: 2, checkCostMs: 100 } }, 1, 1);
    at(ctx, 3);
    const [b] = backendsOf(w);
    const rows = Object.fromEntries(b!.inspect()[0]!.rows);
    // 4 processes every 2 s at 100 ms a check: 0.2 s a second over 2 workers.
    expect(rows['health checks']).toBe('2/s from 4 HAProxy processes');
    expect(rows['workers']).toMatch(/^[0-2] of 2 busy, 10 % of their time on checks$/);
  });

  it('a reload moves the checks to the new process: the old one stops its own, so every backend keeps one checker per client', () => {
    const { ctx, w } = world(3, {}, 1, 10);
    at(ctx, 2);
    w.workloads.rollout('s0', 'test');
    at(ctx, 60);
    expect(ctx.metrics.counter('haproxy.reloads').total).toBeGreaterThan(3);
    const backends = backendsOf(w);
    expect(backends).toHaveLength(10);
    for (const b of backends) expect(b.checkers).toBe(3);
    // Backends that are gone are no longer in any running configuration.
    const gone = w.workloads.pods.filter((p) => p.deployment === 's0' && p.phase === 'gone');
    expect(gone.length).toBeGreaterThan(0);
    for (const p of gone) expect(w.mesh!.servers.of(p.index)!.checkers).toBe(0);
  });

  it('moving checks between two lists touches only the lines that differ, and none when the list is the same', () => {
    const { ctx, w } = world(2, {}, 1, 10);
    at(ctx, 2);
    const haproxies = w.mesh!.clients.haproxies;
    const client = w.workloads.pods.find((p) => p.deployment === 'api')!;
    const list = w.mesh!.zk.children('s0');
    const checkers = () => list.map((r) => w.mesh!.servers.of(r.pod)!.checkers);
    const rate = () => haproxies.census().checksPerSecond;
    const [before, perSecond] = [checkers(), rate()];
    haproxies.recheck(client, list, list, -Infinity);
    expect(checkers()).toEqual(before);
    // The first line leaves, a copy of the rest stays: one checker fewer at the first backend, no other change.
    haproxies.recheck(client, list, list.slice(1), -Infinity);
    expect(checkers()).toEqual(before.map((n, i) => (i === 0 ? n - 1 : n)));
    expect(rate()).toBe(perSecond - 1 / 2);
    // A line deleted by the time given is one synapse has disabled: it comes back unchecked.
    const first = list[0]!;
    first.deletedAt = ctx.sched.now;
    haproxies.recheck(client, list.slice(1), list, ctx.sched.now);
    expect(checkers()[0]).toBe(before[0]! - 1);
    first.deletedAt = Infinity;
    haproxies.recheck(client, list.slice(1), list, -Infinity);
    expect(checkers()).toEqual(before);
    expect(rate()).toBe(perSecond);
  });
});

describe("a backend's queue: FIFO over its workers, at the speed the health checks leave them", () => {
  it('with one worker, a second request that arrives together with the first waits for its whole service', () => {
    const { ctx, w } = world(4, { mesh: { backendWorkers: 1, checkCostMs: 0 } }, 1, 1);
    at(ctx, 3);
    const [b] = backendsOf(w);
    const now = ctx.sched.now + 1_000_000;
    expect(b!.serve(now, 10)).toEqual({ waitMs: 0, serviceMs: 10 });
    expect(b!.serve(now, 10)).toEqual({ waitMs: 10, serviceMs: 10 });
    expect(b!.serve(now + 30_000, 10)).toEqual({ waitMs: 0, serviceMs: 10 });
  });

  it.each([
    [125, 0.25, 4 / 3],
    [250, 0.5, 2],
  ])('4 checkers every 2 s at %i ms a check take %f of one worker: service takes 1 / (1 − load) = %f times as long', (checkCostMs, load, stretch) => {
    const { ctx, w } = world(4, { mesh: { backendWorkers: 1, checkCostMs } }, 1, 1);
    at(ctx, 3);
    const [b] = backendsOf(w);
    expect(b!.checkers).toBe(4);
    expect(b!.checkLoad()).toBeCloseTo(load, 9);
    expect(b!.serve(ctx.sched.now + 1_000_000, 10).serviceMs).toBeCloseTo(10 * stretch, 9);
  });

  it('when the checks take every worker whole, each request to the backend times out at the caller', () => {
    const { ctx, w } = world(4, { mesh: { backendWorkers: 2, checkCostMs: 1000 } }, 1, 1);
    at(ctx, 20);
    const [b] = backendsOf(w);
    expect(b!.checkLoad()).toBe(1);
    const sent = ctx.metrics.counter('requests.sent').total;
    expect(sent).toBeGreaterThan(4 * 2 * 15);
    expect(ctx.metrics.counter('requests.failed', { reason: 'timeout' }).total).toBeGreaterThan(sent - 4 * 2 * 2.5);
    expect(ctx.metrics.counter('requests.ok').total).toBe(0);
  });

  it('checks that take 40 % of the worker turn a half-busy backend into one 80 % busy: requests wait several times longer', () => {
    const p90 = (checkCostMs: number) => {
      // 8 clients × 3 requests a second of 20 ms on one worker: 48 % busy with requests alone.
      const { ctx } = world(8, { mesh: { backendWorkers: 1, checkCostMs, requestsPerSecond: 3 }, server: { serviceTimeMs: 20 } }, 1, 1);
      at(ctx, 120);
      return ctx.metrics.histogram('mesh.backend.wait_ms', LATENCY_BUCKETS).quantile(0.9);
    };
    const light = p90(0);
    // 8 checkers every 2 s at 100 ms a check: 40 % of the worker, so requests take 33 ms and the worker is 80 % busy.
    const heavy = p90(100);
    // An M/M/1 queue waits ρ / (μ − λ): 18 ms at 48 %, 133 ms at 80 %.
    expect(light).toBeGreaterThan(5);
    expect(heavy / light).toBeGreaterThan(3);
  });
});
