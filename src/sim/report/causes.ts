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

export class CauseLog {
  /** By kind, then entity: two lookups with strings the callers already hold, so a count allocates nothing. */
  private readonly facts = new Map<string, Map<string, CauseFact>>();
  /** New connection attempts to addresses no pod held, by the deployment (or other origin) that made them. */
  private readonly attempts = new Map<number, Map<string, number>>();

  /** Counts one occurrence; `detail`, when given, replaces the stored detail (pass it only now and then). */
  record(kind: string, entity: string, now: number, detail?: Record<string, number | string>): void {
    let byEntity = this.facts.get(kind);
    if (!byEntity) this.facts.set(kind, (byEntity = new Map()));
    let fact = byEntity.get(entity);
    if (!fact) byEntity.set(entity, (fact = { kind, entity, count: 0, firstAt: now, lastAt: now, detail: {} }));
    fact.count++;
    fact.lastAt = now;
    if (detail) fact.detail = detail;
  }

  /** A connection attempt to `dst`, which no pod held, by `origin` (a deployment entity, or another entity). */
  attempt(dst: number, origin: string): void {
    let byOrigin = this.attempts.get(dst);
    if (!byOrigin) this.attempts.set(dst, (byOrigin = new Map()));
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + 1);
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
    return [...(this.attempts.get(dst) ?? new Map<string, number>())].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  }
}
