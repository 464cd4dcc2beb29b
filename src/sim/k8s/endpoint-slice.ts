import type { PodPhase } from '../api';

/** What the EndpointSlice controller reads from a pod; the Pod class satisfies it with `hostIndex = host.index`. */
export interface PodLike {
  index: number;
  ip: number;
  hostIndex: number;
  phase: PodPhase;
  ready: boolean;
}

/**
 * One endpoint of a Service, with the conditions kube-proxy filters on
 * (docs/sources/kubernetes.md#endpointslice-conditions).
 */
export interface SliceEndpoint {
  readonly ip: number;
  readonly port: number;
  readonly pod: number;
  /** Index of the node (host) the pod runs on. */
  readonly node: number;
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
}

/**
 * The endpoint a pod contributes, or null when the controller leaves it out. A pod that is starting is listed but
 * not ready; a deleted pod stays listed with ready=false, serving=its actual readiness and terminating=true until
 * it is gone (docs/sources/kubernetes.md#endpointslice-conditions).
 */
export function endpointOf(pod: PodLike, port: number): SliceEndpoint | null {
  const base = { ip: pod.ip, port, pod: pod.index, node: pod.hostIndex };
  switch (pod.phase) {
    case 'pending':
      return { ...base, ready: false, serving: false, terminating: false };
    case 'running':
      return { ...base, ready: pod.ready, serving: pod.ready, terminating: false };
    case 'terminating':
      return { ...base, ready: false, serving: pod.ready, terminating: true };
    case 'gone':
      return null;
  }
}

function sameEndpoint(a: SliceEndpoint, b: SliceEndpoint): boolean {
  return a.ip === b.ip && a.port === b.port && a.pod === b.pod && a.node === b.node && a.ready === b.ready && a.serving === b.serving && a.terminating === b.terminating;
}

/**
 * A Service's endpoints as the API holds them. Model choice: one slice per Service (the real controller splits at
 * 100 endpoints per slice, which changes nothing kube-proxy computes). The endpoint array is replaced, never
 * mutated, so a kube-proxy snapshot can keep a reference to it.
 */
export class EndpointSlice {
  endpoints: readonly SliceEndpoint[] = [];
  /** Bumped on every change a watcher would see (the object's resourceVersion). */
  version = 0;

  /** Rebuilds the slice from the pods the Service selects; true (and a new version) if anything changed. */
  update(pods: readonly PodLike[], targetPort: number): boolean {
    const next: SliceEndpoint[] = [];
    for (const pod of pods) {
      const endpoint = endpointOf(pod, targetPort);
      if (endpoint) next.push(endpoint);
    }
    const before = this.endpoints;
    if (next.length === before.length && next.every((e, i) => sameEndpoint(e, before[i]!))) return false;
    this.endpoints = next;
    this.version++;
    return true;
  }

  get readyCount(): number {
    let n = 0;
    for (const e of this.endpoints) if (e.ready) n++;
    return n;
  }
}
