import type { SeriesChunk } from '../worker/protocol';

/**
 * The newest `capacity` samples of every series, indexed by absolute sample number. Mutated in place by the
 * frame store; readers watch the store's `seriesVersion` to know when to redraw.
 */
export class SeriesBuffer {
  stepSeconds = 1;
  private readonly rings = new Map<string, Float64Array>();
  /** The ring of each row of a chunk, in the order of the latest names the stream sent. */
  private rows: Float64Array[] = [];
  /** Rings of series the latest names leave out: they read NaN for every new sample. */
  private absent: Float64Array[] = [];
  private sorted: readonly string[] | null = null;
  private first = 0;
  private next = 0;

  constructor(readonly capacity = 900) {}

  /** Forgets every series and sample, and the names a chunk's rows stand for. */
  clear(): void {
    this.rings.clear();
    this.rows = [];
    this.absent = [];
    this.sorted = null;
    this.first = 0;
    this.next = 0;
  }

  append(chunk: SeriesChunk): void {
    if (chunk.names) this.layOut(chunk.names);
    if (chunk.count === 0) return;
    this.stepSeconds = chunk.stepSeconds;
    if (chunk.from !== this.next) {
      // A gap (the sim's own ring dropped samples) or a restart: keep only what lines up.
      if (chunk.from < this.next || chunk.from - this.next >= this.capacity) this.restart(chunk.from);
      for (const ring of this.rings.values()) {
        for (let k = this.next; k < chunk.from; k++) ring[k % this.capacity] = Number.NaN;
      }
      if (this.next === 0 && this.first === 0) this.first = chunk.from;
    }
    const { count, from, values } = chunk;
    for (let i = 0; i < this.rows.length; i++) {
      const ring = this.rows[i]!;
      for (let k = 0; k < count; k++) ring[(from + k) % this.capacity] = values[i * count + k] ?? Number.NaN;
    }
    for (const ring of this.absent) {
      for (let k = 0; k < count; k++) ring[(from + k) % this.capacity] = Number.NaN;
    }
    this.next = from + count;
    this.first = Math.max(this.first, this.next - this.capacity);
  }

  /** Points each row of the coming chunks at its series' ring, made for series new to this buffer. */
  private layOut(names: readonly string[]): void {
    const listed = new Set(names);
    this.rows = names.map((name) => {
      let ring = this.rings.get(name);
      if (!ring) {
        // A series that appears later has no values for the samples before it.
        ring = new Float64Array(this.capacity).fill(Number.NaN);
        this.rings.set(name, ring);
        this.sorted = null;
      }
      return ring;
    });
    this.absent = [...this.rings].filter(([name]) => !listed.has(name)).map(([, ring]) => ring);
  }

  /** Drops every sample, keeping only the series the current rows stand for, from sample `from` on. */
  private restart(from: number): void {
    const kept = new Set(this.rows);
    for (const [name, ring] of this.rings) {
      if (kept.has(ring)) ring.fill(Number.NaN);
      else this.rings.delete(name);
    }
    this.absent = [];
    this.sorted = null;
    this.first = from;
    this.next = from;
  }

  has(name: string): boolean {
    return this.rings.has(name);
  }

  /** Every series name, sorted; the same array until a series is added. */
  names(): readonly string[] {
    this.sorted ??= [...this.rings.keys()].sort();
    return this.sorted;
  }

  /** Absolute index of the oldest held sample. */
  start(): number {
    return this.first;
  }

  /** One past the newest sample. */
  end(): number {
    return this.next;
  }

  /** Value of `name` at absolute sample `k`, NaN when not held or not recorded. */
  value(name: string, k: number): number {
    const ring = this.rings.get(name);
    if (!ring || k < this.first || k >= this.next) return Number.NaN;
    return ring[k % this.capacity] ?? Number.NaN;
  }

  /** The sum of `name`'s recorded values over every held sample; 0 when it has none. */
  total(name: string): number {
    const ring = this.rings.get(name);
    let sum = 0;
    if (!ring) return sum;
    for (let k = this.first; k < this.next; k++) {
      const v = ring[k % this.capacity]!;
      if (Number.isFinite(v)) sum += v;
    }
    return sum;
  }
}
