/** maxSurge / maxUnavailable as a Deployment spells them: a count or a percentage of replicas. */
export type IntOrPercent = number | `${number}%`;

/**
 * A percentage of replicas as a count: maxSurge rounds up, maxUnavailable rounds down
 * (k8s.io/kubernetes pkg/controller/deployment/util ResolveFenceposts); both zero would stall, so maxUnavailable is 1.
 */
export function resolveFenceposts(maxSurge: IntOrPercent, maxUnavailable: IntOrPercent, replicas: number): { surge: number; unavailable: number } {
  const count = (v: IntOrPercent, roundUp: boolean) => {
    if (typeof v === 'number') return v;
    const exact = (Number.parseFloat(v) / 100) * replicas;
    return roundUp ? Math.ceil(exact) : Math.floor(exact);
  };
  const surge = count(maxSurge, true);
  const unavailable = count(maxUnavailable, false);
  return { surge, unavailable: surge === 0 && unavailable === 0 ? 1 : unavailable };
}

export interface RolloutState {
  replicas: number;
  surge: number;
  unavailable: number;
  /** Pods of the current template that are not terminating, and how many of them are Ready. */
  newActive: number;
  newReady: number;
  /** Pods of older templates that are not terminating, and how many of them are Ready (old unready ones go first). */
  oldActive: number;
  oldReady: number;
}

/**
 * One pass of the Deployment controller's RollingUpdate strategy (pkg/controller/deployment/rolling.go): scale the
 * new ReplicaSet up as far as replicas + maxSurge allows; remove old pods that are not Ready as far as
 * `allPods − minAvailable − new unavailable` allows (cleanupUnhealthyReplicas), then Ready old pods as far as keeping
 * replicas − maxUnavailable available allows.
 */
export function planRollout(s: RolloutState): { create: number; removeUnready: number; removeReady: number } {
  const total = s.newActive + s.oldActive;
  const create = Math.max(0, Math.min(s.replicas + s.surge - total, s.replicas - s.newActive));
  const minAvailable = s.replicas - s.unavailable;
  const maxScaledDown = total - minAvailable - (s.newActive - s.newReady);
  if (s.oldActive === 0 || maxScaledDown <= 0) return { create, removeUnready: 0, removeReady: 0 };
  const removeUnready = Math.min(s.oldActive - s.oldReady, maxScaledDown);
  const removeReady = Math.max(0, Math.min(s.oldReady, s.newReady + s.oldReady - minAvailable));
  return { create, removeUnready, removeReady };
}
