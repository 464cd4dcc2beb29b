import { describe, expect, it } from 'vitest';
import { canonicalNumber, digest, fnv1a64, stableStringify } from '../../src/sim/core/digest';

/** Straightforward BigInt FNV-1a 64 over Node's UTF-8 encoding, as an oracle. */
function referenceFnv(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= BigInt(byte);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

describe('fnv1a64', () => {
  it('matches the published FNV-1a 64 test vectors', () => {
    expect(fnv1a64('')).toBe('cbf29ce484222325');
    expect(fnv1a64('a')).toBe('af63dc4c8601ec8c');
    expect(fnv1a64('foobar')).toBe('85944171f73967e8');
  });

  it('hashes the UTF-8 bytes, including multi-byte characters, surrogate pairs and lone surrogates', () => {
    const samples = ['héllo', '日本語', 'emoji 😀 pair', 'lone \ud800 high', 'lone \udc00 low', 'x'.repeat(1000)];
    for (const s of samples) expect(fnv1a64(s)).toBe(referenceFnv(s));
  });
});

describe('stableStringify', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(stableStringify({ b: 1, a: { d: [3, 1, 2], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,1,2]},"b":1}');
  });

  it('writes numbers canonically', () => {
    expect(canonicalNumber(42)).toBe('42');
    expect(canonicalNumber(-0)).toBe('0');
    expect(canonicalNumber(0.1 + 0.2)).toBe('0.3');
    expect(canonicalNumber(1 / 3)).toBe('0.333333333');
    expect(canonicalNumber(123456.7891234)).toBe('123456.789');
    expect(canonicalNumber(1e-7 + 1e-20)).toBe('1e-7');
    expect(canonicalNumber(2 ** 53)).toBe('9007199254740992');
    expect(canonicalNumber(Number.NaN)).toBe('"NaN"');
    expect(canonicalNumber(Infinity)).toBe('"Infinity"');
    expect(canonicalNumber(-Infinity)).toBe('"-Infinity"');
  });

  it('follows JSON for undefined, functions, toJSON, typed arrays and strings', () => {
    expect(stableStringify({ a: undefined, b: () => 1, c: null })).toBe('{"c":null}');
    expect(stableStringify([undefined, null])).toBe('[null,null]');
    expect(stableStringify({ toJSON: () => ({ z: 1 }) })).toBe('{"z":1}');
    expect(stableStringify(new Float64Array([0.5, -0]))).toBe('[0.5,0]');
    expect(stableStringify('quote " and \n')).toBe(JSON.stringify('quote " and \n'));
  });

  it('refuses what it cannot encode faithfully', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => stableStringify(cyclic)).toThrow(/cycle/);
    expect(() => stableStringify({ n: 1n })).toThrow(TypeError);
    expect(() => stableStringify(new Map())).toThrow(TypeError);
    const shared = { x: 1 };
    expect(stableStringify([shared, shared])).toBe('[{"x":1},{"x":1}]');
  });
});

describe('digest', () => {
  it('is independent of key order and last-bit float noise', () => {
    const a = { totals: { 'tcp.syn.sent': 10, 'dns.refused': 2 }, ratio: 0.1 + 0.2, series: [1, 2, 3] };
    const b = { series: [1, 2, 3], ratio: 0.3, totals: { 'dns.refused': 2, 'tcp.syn.sent': 10 } };
    expect(digest(a)).toBe(digest(b));
    expect(digest(a)).toMatch(/^[0-9a-f]{16}$/);
    expect(digest(a)).toBe(fnv1a64(stableStringify(a)));
  });

  it('changes when a value, an array order or a key changes', () => {
    const base = digest({ a: [1, 2], b: 'x' });
    expect(digest({ a: [2, 1], b: 'x' })).not.toBe(base);
    expect(digest({ a: [1, 2], b: 'y' })).not.toBe(base);
    expect(digest({ a: [1, 2], c: 'x' })).not.toBe(base);
    expect(digest({ a: [1, 2.0001], b: 'x' })).not.toBe(base);
  });
});
