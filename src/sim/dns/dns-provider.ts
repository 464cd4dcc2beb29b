/**
 * A Route 53-like DNS provider: authoritative A records with TTLs, a rate-limited change API, propagation
 * (docs/sources/dns.md#route-53).
 */
import type { SimContext } from '../context';
import type { Counter } from '../core/metrics';
import type { HandlerId } from '../core/scheduler';
import { seconds, type Duration } from '../core/time';
import { PpsAllowance } from '../infra/pps-allowance';
import { closestZone, newAnswer, normalizeName, type DnsQuery } from './message';
import type { DnsServer, DnsTransport } from './transport';
import { bound } from '../core/snapshot';

export interface RecordSet {
  name: string;
  addresses: readonly number[];
  ttl: number;
  /** The external-dns instance that owns it (its TXT registry record), or null for records made by hand. */
  owner: string | null;
}

export type ChangeAction = 'CREATE' | 'UPSERT' | 'DELETE';

export interface RecordChange {
  action: ChangeAction;
  record: RecordSet;
}

export type ChangeStatus = 'PENDING' | 'INSYNC';

export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: 'Throttling' | 'InvalidChangeBatch'; message: string };

export interface DnsProviderOptions {
  /** Hosted zones it answers for; names outside them get REFUSED. '.' answers for every name. */
  zones: readonly string[];
  /** TTL of NXDOMAIN answers (the zone's SOA negative-caching TTL). */
  negativeTtl: number;
  /** Time from an accepted change to its being served (PENDING → INSYNC). */
  propagationDelay: Duration;
  /** API token bucket: refill per second and bucket size; every call takes a token. */
  apiRatePerSecond: number;
  apiBurst: number;
  maxChangesPerBatch: number;
  /** Record sets per page of a listing; each page is one API call. */
  listPageSize: number;
}

export const ROUTE53_DEFAULTS: DnsProviderOptions = {
  zones: ['.'],
  // Model choice: Route 53's default SOA (TTL 900 s, minimum 86400 s) caches denials for the smaller, 900 s (RFC 2308).
  negativeTtl: 900,
  // Model choice: changes are served at once; set a delay to model PENDING → INSYNC propagation
  // (docs/sources/dns.md#route-53).
  propagationDelay: seconds(0),
  // Route 53 throttling as a token bucket of 50 refilled at 10/s (docs/sources/dns.md#route-53; historically 5
  // requests/s).
  apiRatePerSecond: 10,
  apiBurst: 50,
  // ChangeResourceRecordSets takes at most 1000 ResourceRecord elements (docs/sources/dns.md#route-53).
  maxChangesPerBatch: 1000,
  // Model choice: ListResourceRecordSets pages of 300 record sets (the API's MaxItems limit), one token each.
  listPageSize: 300,
};

/**
 * The provider keeps two copies of its records: `committed`, what the API has accepted (and lists), and `served`,
 * what its name servers answer with, which catches up after the propagation delay. Change batches are
 * all-or-nothing. As a DnsServer it answers A queries authoritatively with the record's own TTL.
 */
export class DnsProvider implements DnsServer {
  private readonly committed = new Map<string, RecordSet>();
  private readonly served = new Map<string, RecordSet>();
  private readonly changes: { batch: readonly RecordChange[]; status: ChangeStatus }[] = [];
  private readonly tokens: PpsAllowance;
  private readonly syncH: HandlerId;
  private readonly m: { apiCalls: Counter; throttled: Counter; queries: Counter; changes: Counter };

  constructor(
    private readonly ctx: SimContext,
    private readonly transport: DnsTransport,
    readonly options: DnsProviderOptions = ROUTE53_DEFAULTS,
    readonly entity = 'provider/route53',
  ) {
    this.tokens = new PpsAllowance(options.apiRatePerSecond, options.apiBurst);
    this.syncH = ctx.sched.register('dns.provider.insync', bound(this, this.applyServed));
    const m = ctx.metrics;
    this.m = {
      apiCalls: m.counter('dns.provider.api_calls'),
      throttled: m.counter('dns.provider.throttled'),
      queries: m.counter('dns.provider.queries'),
      changes: m.counter('dns.provider.changes'),
    };
  }

