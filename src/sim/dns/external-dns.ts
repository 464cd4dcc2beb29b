/**
 * external-dns: reconciles the records a provider serves with what the cluster says they should be
 * (docs/sources/dns.md#external-dns).
 */
import type { SimContext } from '../context';
import type { Counter } from '../core/metrics';
import type { HandlerId } from '../core/scheduler';
import { seconds, type Duration } from '../core/time';
import { sameRecord, type DnsProvider, type RecordChange, type RecordSet } from './dns-provider';
import { normalizeName } from './message';
import { bound } from '../core/snapshot';

export interface DesiredTarget {
  ip: number;
  /** The pod behind it got SIGTERM (its endpoint is `terminating`) but still exists. */
  terminating: boolean;
}

export interface DesiredRecord {
  name: string;
  targets: readonly DesiredTarget[];
  /** The endpoint's TTL annotation, if any. */
  ttl?: number;
}

/**
 * What the cluster says should be published, read at every run (the lead builds it from Services and pods). Report a
 * pod's address with `terminating: true` from SIGTERM until the pod object is deleted, then drop it: the
 * `removeOnTerminating` switch decides whether a terminating address is withdrawn at once or only with the pod.
 */
export type RecordSource = () => readonly DesiredRecord[];

export interface ExternalDnsOptions {
  interval: Duration;
  /** --events: informer events trigger a run soon after, rate-limited by minEventSyncInterval. */
  events: boolean;
  minEventSyncInterval: Duration;
  policy: 'sync' | 'upsert-only';
  ownerId: string;
  batchChangeSize: number;
  batchChangeInterval: Duration;
  defaultTtl: number;
  /** Withdraw an address when its pod starts terminating (true) or only when the pod is deleted (false). */
  removeOnTerminating: boolean;
}

export const EXTERNAL_DNS_DEFAULTS: ExternalDnsOptions = {
  // --interval 1m (docs/sources/dns.md#external-dns).
  interval: seconds(60),
  // --events off, --min-event-sync-interval 5s (docs/sources/dns.md#external-dns).
  events: false,
  minEventSyncInterval: seconds(5),
  // --policy sync, the historical default (docs/sources/dns.md#external-dns).
  policy: 'sync',
  // --txt-owner-id "default" (docs/sources/dns.md#external-dns).
  ownerId: 'default',
  // --aws-batch-change-size 1000, --aws-batch-change-interval 1s (docs/sources/dns.md#external-dns).
  batchChangeSize: 1000,
  batchChangeInterval: seconds(1),
  // Route 53 records get TTL 300 s when the endpoint sets none (provider/aws/aws.go, docs/sources/dns.md#external-dns).
  defaultTtl: 300,
  // Model choice: off, as in the Datadog incident, where the record went away on a later sync rather than at SIGTERM.
  removeOnTerminating: false,
};

// The controller loop wakes every second to see whether a run is due (controller.go, docs/sources/dns.md#external-dns).
const TICK = seconds(1);
// ScheduleRunOnce batches events for 5 s before running (controller/controller.go).
const EVENT_BATCH_WINDOW = seconds(5);

/**
 * The controller loop: every second it checks whether a run is due (every `interval`, or sooner after an event with
 * --events). A run lists the provider's records, plans creates, updates and (with policy sync) deletes of the records
 * it owns, and submits them in batches `batchChangeInterval` apart. A failed batch is retried one record at a time;
 * what still fails is left to the next run, which plans again from the provider's state.
 */
export class ExternalDns {
  private nextRunAt = 0;
  private lastRunAt = -Infinity;
  private readonly batches: RecordChange[][] = [];
  private running = false;
  private started = false;
  /** Bumped by stop, so the tick chain of a stopped controller ends. */
  private tickGen = 0;
  private readonly tickH: HandlerId;
  private readonly batchH: HandlerId;
  private readonly m: { runs: Counter; changes: Counter; errors: Counter };

  constructor(
    private readonly ctx: SimContext,
    private readonly provider: DnsProvider,
    private readonly source: RecordSource,
    readonly options: ExternalDnsOptions = EXTERNAL_DNS_DEFAULTS,
    private readonly entity = 'pod/external-dns',
  ) {
    this.tickH = ctx.sched.register('external-dns.tick', bound(this, this.tick));
    this.batchH = ctx.sched.register('external-dns.batch', bound(this, this.batchDue));
    const m = ctx.metrics;
    this.m = { runs: m.counter('external_dns.runs'), changes: m.counter('external_dns.changes'), errors: m.counter('external_dns.errors') };
  }

