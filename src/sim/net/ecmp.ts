/** How a router spreads flows over equal-cost next hops (docs/sources/load-balancers.md). */
export type EcmpMode = 'modulo' | 'hash-threshold' | 'resilient';

// Linux resilient next-hop groups size their bucket table with `buckets N`; 128 is the commonly cited default,
// unconfirmed (docs/sources/load-balancers.md#resilient-hashing).
export const DEFAULT_RESILIENT_BUCKETS = 128;

/** A stateless 5-tuple hash; `seed` stands for the router's per-box hash key. */
export function flowHash(proto: number, srcIp: number, srcPort: number, dstIp: number, dstPort: number, seed = 0): number {
  let h = Math.imul(seed ^ 0x811c9dc5, 0x01000193) ^ srcIp;
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) ^ dstIp;
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39) ^ ((srcPort << 16) | dstPort);
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b) ^ proto;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * One ECMP group. `modulo` picks hash mod N; `hash-threshold` splits the hash space into N contiguous regions
 * (RFC 2992); `resilient` maps hashes to a fixed bucket table and, when the hop set changes, moves only the buckets
 * it must (Linux resilient next-hop groups).
 */
export class EcmpGroup {
  private hops: number[] = [];
  private readonly buckets: Int32Array;

  constructor(
    readonly mode: EcmpMode,
    bucketCount = DEFAULT_RESILIENT_BUCKETS,
  ) {
    this.buckets = new Int32Array(mode === 'resilient' ? bucketCount : 0).fill(-1);
  }

  get nextHops(): readonly number[] {
    return this.hops;
  }

  /** Replaces the next-hop list, in the order the router holds it (announcement order). */
  setNextHops(hops: readonly number[]): void {
    const before = this.hops;
    this.hops = [...hops];
    if (this.mode === 'resilient') this.rebalance(before);
  }

  /** The next hop for a flow hash, or -1 when the group is empty. */
  select(hash: number): number {
    const n = this.hops.length;
    if (n === 0) return -1;
    switch (this.mode) {
      case 'modulo':
        return this.hops[hash % n]!;
      case 'hash-threshold':
        return this.hops[Math.floor((hash / 4294967296) * n)]!;
      case 'resilient':
        return this.buckets[hash % this.buckets.length]!;
    }
  }

  /** Keeps every bucket whose hop survives, unless that hop holds more than its fair share; refills the rest. */
  private rebalance(before: readonly number[]): void {
    const n = this.hops.length;
    if (n === 0) {
      this.buckets.fill(-1);
      return;
    }
    const alive = new Set(this.hops);
    const total = this.buckets.length;
    const quota = new Map<number, number>();
    // The first (total mod n) hops get one bucket more, so shares differ by at most one.
    this.hops.forEach((hop, i) => quota.set(hop, Math.floor(total / n) + (i < total % n ? 1 : 0)));
    const held = new Map<number, number>();
    for (let b = 0; b < total; b++) {
      const hop = this.buckets[b]!;
      const kept = held.get(hop) ?? 0;
      if (before.length > 0 && alive.has(hop) && kept < quota.get(hop)!) held.set(hop, kept + 1);
      else this.buckets[b] = -1;
    }
    let cursor = 0;
    for (let b = 0; b < total; b++) {
      if (this.buckets[b] !== -1) continue;
      while ((held.get(this.hops[cursor]!) ?? 0) >= quota.get(this.hops[cursor]!)!) cursor++;
      const hop = this.hops[cursor]!;
      this.buckets[b] = hop;
      held.set(hop, (held.get(hop) ?? 0) + 1);
    }
  }
}

// Model choice: 4,096 well-mixed sample hashes measure the share of the hash space a change moves to within about 1 %.
const SAMPLES = 4096;
let sampleHashes: Uint32Array | null = null;

/** The next hop of each sample hash: a fingerprint of the group's mapping, to compare across a change. */
export function sampleMapping(group: EcmpGroup): Int32Array {
  sampleHashes ??= Uint32Array.from({ length: SAMPLES }, (_, i) => flowHash(6, i, i >>> 8, 0x5eed, 443));
  return Int32Array.from(sampleHashes, (h) => group.select(h));
}

/** The share of flows (of hashes) that map to another next hop in `after` than in `before`; flows with no hop before do not count. */
export function movedShare(before: Int32Array, after: Int32Array): number {
  let routed = 0;
  let moved = 0;
  for (let i = 0; i < before.length; i++) {
    if (before[i] === -1) continue;
    routed++;
    if (after[i] !== before[i]) moved++;
  }
  return routed === 0 ? 0 : moved / routed;
}
