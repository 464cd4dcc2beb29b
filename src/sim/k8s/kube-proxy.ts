import type { SimContext } from '../context';
import type { Counter, Histogram } from '../core/metrics';
import { micros, seconds, US_PER_MS, US_PER_S, type Duration } from '../core/time';
import { ProxierHealth, serviceHealth, type ServiceHealthResponse } from './health-check-node-port';
import { BoundedFrequencyRunner, type SyncRunnerSettings } from './kube-proxy-sync';
import { NodeRules } from './node-rules';
import type { Service } from './service';
import { jumpRulesOf, ServiceChains } from './service-chains';

/** `full`: every sync rewrites every Service's rules (before Kubernetes 1.28); `partial`: only the changed ones (1.28+). */
export type RestoreMode = 'full' | 'partial';

export interface KubeProxySettings extends SyncRunnerSettings {
  restore: RestoreMode;
  /** CPU time of a sync whatever its size, in µs. */
  syncFixedCostUs: number;
  /** CPU time per iptables rule written, in µs. */
  syncCostPerRuleUs: number;
  /** Pending changes older than this make kube-proxy unhealthy; 2 × syncPeriod when unset. */
  healthTimeout?: Duration;
  /** Syncs longer than this are logged. */
  slowSync: Duration;
  /** Services and endpoints outside the simulation whose rules every node holds too. */
  otherServices: number;
  otherEndpoints: number;
}

export const KUBE_PROXY_DEFAULTS: KubeProxySettings = {
  // kube-proxy minSyncPeriod 1 s (docs/sources/kube-proxy.md#sync-rate-limit).
  minSyncPeriod: seconds(1),
  // syncPeriod 30 s (docs/sources/kube-proxy.md#sync-rate-limit); since 1.17 (kubernetes#81517) only a vanished canary
  // chain forces a resync: use 3600 s.
  syncPeriod: seconds(30),
  // burstSyncs := 2 in pkg/proxy/iptables/proxier.go NewProxier.
  burstSyncs: 2,
  // MinimizeIPTablesRestore, GA and on by default from 1.28 (KEP-3453,
  // docs/sources/kube-proxy.md#full-and-partial-restores).
  restore: 'partial',
  // Model choice: ≈50 ms per sync of any size; a 15-endpoint node logged "syncProxyRules took 61.6ms" (kubernetes#34006).
  syncFixedCostUs: 50_000,
  // Model choice: 10 µs/rule puts 150k endpoints × 3 rules at ≈4.5 s, the "iptables runs of 4–5 s" of k8s#92836
  // (docs/sources/kube-proxy.md#full-and-partial-restores).
  syncCostPerRuleUs: 10,
  slowSync: seconds(1),
  otherServices: 0,
  otherEndpoints: 0,
};

export interface KubeProxyNode {
  name: string;
  ip: number;
}

const DURATION_BOUNDS_MS = [5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000];
const LATENCY_BOUNDS_MS = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 30000, 60000, 120000];

/**
 * kube-proxy on every node. The API's Service and EndpointSlice changes reach every node at once (`changed`); each
 * node syncs on its own rate-limited runner. A sync snapshots the API at its start, takes CPU time (a fixed cost plus
 * one per rule written), and its rules take effect in `rules` only when it ends; changes arriving meanwhile wait for
 * the next sync. Full restores write every Service's chains; partial ones the changed Services' chains plus every
 * Service's jump rules, and a full restore still happens at least once per syncPeriod (KEP-3453).
 */
export class KubeProxy {
  /** What each node's netfilter holds: the packet path's lookup, choose, masquerade and endpoint. */
  readonly rules: NodeRules;
  readonly settings: KubeProxySettings;
  private readonly services: Service[] = [];
  private readonly latest: (ServiceChains | undefined)[] = [];
  /** Per node and Service: when the first change not yet in a sync arrived; NaN when none. */
  private readonly pendingSince: number[][];
  /** Per node: the Services with a pending change. */
  private readonly dirty: number[][];
  /** Per node: the chains the running sync writes, and the pending changes it carries (Service, since). */
  private readonly writing: ServiceChains[][];
  private readonly carried: number[][];
  private readonly carriedSince: number[][];
  private readonly startedAt: Float64Array;
  private readonly rulesWritten: Float64Array;
  private readonly fullSync: Uint8Array;
  private readonly lastFullStart: Float64Array;
  private readonly slow: Uint8Array;
  private readonly runner: BoundedFrequencyRunner;
  private readonly health: ProxierHealth;
  private readonly syncs: Counter[];
  private readonly fullSyncs: Counter;
  private readonly duration: Histogram;
  private readonly latency: Histogram;
  private started = false;

