/** Fixed-capacity FIFO of numbers: pushing into a full buffer overwrites the oldest value. */
export class RingBuffer {
  private readonly data: Float64Array;
  private pushed = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`RingBuffer capacity must be a positive integer, got ${capacity}`);
    }
    this.data = new Float64Array(capacity);
  }

  push(value: number): void {
    this.data[this.pushed % this.capacity] = value;
    this.pushed++;
  }

  /** Values currently held (at most capacity). */
  get length(): number {
    return Math.min(this.pushed, this.capacity);
  }

  /** Values ever pushed, including those overwritten. */
  get total(): number {
    return this.pushed;
  }

  /** The i-th held value, 0 being the oldest; undefined outside 0..length-1. */
  get(i: number): number | undefined {
    if (!(i >= 0 && i < this.length) || Math.floor(i) !== i) return undefined;
    return this.data[(this.pushed - this.length + i) % this.capacity];
  }

  /** Held values, oldest first. */
  toArray(): number[] {
    const out = new Array<number>(this.length);
    for (let i = 0; i < out.length; i++) out[i] = this.data[(this.pushed - out.length + i) % this.capacity]!;
    return out;
  }

  /**
   * Copies the values with absolute push indices [from, from + count) into out at offset.
   * Indices that are no longer (or not yet) held are written as 0.
   */
  copyRange(from: number, count: number, out: Float64Array, offset: number): void {
    const oldest = this.pushed - this.length;
    for (let k = 0; k < count; k++) {
      const index = from + k;
      out[offset + k] = index >= oldest && index < this.pushed ? this.data[index % this.capacity]! : 0;
    }
  }
}
