const EMPTY = -1;

/**
 * A map from non-negative integer keys to values that allocates nothing as keys come and go: open addressing with
 * Fibonacci hashing (keys handed out in sequence, like ephemeral ports, would otherwise fill one long probe run),
 * linear probing, and deletion by backward shift, so lookups need no tombstones. It starts with 2^minBits slots and
 * doubles when half full; it never shrinks, as a table that did would allocate again each time a few keys come and go.
 */
export class IntMap<V> {
  private bits: number;
  private keys: Float64Array;
  private values: (V | undefined)[];
  private count = 0;

  constructor(minBits = 3) {
    this.bits = minBits;
    this.keys = new Float64Array(2 ** minBits).fill(EMPTY);
    this.values = new Array<V | undefined>(2 ** minBits).fill(undefined);
  }

  get size(): number {
    return this.count;
  }

  has(key: number): boolean {
    return this.find(key) >= 0;
  }

  get(key: number): V | undefined {
    const slot = this.find(key);
    return slot < 0 ? undefined : this.values[slot];
  }

  set(key: number, value: V): void {
    let slot = this.find(key);
    if (slot < 0) {
      if (2 * (this.count + 1) > this.keys.length) {
        this.resize(this.bits + 1);
        slot = this.find(key);
      }
      slot = -1 - slot;
      this.keys[slot] = key;
      this.count++;
    }
    this.values[slot] = value;
  }

  delete(key: number): boolean {
    const slot = this.find(key);
    if (slot < 0) return false;
    this.remove(slot);
    return true;
  }

  clear(): void {
    this.keys.fill(EMPTY);
    this.values.fill(undefined);
    this.count = 0;
  }

  /** The key's slot, or -1 - the empty slot that ends its probe run (where it would go) when absent. */
  private find(key: number): number {
    const mask = this.keys.length - 1;
    for (let i = this.home(key); ; i = (i + 1) & mask) {
      const k = this.keys[i]!;
      if (k === key) return i;
      if (k === EMPTY) return -1 - i;
    }
  }

  private home(key: number): number {
    return Math.imul(key, 0x9e3779b1) >>> (32 - this.bits);
  }

  /** Empties a slot, moving later entries of its probe run back into the hole where their home allows. */
  private remove(slot: number): void {
    const mask = this.keys.length - 1;
    const keys = this.keys;
    let hole = slot;
    for (let j = (slot + 1) & mask; keys[j] !== EMPTY; j = (j + 1) & mask) {
      const home = this.home(keys[j]!);
      // The entry at j may fill the hole unless its home lies cyclically in (hole, j].
      if (hole <= j ? hole < home && home <= j : hole < home || home <= j) continue;
      keys[hole] = keys[j]!;
      this.values[hole] = this.values[j];
      hole = j;
    }
    keys[hole] = EMPTY;
    this.values[hole] = undefined;
    this.count--;
  }

  private resize(bits: number): void {
    const keys = this.keys;
    const values = this.values;
    this.bits = bits;
    this.keys = new Float64Array(2 ** bits).fill(EMPTY);
    this.values = new Array<V | undefined>(2 ** bits).fill(undefined);
    this.count = 0;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== EMPTY) this.set(keys[i]!, values[i] as V);
  }
}
