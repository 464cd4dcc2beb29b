import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SimContext } from '../../src/sim/context';
import { atSeconds } from '../../src/sim/core/time';
import { Haproxy } from '../../src/sim/discovery/haproxy';
import { haproxyParams } from '../../src/sim/discovery/haproxy-params';
import type { MeshClient } from '../../src/sim/discovery/mesh-client';
import type { World } from '../../src/sim/world';
import { meshScenario } from '../fixtures/mesh-scenario';
import type { DeploymentFields, ParamsInput } from '../fixtures/scenario-builder';
import { runText, worldOf } from '../fixtures/scenario-run';

interface Shape {
  services?: number;
  backends: number;
  clients?: number;
  /** Extra fields of every backend deployment, like `{ readySeconds: 2 }`. */
  backend?: DeploymentFields;
  params?: ParamsInput;
  duration?: number;
}

/** `services` discovered services s0…, each with `backends` nerve-announced pods, and `clients` pods using them all. */
function scenario({ services = 1, backends, clients = 4, backend = {}, params = {}, duration = 60 }: Shape): string {
  const names = Array.from({ length: services }, (_, k) => `s${k}`);
  return meshScenario({ id: 'haproxy', seed: 11, duration, nodes: 3, services: names, backends, backend, clients, params });
}

const at = (ctx: SimContext, s: number) => ctx.sched.runUntil(atSeconds(s));
const clientsOf = (w: World): MeshClient[] => w.workloads.pods.filter((p) => p.deployment === 'api' && p.phase === 'running' && p.app).map((p) => p.app as MeshClient);
const haproxyOf = (c: MeshClient): Haproxy => {
  expect(c.proxy.kind).toBe('haproxy');
  return c.proxy as Haproxy;
};

/** One process's memory for `lines` server lines. */
const perProcess = (baseMb: number, perServerKb: number, lines: number) => baseMb + (perServerKb * lines) / 1024;

describe('HAProxy memory: M services × N backends per process (docs/sources/service-discovery.md#load-formulas)', () => {
  it.each([
    [1, 10],
    [1, 40],
    [2, 10],
    [2, 40],
    [4, 10],
    [4, 40],
  ])('%i services × %i backends: steady-state peak is one process of base + per-server × M × N', (services, backends) => {
    // 0.5 MB per line keeps the rounded gauge exact.
    const params = { haproxy: { memoryBaseMb: 12, memoryPerServerKb: 512 } };
    const expected = perProcess(12, 512, services * backends);
    const { report } = runText(scenario({ services, backends, params, duration: 5 }));
    expect(report.totals['mesh.proxy.memory_mb.max']).toBe(expected);
    expect(report.totals['mesh.proxy.memory_mb.mean']).toBe(expected);
    expect(report.totals['haproxy.reloads']).toBe(0);
    // One process in each of the four client pods.
    expect(report.totals['haproxy.processes']).toBe(4);
    expect(report.totals['requests.failed']).toBe(0);
  });

  it('with the default sizes, every client pod holds exactly 20 MB + 40 kB × lines in one process', () => {
    const { ctx, w } = worldOf(scenario({ services: 3, backends: 25 }));
    at(ctx, 3);
    const clients = clientsOf(w);
    expect(clients).toHaveLength(4);
    for (const c of clients) {
      expect(haproxyOf(c).processCount()).toBe(1);
      expect(c.proxy.memoryMb()).toBeCloseTo(20 + (40 * 75) / 1024, 9);
    }
  });
});

// A slow rollout of ten backends, one at a time: about a dozen backend changes, each a reload 2 s apart at the least.
const SLOW_ROLLOUT = { backends: 10, clients: 6, backend: { readySeconds: 2, maxSurge: 1, maxUnavailable: 0 } };

/** Rolls `s0` out at 2 s and follows every client pod's HAProxy to `until`, sampling the mesh gauges every 0.1 s. */
function followRollout(haproxy: ParamsInput['haproxy'], until = 50) {
  const { ctx, w } = worldOf(scenario({ ...SLOW_ROLLOUT, params: { haproxy: { memoryBaseMb: 10, memoryPerServerKb: 1024, ...haproxy } } }));
  at(ctx, 2);
  w.workloads.rollout('s0', 'test');
  let peakProcesses = 0;
  let peakMemory = 0;
  for (let t = 2.1; t <= until; t += 0.1) {
    at(ctx, t);
    w.mesh!.clients.sample();
    for (const c of clientsOf(w)) {
      const n = haproxyOf(c).processCount();
      const mb = c.proxy.memoryMb();
      // Each process has 10 or 11 lines (maxSurge 1, maxUnavailable 0), so it holds 20 or 21 MB.
      expect(mb).toBeGreaterThanOrEqual(n * perProcess(10, 1024, 10));
      expect(mb).toBeLessThanOrEqual(n * perProcess(10, 1024, 11));
      peakProcesses = Math.max(peakProcesses, n);
      peakMemory = Math.max(peakMemory, mb);
    }
  }
  const gaugePeak = ctx.metrics.gauge('mesh.proxy.memory_mb.max').peak;
  return { ctx, w, peakProcesses, peakMemory, gaugePeak, reloads: ctx.metrics.counter('haproxy.reloads').total };
}

