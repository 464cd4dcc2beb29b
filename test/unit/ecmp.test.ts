import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/sim/core/rng';
import { EcmpGroup, flowHash, movedShare, sampleMapping, type EcmpMode } from '../../src/sim/net/ecmp';

const FLOWS = 100_000;

function flowHashes(seed: number): Uint32Array {
  const rng = new Rng(seed).stream('flows');
  const out = new Uint32Array(FLOWS);
  for (let i = 0; i < FLOWS; i++) out[i] = flowHash(6, rng.int(2 ** 32), 1024 + rng.int(60000), 0xc6336401, 443);
  return out;
}

const hashes = flowHashes(7);

/** Fraction of flows whose next hop changes when the hop list goes from `before` to `after`. */
function moved(mode: EcmpMode, before: number[], after: number[]): number {
  const group = new EcmpGroup(mode);
  group.setNextHops(before);
  const first = hashes.map((h) => group.select(h));
  group.setNextHops(after);
  let changed = 0;
  hashes.forEach((h, i) => {
    if (group.select(h) !== first[i]) changed++;
  });
  return changed / FLOWS;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const without = (n: number, k: number) => range(n).filter((h) => h !== k);
// RFC 2992 disruption when region K of N goes (docs/sources/load-balancers.md#ecmp-hash-threshold).
const D = (n: number, k: number) => ((k - 1) * k + (n - k) * (n - k + 1)) / (2 * n * (n - 1));

describe('ECMP next-hop selection (docs/sources/load-balancers.md)', () => {
  it.each([4, 5, 8])('hash-threshold with %i hops moves D(N,K) of flows when hop K goes, for every K', (n) => {
    for (let k = 1; k <= n; k++) expect(Math.abs(moved('hash-threshold', range(n), without(n, k)) - D(n, k))).toBeLessThan(0.02);
  });

  it.each([4, 5, 8])('modulo with %i hops moves (N-1)/N; resilient moves 1/N', (n) => {
    for (let k = 1; k <= n; k++) {
      expect(Math.abs(moved('modulo', range(n), without(n, k)) - (n - 1) / n)).toBeLessThan(0.02);
      expect(Math.abs(moved('resilient', range(n), without(n, k)) - 1 / n)).toBeLessThan(0.02);
    }
  });

  it('vectors 1-4: 33.3 %, 50 %, 30 %, 75 % and 25 %', () => {
    expect(moved('hash-threshold', range(4), without(4, 2))).toBeCloseTo(1 / 3, 1);
    expect(moved('hash-threshold', range(4), without(4, 4))).toBeCloseTo(0.5, 1);
    expect(moved('hash-threshold', range(4), range(5))).toBeCloseTo(0.5, 1);
    expect(moved('hash-threshold', range(5), without(5, 3))).toBeCloseTo(0.3, 1);
    expect(moved('modulo', range(4), range(3))).toBeCloseTo(0.75, 1);
    expect(moved('resilient', range(4), range(3))).toBeCloseTo(0.25, 1);
  });

  it('resilient adds a hop by moving only its fair share, and spreads buckets evenly', () => {
    expect(Math.abs(moved('resilient', range(4), range(5)) - 1 / 5)).toBeLessThan(0.02);
    const group = new EcmpGroup('resilient');
    group.setNextHops(range(3));
    const counts = new Map<number, number>();
    for (const h of hashes) counts.set(group.select(h), (counts.get(group.select(h)) ?? 0) + 1);
    for (const c of counts.values()) expect(Math.abs(c / FLOWS - 1 / 3)).toBeLessThan(0.02);
  });

  it('sends nothing anywhere when the group is empty, and the same flow always to the same hop', () => {
    const group = new EcmpGroup('hash-threshold');
    expect(group.select(12345)).toBe(-1);
    group.setNextHops([7, 8, 9]);
    const h = flowHash(6, 1, 2, 3, 4);
    expect(group.select(h)).toBe(group.select(flowHash(6, 1, 2, 3, 4)));
  });
});

describe('movedShare over the sample mapping, what the router reports for each change', () => {
  const measure = (mode: EcmpMode, before: number[], after: number[]) => {
    const group = new EcmpGroup(mode);
    group.setNextHops(before);
    const was = sampleMapping(group);
    group.setNextHops(after);
    return movedShare(was, sampleMapping(group));
  };

  it.each([
    ['hash-threshold', 4, 2, 1 / 3],
    ['hash-threshold', 4, 4, 1 / 2],
    ['hash-threshold', 5, 3, 3 / 10],
    ['modulo', 4, 2, 3 / 4],
    ['resilient', 4, 2, 1 / 4],
  ] as const)('%s, %i next hops, remove #%i: within 2 %% of %f (docs/sources/load-balancers.md#ecmp-test-vectors)', (mode, n, k, expected) => {
    expect(Math.abs(measure(mode, range(n), without(n, k)) - expected)).toBeLessThan(0.02);
  });

  it('appending a fifth hop by hash-threshold moves half; an empty group before moves nothing', () => {
    expect(Math.abs(measure('hash-threshold', range(4), range(5)) - 0.5)).toBeLessThan(0.02);
    expect(measure('hash-threshold', [], range(3))).toBe(0);
  });
});