  /** ListResourceRecordSets over every page; throttled if any page finds no token. */
  listRecordSets(): ApiResult<RecordSet[]> {
    const pages = Math.max(1, Math.ceil(this.committed.size / this.options.listPageSize));
    for (let i = 0; i < pages; i++) if (!this.admit()) return throttled();
    return { ok: true, value: [...this.committed.values()] };
  }

  /** ChangeResourceRecordSets: applies every change or none; returns the change id to poll with getChange. */
  changeRecordSets(batch: readonly RecordChange[]): ApiResult<number> {
    if (!this.admit()) return throttled();
    if (batch.length > this.options.maxChangesPerBatch) {
      return invalid(`${batch.length} changes exceed the limit of ${this.options.maxChangesPerBatch}`);
    }
    const seen = new Map<string, RecordSet | null>();
    for (const change of batch) {
      const name = normalizeName(change.record.name);
      const current = seen.has(name) ? seen.get(name)! : (this.committed.get(name) ?? null);
      if (change.action === 'CREATE' && current !== null) return invalid(`${name} already exists`);
      if (change.action === 'DELETE' && (current === null || !sameRecord(current, change.record))) {
        return invalid(`${name} does not exist with the values given`);
      }
      seen.set(name, change.action === 'DELETE' ? null : change.record);
    }
    applyTo(this.committed, batch);
    this.m.changes.inc(batch.length);
    const id = this.changes.push({ batch, status: 'PENDING' }) - 1;
    if (this.options.propagationDelay > 0) this.ctx.sched.after(this.options.propagationDelay, this.syncH, id);
    else this.applyServed(id);
    return { ok: true, value: id };
  }

  getChange(id: number): ChangeStatus {
    return this.changes[id]!.status;
  }

  /** What the name servers answer for a name now. */
  servedRecord(name: string): RecordSet | undefined {
    return this.served.get(normalizeName(name));
  }

  onQuery(exchange: number, query: DnsQuery): void {
    this.m.queries.inc();
    const ids = this.transport.ids;
    if (closestZone(query.name, this.options.zones) < 0) {
      this.transport.respond(exchange, newAnswer(ids, query, 'REFUSED'));
      return;
    }
    const record = this.served.get(query.name);
    if (record === undefined) {
      this.transport.respond(exchange, newAnswer(ids, query, 'NXDOMAIN', [], this.options.negativeTtl));
      return;
    }
    const addresses = query.type === 'A' ? record.addresses : [];
    this.transport.respond(exchange, newAnswer(ids, query, 'NOERROR', addresses, record.ttl));
  }

  private applyServed(id: number): void {
    const change = this.changes[id]!;
    applyTo(this.served, change.batch);
    change.status = 'INSYNC';
  }

  private admit(): boolean {
    this.m.apiCalls.inc();
    if (this.tokens.admit(this.ctx.sched.now)) return true;
    this.m.throttled.inc();
    this.ctx.note('debug', this.entity, 'dns.provider.throttled', 'API call throttled: Rate exceeded', { reason: 'api_rate_limit' });
    return false;
  }
}

function applyTo(records: Map<string, RecordSet>, batch: readonly RecordChange[]): void {
  for (const change of batch) {
    const name = normalizeName(change.record.name);
    if (change.action === 'DELETE') records.delete(name);
    else records.set(name, { ...change.record, name });
  }
}

export function sameRecord(a: RecordSet, b: RecordSet): boolean {
  if (a.ttl !== b.ttl || a.addresses.length !== b.addresses.length) return false;
  const x = [...a.addresses].sort((p, q) => p - q);
  const y = [...b.addresses].sort((p, q) => p - q);
  return x.every((v, i) => v === y[i]);
}

function throttled(): ApiResult<never> {
  return { ok: false, error: 'Throttling', message: 'Rate exceeded' };
}

function invalid(message: string): ApiResult<never> {
  return { ok: false, error: 'InvalidChangeBatch', message };
}