describe('HAProxy reloads keep old processes and their memory (docs/sources/service-discovery.md#haproxy-reloads, #load-formulas)', () => {
  it('peak memory ≈ (live old processes + 1) × per-process memory, and a longer connection lifetime keeps more alive', () => {
    const short = followRollout({ connectionLifetimeS: 2 });
    const long = followRollout({ connectionLifetimeS: 120 });
    // Several reloads per pod, so old processes have a chance to pile up.
    expect(long.reloads).toBeGreaterThanOrEqual(6 * 8);
    expect(long.reloads).toBe(short.reloads);
    // With two-minute connections no old process exits within the run: one process per reload plus the first.
    expect(long.peakProcesses).toBe(long.reloads / 6 + 1);
    expect(long.peakProcesses).toBeGreaterThan(short.peakProcesses + 3);
    expect(short.peakProcesses).toBeGreaterThanOrEqual(2);
    for (const run of [short, long]) {
      expect(run.peakMemory).toBeGreaterThanOrEqual(run.peakProcesses * 20);
      expect(run.peakMemory).toBeLessThanOrEqual(run.peakProcesses * 21);
      expect(run.gaugePeak).toBe(Math.round(run.peakMemory));
    }
    expect(long.gaugePeak).toBeGreaterThan(short.gaugePeak + 3 * 20);
  });

  it('hard-stop-after caps how long an old process lives, and so the peak', () => {
    const uncapped = followRollout({ connectionLifetimeS: 120 });
    const capped = followRollout({ connectionLifetimeS: 120, hardStopAfterS: 3 });
    // Reloads come at least 2 s apart, so at most two old processes are younger than 3 s, besides the active one
    // and one still parsing its configuration.
    expect(capped.peakProcesses).toBeLessThanOrEqual(4);
    expect(capped.peakProcesses).toBeGreaterThanOrEqual(2);
    expect(capped.peakProcesses).toBeLessThan(uncapped.peakProcesses);
    expect(capped.gaugePeak).toBeLessThanOrEqual(4 * 21);
    expect(capped.gaugePeak).toBeLessThan(uncapped.gaugePeak);
    // Once the rollout is long over, every pod is back to a single process.
    for (const c of clientsOf(capped.w)) expect(haproxyOf(c).processCount()).toBe(1);
  });
});

describe('reload rate', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([2, 5])('a client pod reloads at most once per restartIntervalS (%i s), however often the backends change', (interval) => {
    const { ctx, w } = worldOf(scenario({ ...SLOW_ROLLOUT, params: { synapse: { restartIntervalS: interval } } }));
    const reloads = new Map<string, number[]>();
    const original = Haproxy.prototype.onReload;
    vi.spyOn(Haproxy.prototype, 'onReload').mockImplementation(function (this: Haproxy) {
      reloads.set(this.owner, [...(reloads.get(this.owner) ?? []), ctx.sched.now]);
      original.call(this);
    });
    at(ctx, 2);
    const changesBefore = w.mesh!.zk.changes('s0');
    w.workloads.rollout('s0', 'test');
    at(ctx, 50);
    const changes = w.mesh!.zk.changes('s0') - changesBefore;
    // Ten pods replaced: each new one registers and each old one goes.
    expect(changes).toBe(20);
    expect(reloads.size).toBe(6);
    let total = 0;
    for (const times of reloads.values()) {
      total += times.length;
      expect(times.length).toBeGreaterThanOrEqual(2);
      expect(times.length).toBeLessThan(changes);
      // The first configuration was written at 0 s, which counts as a reload.
      for (let i = 0; i < times.length; i++) expect(times[i]! - (i === 0 ? 0 : times[i - 1]!)).toBeGreaterThanOrEqual(atSeconds(interval));
    }
    expect(total).toBe(ctx.metrics.counter('haproxy.reloads').total);
  });
});

