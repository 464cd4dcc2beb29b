import { describe, expect, it } from 'vitest';
import type { SimContext } from '../../src/sim/context';
import { atSeconds, seconds } from '../../src/sim/core/time';
import type { Registration } from '../../src/sim/discovery/zookeeper';
import type { World } from '../../src/sim/world';
import { meshScenario } from '../fixtures/mesh-scenario';
import type { DeploymentFields } from '../fixtures/scenario-builder';
import { worldOf } from '../fixtures/scenario-run';

/** Eight `search` backends announced by `announcer`, with `fields` added to the deployment, and four clients. */
function scenario(announcer: 'nerve' | 'mini-announcer', fields: DeploymentFields = {}): string {
  return meshScenario({ id: 'announcer', seed: 3, backends: 8, announcer, backend: fields, clients: 4 });
}

const at = (ctx: SimContext, s: number) => ctx.sched.runUntil(atSeconds(s));

/** The registration of a pod under `search` now, if any. */
const registrationOf = (w: World, pod: number): Registration | undefined => w.mesh!.zk.children('search').find((r) => r.pod === pod);

/** Every registration belongs to a pod that is not gone, and no pod has two. */
function expectNoLeftovers(w: World): void {
  const children = w.mesh!.zk.children('search');
  for (const r of children) expect(w.workloads.pods[r.pod]!.phase, `registration ${r.name}`).not.toBe('gone');
  expect(new Set(children.map((r) => r.pod)).size).toBe(children.length);
}

describe('nerve (docs/sources/service-discovery.md#nerve)', () => {
  // Offsets from a check at 10.0 s: just after one, mid-way, and just before the next.
  it.each([0.01, 0.26, 0.49])('vector 1: SIGTERM at 10 s + %f s, no preStop → deregistered at the next check, within 0.6 s', (offset) => {
    const { ctx, w } = worldOf(scenario('nerve'));
    at(ctx, 10 + offset);
    const pod = w.workloads.findPod('search-2')!;
    const registration = registrationOf(w, pod.index)!;
    expect(registration).toBeDefined();
    // A request still in flight keeps the app alive (refusing new ones), so only nerve's check can deregister it.
    w.mesh!.servers.of(pod.index)!.inFlight++;
    const deletedAt = ctx.sched.now;
    w.workloads.deletePod(pod, 30, 'test');
    expect(w.mesh!.servers.of(pod.index)!.state).toBe('refusing');
    // Not at once: nerve has not checked yet.
    expect(registration.deletedAt).toBe(Infinity);
    at(ctx, 10 + offset + 0.6);
    expect(registrationOf(w, pod.index)).toBeUndefined();
    const after = registration.deletedAt - deletedAt;
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThanOrEqual(seconds(0.6));
    // It was nerve's check, not the pod going away: the pod is still terminating.
    expect(pod.phase).toBe('terminating');
  });

  it('keeps a backend registered through its preStop sleep, while it still serves, and deregisters it after SIGTERM', () => {
    const { ctx, w } = worldOf(scenario('nerve', { preStopSeconds: 3 }));
    at(ctx, 10.1);
    const pod = w.workloads.findPod('search-0')!;
    const registration = registrationOf(w, pod.index)!;
    w.mesh!.servers.of(pod.index)!.inFlight++;
    w.workloads.deletePod(pod, 30, 'test');
    at(ctx, 13.05);
    expect(w.mesh!.servers.of(pod.index)!.serving).toBe(true);
    expect(registration.deletedAt).toBe(Infinity);
    // SIGTERM at 13.1 s; the next check, at 13.5 s, fails.
    at(ctx, 13.7);
    expect(registration.deletedAt).toBe(atSeconds(13.5));
  });

  it('a pod killed without a grace period takes its registration with it', () => {
    const { ctx, w } = worldOf(scenario('nerve'));
    at(ctx, 10.2);
    const pod = w.workloads.findPod('search-5')!;
    const registration = registrationOf(w, pod.index)!;
    w.workloads.deletePod(pod, 0, 'test');
    expect(pod.phase).toBe('gone');
    // The session closes with the process: no waiting for a check or for a session timeout.
    expect(registration.deletedAt).toBe(atSeconds(10.2));
    expectNoLeftovers(w);
  });

  it('vector 1, second half: a backend whose death the ensemble cannot hear of keeps its znode until its session expires', () => {
    // No host crash exists in the model; the closest is a pod dying while every client is cut off from ZooKeeper, so
    // its close request cannot reach the ensemble, as a crashed host sends none.
    const { ctx, w } = worldOf(scenario('nerve'));
    at(ctx, 2);
    const zk = w.mesh!.zk;
    const others = zk.children('search').filter((r) => w.workloads.pods[r.pod]!.name !== 'search-1');
    // Shorter than the 10 s session timeout: the live backends' sessions survive it.
    zk.partition(atSeconds(8));
    at(ctx, 3);
    const pod = w.workloads.findPod('search-1')!;
    const registration = registrationOf(w, pod.index)!;
    w.workloads.deletePod(pod, 0, 'test');
    expect(pod.phase).toBe('gone');
    at(ctx, 5);
    expect(registration.deletedAt).toBe(Infinity);
    expect(registrationOf(w, pod.index)).toBe(registration);
    // Heard from last at 0 s (the session's start): it expires 10 s later, at its next ping at the latest.
    at(ctx, 14);
    expect(registration.deletedAt).toBeGreaterThanOrEqual(atSeconds(10));
    expect(registrationOf(w, pod.index)).toBeUndefined();
    for (const r of others) expect(r.deletedAt).toBe(Infinity);
  });
});

