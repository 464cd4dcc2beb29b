import { hashString } from '../core/rng';

export type ProxyKind = 'haproxy' | 'envoy';

// A fixed seed, not the run's: the choice must be the same in every run and after every restart of a pod.
const CHOICE_SEED = 0x5d_c0;
const BUCKETS = 10_000;

/** The pod's bucket in [0, 100): a stable function of its name alone, in steps of 0.01. */
export function rolloutBucket(podName: string): number {
  return (hashString(podName, CHOICE_SEED) % BUCKETS) / (BUCKETS / 100);
}

/**
 * What the init container decides for a pod as it starts: Envoy when the pod's bucket falls under the rollout
 * percentage, HAProxy otherwise or whenever the kill switch is on. A pod that restarts under the same name gets the same
 * answer, so a percentage means the same pods in every run.
 */
export function chooseProxy(podName: string, envoyPercent: number, killSwitch: boolean): ProxyKind {
  if (killSwitch) return 'haproxy';
  return rolloutBucket(podName) < envoyPercent ? 'envoy' : 'haproxy';
}
