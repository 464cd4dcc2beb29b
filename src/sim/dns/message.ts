/** DNS queries and answers as small objects; a packet that carries one holds only its numeric `id`. */

export type Rcode = 'NOERROR' | 'NXDOMAIN' | 'SERVFAIL' | 'REFUSED';
/** A records carry the answers; NS is what the forward plugin's health check asks for (`. IN NS`). */
export type RecordType = 'A' | 'NS';

export interface DnsQuery {
  /** Unique within a run: the packet path carries it and maps it back to this object. */
  readonly id: number;
  /** Lower-case, without the trailing dot; the root is '.'. */
  readonly name: string;
  readonly type: RecordType;
}

export interface DnsAnswer {
  /** Unique within a run, like a query's. */
  readonly id: number;
  /** The query this answers, as a DNS reply echoes its query's transaction id. */
  readonly queryId: number;
  readonly name: string;
  readonly type: RecordType;
  readonly rcode: Rcode;
  /** IPv4 addresses of the A records; empty for a denial, an error or NOERROR without data. */
  readonly addresses: readonly number[];
  /** Seconds the answer may be cached: the records' TTL, or the negative-caching TTL of a denial. */
  readonly ttl: number;
}

const NO_ADDRESSES: readonly number[] = Object.freeze([]);

/** Hands out message ids for one run; every component of the run shares one (through its transport). */
export class MessageIds {
  private last = 0;

  next(): number {
    return ++this.last;
  }
}

export function newQuery(ids: MessageIds, name: string, type: RecordType = 'A'): DnsQuery {
  return newNormalizedQuery(ids, normalizeName(name), type);
}

/** A query for a name already normalized, for callers that ask for the same names often. */
export function newNormalizedQuery(ids: MessageIds, name: string, type: RecordType = 'A'): DnsQuery {
  return { id: ids.next(), name, type };
}

export function newAnswer(ids: MessageIds, query: DnsQuery, rcode: Rcode, addresses: readonly number[] = NO_ADDRESSES, ttl = 0): DnsAnswer {
  return { id: ids.next(), queryId: query.id, name: query.name, type: query.type, rcode, addresses, ttl };
}

/** Lower-case and without the trailing dot, so 'Web.Default.svc.cluster.local.' and 'web.default.svc.cluster.local' are one name. */
export function normalizeName(name: string): string {
  if (name === '.' || name === '') return '.';
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** Whether a (normalized) name is at or below a zone; the root zone '.' holds every name. */
export function inZone(name: string, zone: string): boolean {
  if (zone === '.') return true;
  return name === zone || (name.length > zone.length && name.endsWith(zone) && name[name.length - zone.length - 1] === '.');
}

/** Of the zones that hold a name, the most specific, as a DNS server picks its server block; -1 if none does. */
export function closestZone(name: string, zones: readonly string[]): number {
  let best = -1;
  for (let i = 0; i < zones.length; i++) {
    const zone = zones[i]!;
    if (inZone(name, zone) && (best < 0 || zoneDepth(zone) > zoneDepth(zones[best]!))) best = i;
  }
  return best;
}

// Bounds a ZoneMatcher's memory when a server is asked for ever new names.
const ZONE_MEMO_LIMIT = 4096;

/** closestZone over fixed zones, remembered per name: a server is asked for the same few names thousands of times a second. */
export class ZoneMatcher {
  private readonly memo = new Map<string, number>();

  constructor(readonly zones: readonly string[]) {}

  closest(name: string): number {
    let zone = this.memo.get(name);
    if (zone === undefined) {
      if (this.memo.size >= ZONE_MEMO_LIMIT) this.memo.clear();
      zone = closestZone(name, this.zones);
      this.memo.set(name, zone);
    }
    return zone;
  }
}

function zoneDepth(zone: string): number {
  if (zone === '.') return 0;
  let labels = 1;
  for (let i = 0; i < zone.length; i++) if (zone.charCodeAt(i) === 46) labels++;
  return labels;
}
