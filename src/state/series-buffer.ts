import type { SeriesChunk } from '../worker/protocol';

/**
 * The newest `capacity` samples of every series, indexed by absolute sample number. Mutated in place by the
 * frame store; readers watch the store's `seriesVersion` to know when to redraw.
 */
export class SeriesBuffer {
  stepSeconds = 1;
  private readonly rings = new Map<string, Float64Array>();
  private first = 0;
  private next = 0;

  constructor(readonly capacity = 900) {}

  clear(): void {
    this.rings.clear();
    this.first = 0;
    this.next = 0;
  }

  append(chunk: SeriesChunk): void {
    if (chunk.count === 0) return;
    this.stepSeconds = chunk.stepSeconds;
    if (chunk.from !== this.next) {
      // A gap (the sim's own ring dropped samples) or a restart: keep only what lines up.
      if (chunk.from < this.next || chunk.from - this.next >= this.capacity) this.clear();
      for (const ring of this.rings.values()) {
        for (let k = this.next; k < chunk.from; k++) ring[k % this.capacity] = Number.NaN;
      }
      if (this.rings.size === 0) this.first = chunk.from;
    }
    chunk.names.forEach((name, i) => {
      let ring = this.rings.get(name);
      if (!ring) {
        // A series that appears later has no values for the samples before it.
        ring = new Float64Array(this.capacity).fill(Number.NaN);
        this.rings.set(name, ring);
      }
      for (let k = 0; k < chunk.count; k++) {
        ring[(chunk.from + k) % this.capacity] = chunk.values[i * chunk.count + k] ?? Number.NaN;
      }
    });
    for (const [name, ring] of this.rings) {
      if (chunk.names.includes(name)) continue;
      for (let k = 0; k < chunk.count; k++) ring[(chunk.from + k) % this.capacity] = Number.NaN;
    }
    this.next = chunk.from + chunk.count;
    this.first = Math.max(this.first, this.next - this.capacity);
  }

  has(name: string): boolean {
    return this.rings.has(name);
  }

  names(): string[] {
    return [...this.rings.keys()].sort();
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
}
