import type { LogEvent } from '../api';

/**
 * Bounded log of notable events. Keeps the latest `capacity` events for the UI and the report, and
 * counts every event ever added by kind, so totals stay exact after old events are dropped.
 */
export class EventLog {
  private readonly ring: (LogEvent | undefined)[];
  private added = 0;
  private readonly kinds = new Map<string, number>();

  constructor(readonly capacity = 2000) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`EventLog capacity must be a positive integer, got ${capacity}`);
    }
    this.ring = new Array<LogEvent | undefined>(capacity).fill(undefined);
  }

  /** Appends an event; its seq is the number of events added before it. */
  add(e: Omit<LogEvent, 'seq'>): LogEvent {
    const event: LogEvent = { ...e, seq: this.added };
    this.ring[this.added % this.capacity] = event;
    this.added++;
    this.kinds.set(e.kind, (this.kinds.get(e.kind) ?? 0) + 1);
    return event;
  }

  /** Events ever added, including those no longer held. */
  get total(): number {
    return this.added;
  }

  /** Held events with seq >= the given one, oldest first. */
  since(seq: number): LogEvent[] {
    const oldest = Math.max(0, this.added - this.capacity);
    const start = Math.max(oldest, Math.ceil(seq) || 0);
    const out: LogEvent[] = [];
    for (let s = start; s < this.added; s++) out.push(this.ring[s % this.capacity]!);
    return out;
  }

  /** Counts over every event ever added, keys sorted. */
  countsByKind(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const kind of [...this.kinds.keys()].sort()) out[kind] = this.kinds.get(kind)!;
    return out;
  }
}
