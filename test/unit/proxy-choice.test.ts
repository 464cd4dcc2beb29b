import { describe, expect, it } from 'vitest';
import { atSeconds } from '../../src/sim/core/time';
import type { MeshClient } from '../../src/sim/discovery/mesh-client';
import { chooseProxy, rolloutBucket, type ProxyKind } from '../../src/sim/discovery/proxy-choice';
import type { World } from '../../src/sim/world';
import { meshScenario } from '../fixtures/mesh-scenario';
import { runText, worldOf } from '../fixtures/scenario-run';

/** `clients` mesh-client pods, with `envoyPercent` of params.mesh, in front of six backends. */
function scenario(clients: number, envoyPercent: number, seed = 5): string {
  return meshScenario({ id: 'proxy-choice', seed, duration: 20, backends: 6, clients, params: { mesh: { envoyPercent } } });
}

// Names as ReplicaSets and people write them: ordinals, hashes and suffixes of several shapes.
const NAMES = Array.from({ length: 4000 }, (_, i) => {
  if (i % 4 === 0) return `api-${i}`;
  if (i % 4 === 1) return `checkout-7d9f8c${(i * 7919).toString(36)}-x${i % 97}`;
  if (i % 4 === 2) return `search-web-${(i * 104729).toString(16)}`;
  return `pod${i}`;
});

const clientKinds = (w: World): Map<string, ProxyKind> => new Map(w.workloads.pods.filter((p) => p.deployment === 'api' && p.app).map((p) => [p.name, (p.app as MeshClient).proxy.kind]));

describe('per-pod proxy choice', () => {
  it('is a function of the pod name alone: the same name always gets the same bucket and the same proxy', () => {
    for (const name of NAMES.slice(0, 500)) {
      const bucket = rolloutBucket(name);
      expect(bucket).toBeGreaterThanOrEqual(0);
      expect(bucket).toBeLessThan(100);
      // Steps of 0.01.
      expect(Math.abs(bucket * 100 - Math.round(bucket * 100))).toBeLessThan(1e-9);
      expect(rolloutBucket(name)).toBe(bucket);
      for (const percent of [10, 50, 90]) expect(chooseProxy(name, percent, false)).toBe(chooseProxy(name, percent, false));
    }
    // Not a constant: the names spread over the whole range.
    const buckets = NAMES.map(rolloutBucket);
    expect(Math.min(...buckets)).toBeLessThan(1);
    expect(Math.max(...buckets)).toBeGreaterThan(99);
  });

  it.each([5, 10, 25, 50, 75, 90])('at %i percent the Envoy share over 4000 names is within two points of the percentage', (percent) => {
    const envoy = NAMES.filter((name) => chooseProxy(name, percent, false) === 'envoy').length;
    expect(Math.abs((100 * envoy) / NAMES.length - percent)).toBeLessThanOrEqual(2);
  });

  it('0 % gives no Envoy pod and 100 % gives every pod Envoy', () => {
    expect(NAMES.filter((name) => chooseProxy(name, 0, false) === 'envoy')).toEqual([]);
    expect(NAMES.filter((name) => chooseProxy(name, 100, false) === 'haproxy')).toEqual([]);
  });

  it('raising the percentage never switches an Envoy pod back to HAProxy', () => {
    const percents = Array.from({ length: 201 }, (_, i) => i / 2);
    const switchedBack: string[] = [];
    for (const name of NAMES) {
      let wasEnvoy = false;
      for (const percent of percents) {
        const envoy = chooseProxy(name, percent, false) === 'envoy';
        if (wasEnvoy && !envoy) switchedBack.push(`${name} at ${percent} %`);
        wasEnvoy = envoy;
      }
    }
    expect(switchedBack).toEqual([]);
    // Each step only adds pods: the Envoy set at 30 % contains the one at 20 %.
    const at20 = NAMES.filter((name) => chooseProxy(name, 20, false) === 'envoy');
    const at30 = new Set(NAMES.filter((name) => chooseProxy(name, 30, false) === 'envoy'));
    expect(at30.size).toBeGreaterThan(at20.length);
    for (const name of at20) expect(at30.has(name)).toBe(true);
  });

  it('the kill switch forces HAProxy whatever the percentage', () => {
    for (const percent of [0, 50, 100]) {
      expect(NAMES.filter((name) => chooseProxy(name, percent, true) === 'envoy')).toEqual([]);
    }
  });
});

describe('proxy choice in a run', () => {
  it('two separately created worlds, even with different seeds, give each pod name the same proxy as chooseProxy', () => {
    const a = worldOf(scenario(30, 50, 5));
    const b = worldOf(scenario(30, 50, 99));
    a.ctx.sched.runUntil(atSeconds(1));
    b.ctx.sched.runUntil(atSeconds(1));
    const kindsA = clientKinds(a.w);
    const kindsB = clientKinds(b.w);
    expect(kindsA.size).toBe(30);
    expect(kindsB).toEqual(kindsA);
    for (const [name, kind] of kindsA) expect(kind).toBe(chooseProxy(name, 50, false));
    // Both proxies occur, so the comparison says something.
    const kinds = new Set(kindsA.values());
    expect(kinds).toEqual(new Set(['envoy', 'haproxy']));
  });

  it('a pod whose container restarts under the same name gets the same proxy again', () => {
    const { ctx, w } = worldOf(scenario(12, 50));
    ctx.sched.runUntil(atSeconds(1));
    const before = new Map(w.workloads.pods.filter((p) => p.deployment === 'api').map((p) => [p.name, p.app as MeshClient]));
    // Every container exits at once and the kubelet restarts it in the same pod after its 10 s back-off.
    w.workloads.crashLoop('api', 1, 5, 'test');
    ctx.sched.runUntil(atSeconds(12));
    for (const pod of w.workloads.pods.filter((p) => p.deployment === 'api')) {
      expect(w.workloads.restartCount(pod)).toBe(1);
      const app = pod.app as MeshClient;
      // A new process with a new proxy, chosen the same way.
      expect(app).not.toBe(before.get(pod.name));
      expect(app.proxy).not.toBe(before.get(pod.name)!.proxy);
      expect(app.proxy.kind).toBe(before.get(pod.name)!.proxy.kind);
    }
  });

  it('with envoyPercent 50 the mesh.pods.envoy gauge counts the client pods chooseProxy sends to Envoy', () => {
    const { sim, report } = runText(scenario(30, 50));
    const names = sim
      .topology()
      .pods.filter((p) => p.deployment === 'api')
      .map((p) => p.name);
    expect(names).toHaveLength(30);
    const predicted = names.filter((name) => chooseProxy(name, 50, false) === 'envoy').length;
    expect(predicted).toBeGreaterThan(0);
    expect(predicted).toBeLessThan(30);
    expect(report.totals['mesh.pods.envoy']).toBe(predicted);
    expect(report.series['mesh.pods.envoy']!.values.at(-1)).toBe(predicted);
    // Both kinds carry requests.
    expect(report.totals['mesh.requests.ok{proxy=envoy}']).toBeGreaterThan(0);
    expect(report.totals['mesh.requests.ok{proxy=haproxy}']).toBeGreaterThan(0);
  });
});
