import { describe, expect, it } from 'vitest';
import { ln01, Rng, type RngStream } from '../../src/sim/core/rng';

const draws = (s: RngStream, n: number) => Array.from({ length: n }, () => s.next());

describe('Rng streams', () => {
  it('reproduces the same sequence for the same seed and name', () => {
    expect(draws(new Rng(7).stream('dns'), 50)).toEqual(draws(new Rng(7).stream('dns'), 50));
  });

  it('pins the first draws of seed 42, stream "a" so any change to the generator is noticed', () => {
    expect(draws(new Rng(42).stream('a'), 5)).toEqual([0.4527611874509603, 0.13998310011811554, 0.8127220314927399, 0.13843854749575257, 0.2048972777556628]);
  });

  it('gives a stream the same draws whatever streams were created or used before it', () => {
    const alone = draws(new Rng(3).stream('a'), 20);
    const rng = new Rng(3);
    const b = rng.stream('b');
    draws(b, 100);
    rng.stream('zzz').next();
    expect(draws(rng.stream('a'), 20)).toEqual(alone);
  });

  it('returns the same stream object for the same name', () => {
    const rng = new Rng(1);
    expect(rng.stream('x')).toBe(rng.stream('x'));
  });

  it('differs between names and between seeds, including names that differ by one character', () => {
    const seqs = [
      draws(new Rng(1).stream('pod/web-0'), 8),
      draws(new Rng(1).stream('pod/web-1'), 8),
      draws(new Rng(1).stream('pod/web-10'), 8),
      draws(new Rng(2).stream('pod/web-0'), 8),
      draws(new Rng(2 ** 32 + 1).stream('pod/web-0'), 8),
      draws(new Rng(-1).stream('pod/web-0'), 8),
    ];
    const keys = new Set(seqs.map((s) => s.join(',')));
    expect(keys.size).toBe(seqs.length);
  });

  it('rejects seeds that are not safe integers', () => {
    expect(() => new Rng(1.5)).toThrow(RangeError);
    expect(() => new Rng(Number.NaN)).toThrow(RangeError);
    expect(() => new Rng(2 ** 60)).toThrow(RangeError);
  });
});

describe('RngStream distributions', () => {
  const s = new Rng(2024).stream('distributions');

  it('next() stays in [0, 1) on multiples of 2^-32 with a mean near 1/2', () => {
    let sum = 0;
    let bad = 0;
    for (let i = 0; i < 100_000; i++) {
      const x = s.next();
      if (!(x >= 0 && x < 1) || !Number.isInteger(x * 2 ** 32)) bad++;
      sum += x;
    }
    expect(bad).toBe(0);
    expect(sum / 100_000).toBeCloseTo(0.5, 2);
  });

  it('int(n) stays in 0..n-1 and hits every value about equally often', () => {
    const n = 7;
    const counts = new Array<number>(n).fill(0);
    const total = 70_000;
    let bad = 0;
    for (let i = 0; i < total; i++) {
      const k = s.int(n);
      if (Number.isInteger(k) && k >= 0 && k < n) counts[k]!++;
      else bad++;
    }
    expect(bad).toBe(0);
    for (const c of counts) expect(Math.abs(c - total / n)).toBeLessThan(0.05 * (total / n));
    expect(s.int(1)).toBe(0);
    const big = s.int(2 ** 32);
    expect(big >= 0 && big < 2 ** 32).toBe(true);
    expect(() => s.int(0)).toThrow(RangeError);
    expect(() => s.int(2.5)).toThrow(RangeError);
    expect(() => s.int(2 ** 32 + 1)).toThrow(RangeError);
  });

  it('exponential(mean) has the requested mean and is never negative', () => {
    const mean = 250;
    let sum = 0;
    let negative = 0;
    const n = 200_000;
    for (let i = 0; i < n; i++) {
      const x = s.exponential(mean);
      if (!(x >= 0)) negative++;
      sum += x;
    }
    expect(negative).toBe(0);
    // Standard error of the mean is mean/sqrt(n) ≈ 0.56; allow about 5 of them.
    expect(Math.abs(sum / n - mean)).toBeLessThan(3);
  });

  it('range, chance, pick and jitter respect their bounds', () => {
    let hits = 0;
    const outside: string[] = [];
    const picked = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const r = s.range(-3, 5);
      if (!(r >= -3 && r < 5)) outside.push(`range ${r}`);
      const j = s.jitter(100, 0.2);
      if (!(j >= 80 && j <= 120)) outside.push(`jitter ${j}`);
      if (s.chance(0.3)) hits++;
      picked.add(s.pick(['a', 'b', 'c']));
    }
    expect(outside).toEqual([]);
    expect([...picked].sort()).toEqual(['a', 'b', 'c']);
    expect(hits / 20_000).toBeCloseTo(0.3, 1);
    expect(s.chance(0)).toBe(false);
    expect(s.chance(1)).toBe(true);
    expect(() => s.pick([])).toThrow(RangeError);
  });
});

describe('ln01', () => {
  it('matches Math.log to within a few ulps on (0, 1]', () => {
    const s = new Rng(5).stream('ln');
    const xs = [1, 0.5, Math.SQRT1_2, 2 ** -32, 1e-300, 0.999999999, ...draws(s, 5000).map((x) => 1 - x)];
    const off = xs.filter((x) => {
      const want = Math.log(x);
      return !(Math.abs(ln01(x) - want) <= 4 * Number.EPSILON * Math.max(1, Math.abs(want)));
    });
    expect(off).toEqual([]);
    expect(Object.is(ln01(1), 0)).toBe(true);
    expect(() => ln01(0)).toThrow(RangeError);
    expect(() => ln01(1.5)).toThrow(RangeError);
  });
});
