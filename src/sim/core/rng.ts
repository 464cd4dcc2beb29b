/**
 * Seeded randomness with independent named streams.
 *
 * Each stream is an sfc32 generator (Chris Doty-Humphrey's Small Fast Counting generator from the
 * PractRand suite: 128-bit state, and a counter word that guarantees a period of at least 2^32) whose
 * state is derived only from the root seed and the stream's name, never from creation order. Everything is 32-bit integer arithmetic (Math.imul, >>>, ^) plus exact float
 * operations, so draws are bit-identical in every JavaScript engine.
 */
export interface RngStream {
  /** Uniform in [0, 1): a multiple of 2^-32 (32 random bits, not a full 53-bit double). */
  next(): number;
  /** Uniform integer in 0..n-1, without modulo bias; n is an integer in [1, 2^32]. */
  int(n: number): number;
  /** Uniform in [lo, hi). */
  range(lo: number, hi: number): number;
  /** Exponentially distributed with the given mean (>= 0). */
  exponential(mean: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** A uniformly chosen element; throws on an empty list. */
  pick<T>(items: readonly T[]): T;
  /** Uniform in [x*(1-f), x*(1+f)). */
  jitter(x: number, fraction: number): number;
}

const TWO_32 = 2 ** 32;
const INV_TWO_32 = 1 / TWO_32;

export class Rng {
  private readonly seedLo: number;
  private readonly seedHi: number;
  private readonly streams = new Map<string, RngStream>();

  constructor(readonly seed: number) {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
    this.seedLo = seed >>> 0;
    this.seedHi = Math.floor(seed / TWO_32) >>> 0;
  }

  /** The stream with this name; asking twice for a name returns the same stream object. */
  stream(name: string): RngStream {
    let s = this.streams.get(name);
    if (!s) {
      s = new Sfc32Stream(this.seedLo, this.seedHi, name);
      this.streams.set(name, s);
    }
    return s;
  }
}

/** MurmurHash3's 32-bit finaliser: every input bit affects every output bit. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Hash of a string's UTF-16 code units, murmur-style mixing per unit, finalised with mix32. */
export function hashString(s: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    let k = Math.imul(s.charCodeAt(i), 0xcc9e2d51);
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    h ^= k;
    h = (Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64) | 0;
  }
  return mix32(h ^ s.length);
}

export class Sfc32Stream implements RngStream {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  constructor(seedLo: number, seedHi: number, name: string) {
    // Two differently seeded name hashes give 64 bits of per-stream key, mixed with both seed halves.
    const h1 = hashString(name, seedLo ^ 0x9e3779b9);
    const h2 = hashString(name, seedHi ^ 0x7f4a7c15);
    this.a = mix32(h1 ^ seedHi);
    this.b = mix32(h2 ^ seedLo);
    this.c = mix32(h1 + h2 + 0x6a09e667);
    // Discarding 12 outputs after seeding is what PractRand's own sfc32 seeding does.
    for (let i = 0; i < 12; i++) this.nextU32();
  }

  nextU32(): number {
    const a = this.a;
    const b = this.b;
    const c = this.c;
    const d = this.d;
    const t = (((a + b) | 0) + d) | 0;
    this.d = (d + 1) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    this.c = (((c << 21) | (c >>> 11)) + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return this.nextU32() * INV_TWO_32;
  }

  int(n: number): number {
    if (!(n >= 1 && n <= TWO_32) || Math.floor(n) !== n) {
      throw new RangeError(`int(n) needs an integer n in [1, 2^32], got ${n}`);
    }
    // Rejecting the top partial block of 2^32 keeps every residue equally likely.
    const limit = TWO_32 - (TWO_32 % n);
    let u = this.nextU32();
    while (u >= limit) u = this.nextU32();
    return u % n;
  }

  range(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  exponential(mean: number): number {
    // 1 - next() is in (0, 1], so the logarithm is finite; + 0 turns the -0 of ln(1) into 0.
    return -mean * ln01(1 - this.next()) + 0;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick() from an empty list');
    return items[this.int(items.length)] as T;
  }

  jitter(x: number, fraction: number): number {
    return x * (1 - fraction + 2 * fraction * this.next());
  }
}

const LN2_HI = 6.9314718036912381649e-1;
const LN2_LO = 1.90821492927058770002e-10;
const SQRT1_2 = Math.SQRT1_2;
/** 1/21, 1/19, …, 1/1: coefficients of the atanh series in s², highest first. */
const ATANH_COEFFS = Array.from({ length: 11 }, (_, i) => 1 / (21 - 2 * i));

/**
 * Natural logarithm for x in (0, 1], built from + - * / only so it is identical in every engine
 * (Math.log is implementation-approximated by the spec). x = m * 2^k with m in [sqrt(1/2), sqrt(2)),
 * then ln m = 2 atanh(s) with s = (m-1)/(m+1), |s| < 0.172, summed to double precision.
 */
export function ln01(x: number): number {
  if (!(x > 0 && x <= 1)) throw new RangeError(`ln01 needs x in (0, 1], got ${x}`);
  let m = x;
  let k = 0;
  while (m < SQRT1_2) {
    m *= 2;
    k--;
  }
  const s = (m - 1) / (m + 1);
  const s2 = s * s;
  // Horner form of 1 + s²/3 + s⁴/5 + … + s²⁰/21; the next term is below 2^-53 relative.
  let p = 0;
  for (const c of ATANH_COEFFS) p = p * s2 + c;
  return k * LN2_HI + (2 * s * p + k * LN2_LO);
}