  constructor(
    private readonly ctx: SimContext,
    private readonly nodes: readonly KubeProxyNode[],
    settings: Partial<KubeProxySettings> = {},
  ) {
    this.settings = { ...KUBE_PROXY_DEFAULTS, ...settings };
    const n = nodes.length;
    this.rules = new NodeRules(nodes.map((node) => node.ip));
    this.pendingSince = nodes.map(() => []);
    this.dirty = nodes.map(() => []);
    this.writing = nodes.map(() => []);
    this.carried = nodes.map(() => []);
    this.carriedSince = nodes.map(() => []);
    this.startedAt = new Float64Array(n);
    this.rulesWritten = new Float64Array(n);
    this.fullSync = new Uint8Array(n);
    this.lastFullStart = new Float64Array(n).fill(-Infinity);
    this.slow = new Uint8Array(n);
    this.health = new ProxierHealth(n, this.settings.healthTimeout ?? 2 * this.settings.syncPeriod);
    // Per-node series fold into kube_proxy.syncs{_other=true} past the metrics label cap.
    this.syncs = nodes.map((node) => ctx.metrics.counter('kube_proxy.syncs', { node: node.name }));
    this.fullSyncs = ctx.metrics.counter('kube_proxy.syncs.full');
    this.duration = ctx.metrics.histogram('kube_proxy.sync.duration_ms', DURATION_BOUNDS_MS);
    this.latency = ctx.metrics.histogram('kube_proxy.programming_latency_ms', LATENCY_BOUNDS_MS);
    this.runner = new BoundedFrequencyRunner(ctx, n, this.settings, this);
  }

  /** Registers a Service and returns its index; once programAll has run, every node queues it as a change. */
  addService(service: Service): number {
    const index = this.services.push(service) - 1;
    this.latest.push(undefined);
    for (const row of this.pendingSince) row.push(NaN);
    if (this.started) this.changed(index);
    return index;
  }

  /** Programs every node with the API's current state at once and free of cost: the steady state a run starts from. */
  programAll(): void {
    this.started = true;
    const now = this.ctx.sched.now;
    this.nodes.forEach((_, node) => {
      for (let svc = 0; svc < this.services.length; svc++) {
        this.rules.install(node, this.chainsOf(svc));
        this.pendingSince[node]![svc] = NaN;
      }
      this.dirty[node]!.length = 0;
      this.lastFullStart[node] = now;
      this.health.updated(node, NaN);
      this.runner.synced(node);
    });
  }

  /** The API changed a Service or its EndpointSlice: every node's kube-proxy queues it and asks for a sync. */
  changed(serviceIndex: number): void {
    const now = this.ctx.sched.now;
    for (let node = 0; node < this.nodes.length; node++) {
      const pending = this.pendingSince[node]!;
      if (Number.isNaN(pending[serviceIndex]!)) {
        pending[serviceIndex] = now;
        this.dirty[node]!.push(serviceIndex);
      }
      this.health.queued(node, now);
      this.runner.run(node);
    }
  }

  /** The node's healthCheckNodePort answer for a Service, from its programmed rules; null when none is served. */
  healthCheck(node: number, serviceIndex: number): ServiceHealthResponse | null {
    const chains = this.rules.chains(node, serviceIndex);
    if (!chains || chains.healthCheckNodePort === 0) return null;
    return serviceHealth(chains.localReady[node]!, this.proxyHealthy(node));
  }

  /** kube-proxy's /healthz on the node: no change has waited longer than healthTimeout. */
  proxyHealthy(node: number): boolean {
    return this.health.healthy(node, this.ctx.sched.now);
  }

  syncing(node: number): boolean {
    return this.runner.syncing(node);
  }