  /** Starts the loop (the controller pod is up); the first run happens at once. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.nextRunAt = this.ctx.sched.now;
    this.ctx.sched.after(seconds(0), this.tickH, this.tickGen);
  }

  /** Stops the loop (the controller pod is gone); batches not yet submitted are dropped. */
  stop(): void {
    if (!this.started) return;
    this.started = false;
    this.tickGen++;
    this.batches.length = 0;
    this.running = false;
  }

  /** An informer event (a Service or pod changed). Only heard with --events. */
  notify(): void {
    if (!this.options.events) return;
    const now = this.ctx.sched.now;
    this.nextRunAt = Math.max(this.lastRunAt + this.options.minEventSyncInterval, Math.min(now + EVENT_BATCH_WINDOW, this.nextRunAt));
  }

  /** Time of the next due run, in microseconds. */
  get nextRun(): number {
    return this.nextRunAt;
  }

  private tick(gen: number): void {
    if (gen !== this.tickGen) return;
    const now = this.ctx.sched.now;
    this.ctx.sched.after(TICK, this.tickH, gen);
    // RunOnce blocks the Go loop while it sleeps between batches, so no run starts during another.
    if (this.running || now < this.nextRunAt) return;
    this.nextRunAt = now + this.options.interval;
    this.lastRunAt = now;
    this.runOnce();
  }

  private runOnce(): void {
    this.m.runs.inc();
    const listed = this.provider.listRecordSets();
    if (!listed.ok) {
      this.m.errors.inc();
      this.ctx.note('warn', this.entity, 'external_dns.run_failed', `listing records failed: ${listed.message}`, { reason: listed.error });
      return;
    }
    const changes = this.plan(listed.value);
    if (changes.length === 0) return;
    this.ctx.note('info', this.entity, 'external_dns.apply', `applying ${changes.length} record changes`);
    for (let i = 0; i < changes.length; i += this.options.batchChangeSize) {
      this.batches.push(changes.slice(i, i + this.options.batchChangeSize));
    }
    this.running = true;
    this.submitNextBatch();
  }

  /** Creates and updates toward the desired records, and deletes of owned records no longer desired (policy sync). */
  private plan(current: readonly RecordSet[]): RecordChange[] {
    const o = this.options;
    const byName = new Map(current.map((r) => [r.name, r]));
    const desired = new Map<string, RecordSet>();
    for (const d of this.source()) {
      const addresses = d.targets.filter((t) => !(o.removeOnTerminating && t.terminating)).map((t) => t.ip);
      if (addresses.length === 0) continue;
      const name = normalizeName(d.name);
      const unique = [...new Set(addresses)].sort((a, b) => a - b);
      desired.set(name, { name, addresses: unique, ttl: d.ttl ?? o.defaultTtl, owner: o.ownerId });
    }
    const changes: RecordChange[] = [];
    for (const [name, record] of desired) {
      const existing = byName.get(name);
      if (existing === undefined) changes.push({ action: 'CREATE', record });
      else if (existing.owner === o.ownerId && !sameRecord(existing, record)) changes.push({ action: 'UPSERT', record });
    }
    if (o.policy === 'sync') {
      for (const record of current) {
        if (record.owner === o.ownerId && !desired.has(record.name)) changes.push({ action: 'DELETE', record });
      }
    }
    return changes;
  }

  private batchDue(gen: number): void {
    if (gen === this.tickGen) this.submitNextBatch();
  }

  private submitNextBatch(): void {
    const batch = this.batches.shift();
    if (batch === undefined) {
      this.running = false;
      return;
    }
    const result = this.provider.changeRecordSets(batch);
    if (result.ok) {
      this.m.changes.inc(batch.length);
    } else {
      this.ctx.note('warn', this.entity, 'external_dns.batch_failed', `change batch failed (${result.message}); retrying record by record`, {
        reason: result.error,
      });
      for (const change of batch) {
        const retried = this.provider.changeRecordSets([change]);
        if (retried.ok) this.m.changes.inc();
        else this.m.errors.inc();
      }
    }
    if (this.batches.length === 0) this.running = false;
    else this.ctx.sched.after(this.options.batchChangeInterval, this.batchH, this.tickGen);
  }
}
