import { formatCount } from '../core/format';
import type { SimContext } from '../context';
import type { EnvoyParams } from './envoy-params';
import type { Counter } from '../core/metrics';
import { seconds } from '../core/time';
import type { MeshServers } from './mesh-server';
import { diffListings } from './listing';
import { tryBackend, type MeshProxy, type Outcome } from './outcome';
import type { Registration } from './zookeeper';

interface HostHealth {
  failures: number;
  ejectedUntil: number;
  ejections: number;
}

/** Every client pod's Envoy: the shared instruments. */
export class Envoys {
  readonly ejections: Counter;

  constructor(
    readonly ctx: SimContext,
    readonly servers: MeshServers,
    readonly settings: EnvoyParams,
  ) {
    this.ejections = ctx.metrics.counter('envoy.ejections');
  }

  create(): Envoy {
    return new Envoy(this);
  }
}

/**
 * Envoy in a client pod: its xDS shim pushes each new backend list as cluster membership (EDS), which takes effect
 * without a restart or a second process (docs/sources/service-discovery.md#envoy-eds). A connect failure is retried on
 * another host, and outlier detection ejects a host after consecutive failures for base_ejection_time × the times it
 * was ejected, never more than max_ejection_percent of the cluster at once.
 */
export class Envoy implements MeshProxy {
  readonly kind = 'envoy';
  private readonly hosts = new Map<string, readonly Registration[]>();
  private readonly health = new Map<string, HostHealth>();
  private readonly cursor = new Map<string, number>();
  private hostCount = 0;

  constructor(private readonly all: Envoys) {}

  startWith(lists: ReadonlyMap<string, readonly Registration[]>): void {
    for (const [service, list] of lists) this.update(service, list);
  }

  update(service: string, list: readonly Registration[]): void {
    const before = this.hosts.get(service) ?? [];
    if (before === list) return;
    this.hostCount += list.length - before.length;
    this.hosts.set(service, list);
    // A host that leaves the cluster takes its outlier state with it.
    if (this.health.size > 0) diffListings(before, list, { removed: (r) => this.health.delete(r.name) });
  }

  forward(service: string): Outcome {
    const e = this.all.settings;
    const outcome: Outcome = { backend: null, failure: null, connectMs: 0, goneAttempts: 0, gone: null };
    const tried = new Set<Registration>();
    for (let attempt = 0; attempt <= e.retries; attempt++) {
      const host = this.pick(service, tried);
      if (!host) {
        outcome.failure ??= attempt === 0 ? 'no_server' : 'connect_failed';
        return outcome;
      }
      tried.add(host);
      const result = tryBackend(this.all.servers, host, e.connectTimeoutMs);
      outcome.connectMs += result.costMs;
      if (result.server) {
        this.healthOf(host.name).failures = 0;
        outcome.backend = result.server;
        return outcome;
      }
      if (result.gone) {
        outcome.goneAttempts++;
        outcome.gone ??= host;
      }
      this.failed(service, host.name);
    }
    outcome.failure = 'connect_failed';
    return outcome;
  }

  describe(): [string, string][] {
    const now = this.all.ctx.sched.now;
    let ejected = 0;
    for (const h of this.health.values()) if (h.ejectedUntil > now) ejected++;
    return [
      ['hosts', formatCount(this.hostCount)],
      ['ejected by outlier detection', formatCount(ejected)],
    ];
  }

  memoryMb(): number {
    const e = this.all.settings;
    return e.memoryBaseMb + (e.memoryPerHostKb * this.hostCount) / 1024;
  }

  stop(): void {
    this.hosts.clear();
  }

  private healthOf(name: string): HostHealth {
    let h = this.health.get(name);
    if (!h) this.health.set(name, (h = { failures: 0, ejectedUntil: 0, ejections: 0 }));
    return h;
  }

  /** A connect failure counts as a locally originated 5xx (split_external_local_origin_errors is off by default). */
  private failed(service: string, name: string): void {
    const e = this.all.settings;
    const h = this.healthOf(name);
    h.failures++;
    if (h.failures < e.consecutiveFailures) return;
    h.failures = 0;
    const now = this.all.ctx.sched.now;
    const list = this.hosts.get(service) ?? [];
    const ejected = list.filter((r) => (this.health.get(r.name)?.ejectedUntil ?? 0) > now).length;
    if (ejected + 1 > (list.length * e.maxEjectionPercent) / 100) return;
    h.ejections++;
    h.ejectedUntil = now + seconds(e.baseEjectionS * h.ejections);
    this.all.ejections.inc();
  }

  /** Round robin over hosts not ejected and not yet tried by this request (the previous_hosts retry predicate). */
  private pick(service: string, tried: ReadonlySet<Registration>): Registration | null {
    const list = this.hosts.get(service);
    if (!list || list.length === 0) return null;
    const now = this.all.ctx.sched.now;
    const start = this.cursor.get(service) ?? 0;
    for (let i = 0; i < list.length; i++) {
      const r = list[(start + i) % list.length]!;
      if (tried.has(r) || (this.health.get(r.name)?.ejectedUntil ?? 0) > now) continue;
      this.cursor.set(service, (start + i + 1) % list.length);
      return r;
    }
    return null;
  }
}