describe('vector 3: restart interval 30 s and a maxSurge 100 % rollout done in ~20 s (docs/sources/service-discovery.md#synapse, #test-vectors)', () => {
  const text = (envoyPercent: number) =>
    scenario({
      backends: 20,
      clients: 6,
      backend: { readySeconds: 1, maxSurge: '100%' },
      params: { synapse: { restartIntervalS: 30 }, mesh: { envoyPercent } },
    });
  const count = (ctx: SimContext, name: string, proxy?: string) => ctx.metrics.counter(name, proxy ? { proxy } : undefined).total;

  it('HAProxy clients are left with only gone backends and fail every request until their next reload', () => {
    const { ctx, w } = worldOf(text(0));
    at(ctx, 5);
    const old = new Set(w.mesh!.zk.children('s0').map((r) => r.pod));
    w.workloads.rollout('s0', 'test');
    at(ctx, 8);
    // Every backend replaced within ~2 s: the old pods are gone, the new ones registered.
    for (const pod of old) expect(w.workloads.pods[pod]!.phase).toBe('gone');
    const children = w.mesh!.zk.children('s0');
    expect(children).toHaveLength(20);
    for (const r of children) expect(old.has(r.pod)).toBe(false);
    const ok8 = count(ctx, 'mesh.requests.ok', 'haproxy');
    const failed8 = count(ctx, 'mesh.requests.failed', 'haproxy');
    at(ctx, 20);
    // synapse already has the new list, but HAProxy needs a reload for servers it lacks, and the last was at 0 s.
    for (const c of clientsOf(w)) {
      expect(c.watcherOf('s0')!.list.every((r) => !old.has(r.pod))).toBe(true);
      expect(c.proxy.forward('s0').backend).toBeNull();
    }
    at(ctx, 29.9);
    expect(count(ctx, 'haproxy.reloads')).toBe(0);
    expect(count(ctx, 'mesh.requests.ok', 'haproxy')).toBe(ok8);
    // Six pods at 2 requests/s for ~22 s: all of them failed.
    expect(count(ctx, 'mesh.requests.failed', 'haproxy') - failed8).toBeGreaterThan(6 * 2 * 21 * 0.8);
    at(ctx, 32);
    expect(count(ctx, 'haproxy.reloads')).toBe(6);
    const failed32 = count(ctx, 'mesh.requests.failed', 'haproxy');
    const ok32 = count(ctx, 'mesh.requests.ok', 'haproxy');
    at(ctx, 45);
    expect(count(ctx, 'mesh.requests.failed', 'haproxy')).toBe(failed32);
    expect(count(ctx, 'mesh.requests.ok', 'haproxy') - ok32).toBeGreaterThan(6 * 2 * 13 * 0.8);
  });

  it('Envoy clients take the new backends over EDS at once and do not fail that way', () => {
    const { ctx, w } = worldOf(text(100));
    at(ctx, 5);
    w.workloads.rollout('s0', 'test');
    at(ctx, 45);
    expect(clientsOf(w).every((c) => c.proxy.kind === 'envoy')).toBe(true);
    expect(count(ctx, 'mesh.requests.failed', 'envoy')).toBe(0);
    expect(count(ctx, 'requests.failed')).toBe(0);
    expect(count(ctx, 'mesh.requests.ok', 'envoy')).toBeGreaterThan(6 * 2 * 40 * 0.8);
    expect(count(ctx, 'haproxy.reloads')).toBe(0);
  });
});

describe('reload time grows with the configuration: base + per line × M services × N backends (docs/sources/service-discovery.md#reload-time)', () => {
  afterEach(() => vi.restoreAllMocks());
  const reload = Haproxy.prototype.onReload;
  const activate = Haproxy.prototype.onActivate;

  /** Every reload's time from start to takeover, with the lines the new process parsed. */
  function reloadTimes(services: number, backends: number): { seconds: number; lines: number }[] {
    const { ctx, w } = worldOf(scenario({ services, backends, clients: 2, backend: { readySeconds: 2, maxSurge: 1, maxUnavailable: 0 } }));
    const started = new Map<string, number>();
    const times: { seconds: number; lines: number }[] = [];
    vi.spyOn(Haproxy.prototype, 'onReload').mockImplementation(function (this: Haproxy) {
      started.set(this.owner, ctx.sched.now);
      reload.call(this);
    });
    vi.spyOn(Haproxy.prototype, 'onActivate').mockImplementation(function (this: Haproxy, pid: number) {
      activate.call(this, pid);
      times.push({ seconds: (ctx.sched.now - started.get(this.owner)!) / 1e6, lines: this.activeLines() });
    });
    at(ctx, 2);
    w.workloads.rollout('s0', 'test');
    at(ctx, 40);
    return times;
  }

  it('each reload takes 0.3 s + 2 ms per server line, so four times the lines take nearly four times as long to parse', () => {
    const small = reloadTimes(1, 10);
    const large = reloadTimes(4, 10);
    for (const run of [small, large]) {
      expect(run.length).toBeGreaterThan(4);
      for (const r of run) expect(r.seconds).toBeCloseTo(0.3 + 0.002 * r.lines, 5);
    }
    expect(Math.min(...large.map((r) => r.lines))).toBeGreaterThanOrEqual(40);
    expect(Math.max(...small.map((r) => r.lines))).toBeLessThanOrEqual(11);
  });

  it("at the talk's scale, 1,000 to 2,350 server lines, a reload takes its 2–5 s; the shipped 1,300 lines take 2.9 s", () => {
    const h = haproxyParams.parse({});
    const reload = (lines: number) => (h.reloadBaseMs + h.reloadPerServerMs * lines) / 1000;
    expect(reload(1000)).toBeGreaterThanOrEqual(2);
    expect(reload(1300)).toBeCloseTo(2.9, 9);
    expect(reload(2350)).toBeLessThanOrEqual(5);
  });
});
