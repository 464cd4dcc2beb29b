import { describe, expect, it } from 'vitest';
import { nodes, scenarioText, webAndClients } from '../fixtures/scenario-builder';
import { worldOf } from '../fixtures/scenario-run';
import { atSeconds } from '../../src/sim/core/time';
import { planRollout, resolveFenceposts } from '../../src/sim/k8s/rollout';

describe('RollingUpdate arithmetic', () => {
  it('rounds maxSurge up and maxUnavailable down, and never lets both be zero', () => {
    expect(resolveFenceposts('25%', '25%', 3)).toEqual({ surge: 1, unavailable: 0 });
    expect(resolveFenceposts('25%', '25%', 20)).toEqual({ surge: 5, unavailable: 5 });
    expect(resolveFenceposts(0, 0, 10)).toEqual({ surge: 0, unavailable: 1 });
    expect(resolveFenceposts(2, '10%', 25)).toEqual({ surge: 2, unavailable: 2 });
  });

  it('surges first, then removes old pods only while enough stay available', () => {
    const base = { replicas: 4, surge: 1, unavailable: 1 };
    // Start: 4 old Ready pods. One new pod may be added; one old pod may go.
    expect(planRollout({ ...base, newActive: 0, newReady: 0, oldActive: 4, oldReady: 4 })).toEqual({ create: 1, removeUnready: 0, removeReady: 1 });
    // The new pod is not Ready yet: nothing more may go, and the surge is used up.
    expect(planRollout({ ...base, newActive: 2, newReady: 0, oldActive: 3, oldReady: 3 })).toEqual({ create: 0, removeUnready: 0, removeReady: 0 });
    // Old pods that are not Ready go first and do not count as available.
    expect(planRollout({ ...base, newActive: 1, newReady: 1, oldActive: 3, oldReady: 2 })).toEqual({ create: 1, removeUnready: 1, removeReady: 0 });
    // Done: nothing old left, nothing to create.
    expect(planRollout({ ...base, newActive: 4, newReady: 4, oldActive: 0, oldReady: 0 })).toEqual({ create: 0, removeUnready: 0, removeReady: 0 });
  });
});

function world(preStopSeconds: number, terminationGracePeriodSeconds: number) {
  const text = scenarioText({
    id: 'rollout',
    title: 'Rolling update',
    description: 'a deployment of four rolls to a new template',
    duration: 90,
    topology: {
      nodes: nodes(2),
      ...webAndClients(4, 2, { clusterIp: '10.96.0.20', web: { maxSurge: 1, maxUnavailable: 0, preStopSeconds, terminationGracePeriodSeconds } }),
    },
  });
  return worldOf(text);
}

describe('a rolling update in the world', () => {
  it('replaces every pod one at a time, never below four Ready, and ends with four new pods', () => {
    const { ctx, w } = world(0, 30);
    ctx.sched.runUntil(atSeconds(10));
    w.workloads.rollout('web', 'test');
    let minReady = Infinity;
    let maxActive = 0;
    for (let t = 10; t <= 60; t += 0.1) {
      ctx.sched.runUntil(atSeconds(t));
      const web = w.workloads.pods.filter((p) => p.deployment === 'web');
      minReady = Math.min(minReady, web.filter((p) => p.phase === 'running' && p.ready).length);
      maxActive = Math.max(maxActive, web.filter((p) => p.active).length);
    }
    const web = w.workloads.pods.filter((p) => p.deployment === 'web');
    expect(minReady).toBe(4);
    expect(maxActive).toBe(5);
    expect(web.filter((p) => p.active).map((p) => p.revision)).toEqual([2, 2, 2, 2]);
    expect(web.filter((p) => p.revision === 1).every((p) => p.phase === 'gone')).toBe(true);
  });

  it('runs preStop before SIGTERM, and SIGKILLs 2 s after the grace period if preStop outlasts it', () => {
    const { ctx, w } = world(40, 30);
    ctx.sched.runUntil(atSeconds(5));
    const pod = w.workloads.findPod('web-0')!;
    w.workloads.deletePod(pod, undefined, 'test');
    ctx.sched.runUntil(atSeconds(36.9));
    expect(pod.phase).toBe('terminating');
    ctx.sched.runUntil(atSeconds(37.1));
    expect(pod.phase).toBe('gone');
    const killed = ctx.log.since(0).find((e) => e.entity === 'pod/web-0' && e.kind === 'pod.killed');
    expect(killed?.t).toBe(atSeconds(37));
  });

  it('with a short preStop, SIGTERM comes after it and a draining server exits before the grace period ends', () => {
    const { ctx, w } = world(5, 30);
    ctx.sched.runUntil(atSeconds(5));
    const pod = w.workloads.findPod('web-0')!;
    w.workloads.deletePod(pod, undefined, 'test');
    ctx.sched.runUntil(atSeconds(9.9));
    expect(pod.phase).toBe('terminating');
    ctx.sched.runUntil(atSeconds(12));
    expect(pod.phase).toBe('gone');
    expect(ctx.log.since(0).some((e) => e.entity === 'pod/web-0' && e.kind === 'pod.killed')).toBe(false);
  });
});
