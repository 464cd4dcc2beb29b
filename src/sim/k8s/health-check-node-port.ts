/** The JSON a kube-proxy healthCheckNodePort server answers with (pkg/proxy/healthcheck/service_health.go). */
export interface ServiceHealthResponse {
  status: 200 | 503;
  localEndpoints: number;
  serviceProxyHealthy: boolean;
}

/**
 * 200 iff the node has a ready local endpoint and its kube-proxy is healthy, else 503
 * (docs/sources/kube-proxy.md#healthchecknodeport, #test-vectors, vector 2).
 */
export function serviceHealth(localEndpoints: number, serviceProxyHealthy: boolean): ServiceHealthResponse {
  return { status: localEndpoints > 0 && serviceProxyHealthy ? 200 : 503, localEndpoints, serviceProxyHealthy };
}

/**
 * kube-proxy's own health (pkg/proxy/healthcheck/proxier_health.go): unhealthy while a queued update has waited
 * longer than healthTimeout for a sync to apply it; healthy while starting or fully synced.
 * Model choice: an update queued during a sync stays queued after it (the real server clears every queued update
 * when any sync ends), so a node that keeps falling behind shows it.
 */
export class ProxierHealth {
  /** Time of the oldest update not yet applied, per node; NaN when none. */
  private readonly oldestQueued: Float64Array;

  constructor(
    nodeCount: number,
    readonly healthTimeout: number,
  ) {
    this.oldestQueued = new Float64Array(nodeCount).fill(NaN);
  }

  /** QueuedUpdate(): the proxier saw a change it has not written yet. */
  queued(node: number, now: number): void {
    if (Number.isNaN(this.oldestQueued[node]!)) this.oldestQueued[node] = now;
  }

  /** Updated(): a sync finished; `stillQueuedSince` is the oldest change it did not include (NaN if none). */
  updated(node: number, stillQueuedSince: number): void {
    this.oldestQueued[node] = stillQueuedSince;
  }

  healthy(node: number, now: number): boolean {
    const since = this.oldestQueued[node]!;
    return Number.isNaN(since) || now - since < this.healthTimeout;
  }
}