describe('Kubernetes mini announcer', () => {
  it('registers a new pod only once it is ready', () => {
    const { ctx, w } = worldOf(scenario('mini-announcer', { readySeconds: 4 }));
    at(ctx, 5);
    w.workloads.scale('search', 9, 'test');
    const pod = w.workloads.findPod('search-8')!;
    at(ctx, 8.9);
    expect(pod.ready).toBe(false);
    expect(registrationOf(w, pod.index)).toBeUndefined();
    expect(w.mesh!.zk.children('search')).toHaveLength(8);
    at(ctx, 9.05);
    expect(pod.ready).toBe(true);
    expect(registrationOf(w, pod.index)).toBeDefined();
    expect(w.mesh!.zk.children('search')).toHaveLength(9);
  });

  it('deregisters a pod in its preStop hook as soon as it is deleted, before SIGTERM, and stays deregistered', () => {
    const { ctx, w } = worldOf(scenario('mini-announcer', { preStopSeconds: 5 }));
    at(ctx, 10.3);
    const pod = w.workloads.findPod('search-3')!;
    const registration = registrationOf(w, pod.index)!;
    w.workloads.deletePod(pod, 30, 'test');
    expect(registration.deletedAt).toBe(atSeconds(10.3));
    // SIGTERM comes only after the 5 s preStop: the app still serves, but is already out of discovery.
    const server = w.mesh!.servers.of(pod.index)!;
    expect(server.serving).toBe(true);
    at(ctx, 15.2);
    expect(pod.phase).not.toBe('running');
    // Polls during preStop (every second) saw a running, serving pod, and still did not register it again.
    expect(registrationOf(w, pod.index)).toBeUndefined();
    at(ctx, 20);
    expect(pod.phase).toBe('gone');
    expectNoLeftovers(w);
  });
});

describe('no registration outlives its pod', () => {
  it.each([
    ['nerve', '', {}],
    ['nerve', ', preStopSeconds: 2', { preStopSeconds: 2 }],
    ['mini-announcer', '', {}],
    ['mini-announcer', ', preStopSeconds: 2', { preStopSeconds: 2 }],
  ] as const)('%s%s: after a rolling update only the new pods are registered, one registration each', (announcer, _, fields) => {
    const { ctx, w } = worldOf(scenario(announcer, { ...fields, readySeconds: 1, maxSurge: 2, maxUnavailable: 0 }));
    at(ctx, 2);
    const old = w.mesh!.zk.children('search').map((r) => r.pod);
    w.workloads.rollout('search', 'test');
    for (let t = 3; t <= 40; t += 0.5) {
      at(ctx, t);
      expectNoLeftovers(w);
    }
    const pods = w.workloads.pods.filter((p) => p.deployment === 'search' && p.phase === 'running');
    expect(pods).toHaveLength(8);
    const children = w.mesh!.zk.children('search');
    expect(children.map((r) => r.pod).sort((a, b) => a - b)).toEqual(pods.map((p) => p.index).sort((a, b) => a - b));
    for (const r of children) expect(old).not.toContain(r.pod);
  });
});
