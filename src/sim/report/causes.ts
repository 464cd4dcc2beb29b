/**
 * Facts the mechanisms record as they go, for the "why" chains: how often something happened at an entity, and the
 * latest detail of it. Counting allocates nothing after an (kind, entity) pair's first occurrence.
 */
export interface CauseFact {
  kind: string;
  entity: string;
  count: number;
  firstAt: number;
  lastAt: number;
  /** Numbers or words about the latest occurrence, e.g. the busiest destination of a full table. */
  detail: Record<string, number | string>;
}

/** Distinct origins of connection attempts a run can name (deployments, nodes, elements, bare addresses). */
const ORIGINS = 1 << 20;
/** Where origins beyond ORIGINS are counted together. */
const OTHER_ORIGINS = 'other origins';

export class CauseLog {
  /** By kind, then entity: two lookups with strings the callers already hold, so a count allocates nothing. */
  private readonly facts = new Map<string, Map<string, CauseFact>>();
  /** New connection attempts to addresses no pod held, by destination × ORIGINS + origin number. */
  private readonly attempts = new Map<number, number>();
  /** Origins (deployment entities and others) by number, in order of first attempt. */
  private readonly origins: string[] = [];
  private readonly originIds = new Map<string, number>();

  /** Counts one occurrence; `detail`, when given, replaces the stored detail (pass it only now and then). */
  record(kind: string, entity: string, now: number, detail?: Record<string, number | string>): void {
    const fact = this.fact(kind, entity, now);
    fact.count++;
    fact.lastAt = now;
    if (detail) fact.detail = detail;
  }

  /** The fact of a (kind, entity) pair, made at its first occurrence: a hot path may keep it and count on it directly. */
  fact(kind: string, entity: string, now: number): CauseFact {
    let byEntity = this.facts.get(kind);
    if (!byEntity) this.facts.set(kind, (byEntity = new Map()));
    let fact = byEntity.get(entity);
    if (!fact) byEntity.set(entity, (fact = { kind, entity, count: 0, firstAt: now, lastAt: now, detail: {} }));
    return fact;
  }

  /** A connection attempt to `dst`, which no pod held, by `origin` (a deployment entity, or another entity). */
  attempt(dst: number, origin: string): void {
    let id = this.originIds.get(origin);
    if (id === undefined) {
      if (this.origins.length === ORIGINS - 1) this.origins.push(OTHER_ORIGINS);
      id = this.origins.length < ORIGINS ? this.origins.push(origin) - 1 : ORIGINS - 1;
      this.originIds.set(origin, id);
    }
    const key = (dst >>> 0) * ORIGINS + id;
    this.attempts.set(key, (this.attempts.get(key) ?? 0) + 1);
  }

  /** Facts of one kind, most frequent first. */
  of(kind: string): CauseFact[] {
    return [...(this.facts.get(kind)?.values() ?? [])].sort((a, b) => b.count - a.count || a.entity.localeCompare(b.entity));
  }

  find(kind: string, entity: string): CauseFact | undefined {
    return this.facts.get(kind)?.get(entity);
  }

  /** Who tried to connect to `dst`, most attempts first. */
  attemptsTo(dst: number): [string, number][] {
    const out: [string, number][] = [];
    this.origins.forEach((origin, id) => {
      const n = this.attempts.get((dst >>> 0) * ORIGINS + id);
      if (n) out.push([origin, n]);
    });
    return out.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  }
}