  /** Services with changes the node has not started writing. */
  pendingChanges(node: number): number {
    return this.dirty[node]!.length;
  }

  /** Share of the last second the node spent syncing. */
  busy(node: number): number {
    return this.runner.busy[node]!;
  }

  startSync(node: number): Duration {
    const now = this.ctx.sched.now;
    const settings = this.settings;
    const full = settings.restore === 'full' || now - this.lastFullStart[node]! >= settings.syncPeriod;
    const pending = this.pendingSince[node]!;
    const carried = this.carried[node]!;
    const carriedSince = this.carriedSince[node]!;
    for (const svc of this.dirty[node]!) {
      carried.push(svc);
      carriedSince.push(pending[svc]!);
      pending[svc] = NaN;
    }
    this.dirty[node]!.length = 0;
    const writing = this.writing[node]!;
    let rules = 0;
    // Other Services: one jump rule each on every sync; in a full one also a KUBE-SVC chain and 3 rules per endpoint,
    // the shape ServiceChains gives a ClusterIP Service.
    rules += settings.otherServices;
    if (full) {
      rules += settings.otherServices + 3 * settings.otherEndpoints;
      this.lastFullStart[node] = now;
      for (let svc = 0; svc < this.services.length; svc++) {
        const chains = this.chainsOf(svc);
        writing.push(chains);
        rules += chains.jumpRules + chains.chainRules;
      }
    } else {
      for (const service of this.services) rules += jumpRulesOf(service);
      for (const svc of carried) {
        const chains = this.chainsOf(svc);
        writing.push(chains);
        rules += chains.chainRules;
      }
    }
    this.startedAt[node] = now;
    this.rulesWritten[node] = rules;
    this.fullSync[node] = full ? 1 : 0;
    return micros(settings.syncFixedCostUs + settings.syncCostPerRuleUs * rules);
  }

  finishSync(node: number): void {
    const now = this.ctx.sched.now;
    for (const chains of this.writing[node]!) this.rules.install(node, chains);
    this.writing[node]!.length = 0;
    for (const since of this.carriedSince[node]!) this.latency.observe((now - since) / US_PER_MS);
    this.carried[node]!.length = 0;
    this.carriedSince[node]!.length = 0;
    const pending = this.pendingSince[node]!;
    let oldest = NaN;
    for (const svc of this.dirty[node]!) if (Number.isNaN(oldest) || pending[svc]! < oldest) oldest = pending[svc]!;
    this.health.updated(node, oldest);

    const took = now - this.startedAt[node]!;
    const entity = `node/${this.nodes[node]!.name}`;
    this.ctx.causes.record('kube_proxy_sync', entity, now, { tookUs: took, rules: this.rulesWritten[node]!, full: this.fullSync[node]! });
    this.syncs[node]!.inc();
    if (this.fullSync[node]) this.fullSyncs.inc();
    this.duration.observe(took / US_PER_MS);
    this.noteSpeed(node, took);
  }

  /** Logs when a node's syncs start taking longer than `slowSync`, and when they stop, rather than every slow sync. */
  private noteSpeed(node: number, took: number): void {
    const slow = took > this.settings.slowSync;
    if (slow === (this.slow[node] === 1)) return;
    this.slow[node] = slow ? 1 : 0;
    const entity = `node/${this.nodes[node]!.name}`;
    const secondsTaken = (took / US_PER_S).toFixed(2);
    if (slow) {
      const kind = this.fullSync[node] ? 'full' : 'partial';
      const rules = this.rulesWritten[node];
      const message = `kube-proxy ${kind} sync of ${rules} rules took ${secondsTaken} s; Service changes wait behind it`;
      this.ctx.note('warn', entity, 'kube_proxy.sync.slow', message);
    } else {
      const message = `kube-proxy syncs back under ${this.settings.slowSync / US_PER_S} s (${secondsTaken} s)`;
      this.ctx.note('info', entity, 'kube_proxy.sync.fast', message);
    }
  }

  private chainsOf(svc: number): ServiceChains {
    const service = this.services[svc]!;
    let chains = this.latest[svc];
    if (!chains || !chains.current(service)) {
      chains = new ServiceChains(svc, service, this.nodes.length);
      this.latest[svc] = chains;
    }
    return chains;
  }
}
