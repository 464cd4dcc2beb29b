import type { Counter, Gauge } from '../core/metrics';
import { US_PER_S, type SimTime } from '../core/time';
import { newAnswer, type DnsAnswer, type DnsQuery, type MessageIds, type Rcode, type RecordType } from './message';

/** The CoreDNS cache plugin's knobs, in seconds and entries. */
export interface CacheSettings {
  successCapacity: number;
  /** Upper bound on how long a NOERROR answer with data is kept; a shorter record TTL is kept as is. */
  successTtl: number;
  denialCapacity: number;
  /** Upper bound for NXDOMAIN and NOERROR-without-data answers. */
  denialTtl: number;
  /** A TTL below this is raised to it. */
  minTtl: number;
  /** How long an upstream SERVFAIL is kept; 0 disables. */
  servfailTtl: number;
}

// Cache plugin defaults: 9984 entries per type, max TTL 3600 s / 1800 s denial, min TTL 5 s, SERVFAIL 5 s
// (docs/sources/dns.md#cache-plugin).
export const CACHE_PLUGIN_DEFAULTS: CacheSettings = {
  successCapacity: 9984,
  successTtl: 3600,
  denialCapacity: 9984,
  denialTtl: 1800,
  minTtl: 5,
  servfailTtl: 5,
};

/** `cache TTL`: both success and denial capped at TTL seconds (docs/sources/dns.md#cache-plugin). */
export function cacheCappedAt(ttl: number): CacheSettings {
  return { ...CACHE_PLUGIN_DEFAULTS, successTtl: ttl, denialTtl: ttl };
}

// NodeLocal DNSCache's cluster zone: `cache { success 9984 30; denial 9984 5 }`
// (docs/sources/dns.md#nodelocal-dnscache).
export const NODELOCAL_CLUSTER_ZONE_CACHE: CacheSettings = { ...CACHE_PLUGIN_DEFAULTS, successTtl: 30, denialTtl: 5 };

export interface CacheInstruments {
  hits: Counter;
  misses: Counter;
  entries: Gauge;
}

interface Entry {
  rcode: Rcode;
  addresses: readonly number[];
  storedAt: number;
  ttlUs: number;
  /** Order of storing within its table, to find the oldest across record types. */
  seq: number;
}

/** A success or denial table: one map per record type, so lookups build no key, with insertion order kept across them. */
export class Table {
  private readonly a = new Map<string, Entry>();
  private readonly ns = new Map<string, Entry>();
  private seq = 0;

  get size(): number {
    return this.a.size + this.ns.size;
  }

  get(type: RecordType, name: string): Entry | undefined {
    return (type === 'A' ? this.a : this.ns).get(name);
  }

  set(type: RecordType, name: string, entry: Entry): void {
    entry.seq = this.seq++;
    (type === 'A' ? this.a : this.ns).set(name, entry);
  }

  delete(type: RecordType, name: string): boolean {
    return (type === 'A' ? this.a : this.ns).delete(name);
  }

  /** Removes the entry stored first; false when empty. */
  deleteOldest(): boolean {
    const firstA = this.a.entries().next();
    const firstNs = this.ns.entries().next();
    if (firstA.done && firstNs.done) return false;
    if (firstNs.done || (!firstA.done && firstA.value[1].seq < firstNs.value[1].seq)) this.a.delete(firstA.value![0]);
    else this.ns.delete(firstNs.value[0]);
    return true;
  }

  clear(): void {
    this.a.clear();
    this.ns.clear();
  }
}

/**
 * One cache plugin instance: a success cache and a denial cache keyed by (type, name). Entries live
 * clamp(record TTL, minTtl, cap) seconds and are served with the TTL they have left. Only answers that came from
 * upstream are stored: an error the forward plugin makes up itself (its SERVFAIL after giving up, its REFUSED over
 * max_concurrent) is written past the cache, as CoreDNS writes a plugin's error rcode on the original writer.
 */
export class DnsCache {
  private readonly success = new Table();
  private readonly denial = new Table();

  constructor(
    readonly settings: CacheSettings,
    private readonly instruments: CacheInstruments,
  ) {}

  get size(): number {
    return this.success.size + this.denial.size;
  }

  /** The cached answer to this query with its remaining TTL, or undefined on a miss. */
  lookup(ids: MessageIds, query: DnsQuery, now: SimTime): DnsAnswer | undefined {
    const entry = this.success.get(query.type, query.name) ?? this.denial.get(query.type, query.name);
    if (entry !== undefined) {
      const leftUs = entry.storedAt + entry.ttlUs - now;
      if (leftUs > 0) {
        this.instruments.hits.inc();
        return newAnswer(ids, query, entry.rcode, entry.addresses, Math.ceil(leftUs / US_PER_S));
      }
      this.remove(query.type, query.name);
    }
    this.instruments.misses.inc();
    return undefined;
  }

  /** Keeps an upstream answer for as long as the settings allow; REFUSED is never kept. */
  store(answer: DnsAnswer, now: SimTime): void {
    const s = this.settings;
    let ttl: number;
    let table: Table;
    let capacity: number;
    if (answer.rcode === 'NOERROR' && answer.addresses.length > 0) {
      ttl = clampTtl(answer.ttl, s.minTtl, s.successTtl);
      table = this.success;
      capacity = s.successCapacity;
    } else if (answer.rcode === 'NXDOMAIN' || answer.rcode === 'NOERROR') {
      ttl = clampTtl(answer.ttl, s.minTtl, s.denialTtl);
      table = this.denial;
      capacity = s.denialCapacity;
    } else if (answer.rcode === 'SERVFAIL' && s.servfailTtl > 0) {
      ttl = s.servfailTtl;
      table = this.denial;
      capacity = s.denialCapacity;
    } else {
      return;
    }
    this.remove(answer.type, answer.name);
    // Model choice: a full cache evicts its oldest entry; CoreDNS evicts a random entry of the key's shard.
    if (table.size >= capacity && table.deleteOldest()) this.instruments.entries.add(-1);
    table.set(answer.type, answer.name, { rcode: answer.rcode, addresses: answer.addresses, storedAt: now, ttlUs: ttl * US_PER_S, seq: 0 });
    this.instruments.entries.add(1);
  }

  /** Empties the cache, as a restarted process starts cold. */
  clear(): void {
    this.instruments.entries.add(-this.size);
    this.success.clear();
    this.denial.clear();
  }

  /** A key is in at most one of the tables: storing removes it first. */
  private remove(type: RecordType, name: string): void {
    if (this.success.delete(type, name) || this.denial.delete(type, name)) this.instruments.entries.add(-1);
  }
}

function clampTtl(ttl: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, ttl));
}
