import { describe, expect, it } from 'vitest';
import type { SimContext } from '../../src/sim/context';
import { atSeconds } from '../../src/sim/core/time';
import type { Envoy } from '../../src/sim/discovery/envoy';
import type { MeshClient } from '../../src/sim/discovery/mesh-client';
import type { Outcome } from '../../src/sim/discovery/outcome';
import type { World } from '../../src/sim/world';
import { meshScenario } from '../fixtures/mesh-scenario';
import type { ParamsInput } from '../fixtures/scenario-builder';
import { worldOf } from '../fixtures/scenario-run';

/** `backends` search pods and `clients` client pods that all run Envoy; `envoy` is the params.envoy section. */
function scenario(backends: number, clients: number, envoy: ParamsInput['envoy'] = {}): string {
  return meshScenario({ id: 'envoy', seed: 9, backends, clients, params: { mesh: { envoyPercent: 100 }, envoy } });
}

const at = (ctx: SimContext, s: number) => ctx.sched.runUntil(atSeconds(s));
const count = (ctx: SimContext, name: string) => ctx.metrics.counter(name).total;

/** The Envoy of the first client pod, once it has its hosts. */
function envoyOf(w: World): Envoy {
  const app = w.workloads.findPod('api-0')!.app as MeshClient;
  expect(app.proxy.kind).toBe('envoy');
  return app.proxy as Envoy;
}

/**
 * Kills backends at once (no grace period) without letting the clock run, so ZooKeeper's watchers have not read the
 * change yet and Envoy still lists the dead hosts.
 */
function kill(w: World, ...names: string[]): number[] {
  return names.map((name) => {
    const pod = w.workloads.findPod(name)!;
    w.workloads.deletePod(pod, 0, 'test');
    expect(pod.phase).toBe('gone');
    return pod.index;
  });
}

function forward(envoy: Envoy, times: number): Outcome[] {
  return Array.from({ length: times }, () => envoy.forward('search'));
}

describe('Envoy retries a connect failure on another host', () => {
  it('with one of five backends gone every request still succeeds, after one connect timeout on the gone host', () => {
    const { ctx, w } = worldOf(scenario(5, 1));
    at(ctx, 1);
    const envoy = envoyOf(w);
    const [gone] = kill(w, 'search-2');
    // A tenth of five hosts is less than one: outlier detection may eject none, so every round reaches the gone host.
    const outcomes = forward(envoy, 100);
    expect(outcomes.every((o) => o.failure === null && o.backend !== null)).toBe(true);
    const retried = outcomes.filter((o) => o.goneAttempts > 0);
    // Round robin reaches the gone host at least once every five requests (the retry moves the cursor on too).
    expect(retried.length).toBeGreaterThanOrEqual(20);
    for (const o of retried) {
      expect(o.goneAttempts).toBe(1);
      expect(o.gone!.pod).toBe(gone);
      expect(o.backend!.pod.index).not.toBe(gone);
      expect(o.connectMs).toBe(250);
    }
    expect(count(ctx, 'envoy.ejections')).toBe(0);
  });

  it('a backend that refuses (terminating) is retried elsewhere at once', () => {
    const { ctx, w } = worldOf(scenario(4, 1));
    at(ctx, 1);
    const envoy = envoyOf(w);
    const pod = w.workloads.findPod('search-1')!;
    // A request in flight keeps the terminating app alive, refusing new connections.
    w.mesh!.servers.of(pod.index)!.inFlight++;
    w.workloads.deletePod(pod, 30, 'test');
    expect(w.mesh!.servers.of(pod.index)!.state).toBe('refusing');
    const outcomes = forward(envoy, 40);
    expect(outcomes.every((o) => o.backend !== null && o.backend.pod !== pod)).toBe(true);
    const refused = outcomes.filter((o) => o.connectMs > 0);
    expect(refused.length).toBeGreaterThanOrEqual(10);
    for (const o of refused) expect(o.connectMs).toBeLessThan(5);
  });

  it('without retries the same gone host fails every request that reaches it', () => {
    const { ctx, w } = worldOf(scenario(5, 1, { retries: 0 }));
    at(ctx, 1);
    const envoy = envoyOf(w);
    kill(w, 'search-2');
    const outcomes = forward(envoy, 100);
    // Without a retry the cursor moves one host per request: every fifth request fails.
    expect(outcomes.filter((o) => o.failure === 'connect_failed')).toHaveLength(20);
    expect(outcomes.filter((o) => o.failure === null)).toHaveLength(80);
  });

  it('in a run where ZooKeeper is too slow to tell the clients, killing one of five backends fails no request', () => {
    const run = (envoy: ParamsInput['envoy']) => {
      const { ctx, w } = worldOf(scenario(5, 6, envoy));
      at(ctx, 2);
      // Reads stall for the rest of the run, so the clients keep listing the dead backend.
      w.mesh!.zk.slowDown(1e9, atSeconds(60));
      kill(w, 'search-2');
      at(ctx, 20);
      return { failed: count(ctx, 'requests.failed'), ok: count(ctx, 'requests.ok'), gone: count(ctx, 'mesh.gone_backend.attempts') };
    };
    const retried = run({});
    expect(retried.gone).toBeGreaterThan(20);
    expect(retried.failed).toBe(0);
    expect(retried.ok).toBeGreaterThan(6 * 2 * 18 * 0.8);
    // The control: the same run without retries loses the requests that reach the dead backend.
    const single = run({ retries: 0 });
    expect(single.failed).toBeGreaterThan(20);
  });
});

describe('Envoy outlier detection', () => {
  it.each([5, 3])('ejects a host after %i consecutive failures and sends it nothing more while ejected', (failures) => {
    const { ctx, w } = worldOf(scenario(10, 1, { consecutiveFailures: failures }));
    at(ctx, 1);
    const envoy = envoyOf(w);
    kill(w, 'search-4');
    let attempts = 0;
    while (count(ctx, 'envoy.ejections') === 0) {
      attempts += envoy.forward('search').goneAttempts;
      expect(attempts).toBeLessThanOrEqual(failures);
    }
    expect(attempts).toBe(failures);
    // Ejected for 30 s; the clock stands still, so it stays out.
    const later = forward(envoy, 200);
    expect(later.every((o) => o.goneAttempts === 0 && o.failure === null)).toBe(true);
    expect(count(ctx, 'envoy.ejections')).toBe(1);
  });

  it.each([
    [10, 1],
    [20, 2],
    [30, 3],
    [50, 3],
  ])('with maxEjectionPercent %i and three of ten hosts failing, at most %i are ejected', (percent, ejected) => {
    const { ctx, w } = worldOf(scenario(10, 1, { maxEjectionPercent: percent }));
    at(ctx, 1);
    const envoy = envoyOf(w);
    const gone = kill(w, 'search-1', 'search-5', 'search-8');
    const reached = new Set<number>();
    for (let i = 0; i < 400; i++) {
      const o = envoy.forward('search');
      // Never more of the cluster out at once than the limit.
      expect(count(ctx, 'envoy.ejections')).toBeLessThanOrEqual(Math.floor((10 * percent) / 100));
      if (i >= 300 && o.gone) reached.add(o.gone.pod);
    }
    expect(count(ctx, 'envoy.ejections')).toBe(ejected);
    // The failing hosts not ejected still get traffic, and only they.
    expect(reached.size).toBe(3 - ejected);
    for (const pod of reached) expect(gone).toContain(pod);
  });
});
