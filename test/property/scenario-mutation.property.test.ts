import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadScenario, type LoadOptions } from '../../src/sim/scenario/load';
import { formatPath, type PathSegment } from '../../src/sim/scenario/path';
import { getAt, modifyAt, places } from '../fixtures/doc-paths';

const SCENARIOS = new URL('../../public/scenarios/', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, SCENARIOS), 'utf8');
const shipped = readdirSync(SCENARIOS)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const demo: unknown = parse(read('demo.yaml'));

const ERROR = /^(\(root\)|[A-Za-z0-9_.[\]{}"=-]+): ./;
// Errors caused by a --set name the flag instead of a path.
const SET_ERROR = /^--set [^ ]+=[^ ]*: ./;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

// Keys from the characters a path may show unquoted or inside ["..."]; a dot forces the quoted form.
const key = fc.string({ unit: fc.constantFrom(...'abcXYZ019_-.'), minLength: 1, maxLength: 8 });
const scalar = fc.oneof(fc.boolean(), fc.integer(), fc.double(), fc.string({ maxLength: 12 }), fc.constant(null));
const json = fc.anything({ key, values: [scalar], maxDepth: 2, maxKeys: 3 }) as fc.Arbitrary<Json>;
const oddNumber = fc.oneof(
  fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 1e308, -1e308, 2 ** 53 + 1, 4294967296, 0.5),
  fc.integer({ min: -1_000_000, max: -1 }),
  fc.double({ noNaN: false }),
);

/** Turns a value into another type that a person might write by mistake. */
function shuffleType(v: unknown): unknown {
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return v === '' || Number.isNaN(Number(v)) ? v.length : Number(v);
  if (typeof v === 'boolean') return String(v);
  if (v === null) return {};
  if (Array.isArray(v)) return Object.fromEntries(v.map((item, i) => [`item${i}`, item]));
  return Object.values(v as object);
}

type Mutation = (doc: unknown, path: PathSegment[]) => fc.Arbitrary<unknown>;

const mutations: Mutation[] = [
  (doc, path) => fc.constant(path.length === 0 ? doc : modifyAt(doc, path, () => undefined)),
  (doc, path) =>
    fc.tuple(key, json).map(([k, v]) => {
      const target = getAt(doc, path);
      if (target === null || typeof target !== 'object' || Array.isArray(target)) return doc;
      return modifyAt(doc, path, (old) => ({ ...(old as object), [k]: v }));
    }),
  (doc, path) => {
    const old = getAt(doc, path);
    return json.filter((v) => typeOf(v) !== typeOf(old)).map((v) => modifyAt(doc, path, () => v));
  },
  (doc, path) => oddNumber.map((n) => modifyAt(doc, path, (old) => (typeof old === 'number' ? -Math.abs(old) * 0 + n : n))),
  (doc, path) =>
    fc.nat().map((i) => {
      const target = getAt(doc, path);
      if (!Array.isArray(target) || target.length === 0) return doc;
      const item: unknown = target[i % target.length];
      return modifyAt(doc, path, () => [...target, structuredClone(item)]);
    }),
  (doc, path) => fc.constant(modifyAt(doc, path, shuffleType)),
];

/** One random mutation at a random place of `doc`. */
const mutate = (doc: unknown): fc.Arbitrary<unknown> => {
  const all = places(doc);
  return fc.tuple(fc.nat({ max: all.length - 1 }), fc.nat({ max: mutations.length - 1 })).chain(([p, m]) => (mutations[m] as Mutation)(doc, all[p] as PathSegment[]));
};

const mutated = (rounds: number): fc.Arbitrary<unknown> => (rounds === 0 ? fc.constant(demo) : mutated(rounds - 1).chain((doc) => fc.oneof(fc.constant(doc), mutate(doc))));

const options: fc.Arbitrary<LoadOptions> = fc.record(
  {
    faultIds: fc.constant(['delete-pod', 'drain-node']),
    fixes: fc.subarray(['faster-reconnect', 'faster-propagation', 'no-such-fix']),
    sets: fc.subarray(['params.client.reconnectMs=250', 'seed=3', 'params.tcp.synRetries=abc', 'topology.nodes[0].ip=10.0.0.99']),
    seed: fc.oneof(fc.nat({ max: 0xffffffff }), fc.constant(-1)),
  },
  { requiredKeys: [] },
);

const serialize = (doc: unknown, format: 'yaml' | 'json' | 'sniff'): [string, string] =>
  format === 'yaml' ? [stringify(doc), 'mutant.yaml'] : [JSON.stringify(doc) ?? 'null', format === 'json' ? 'mutant.json' : 'mutant'];

describe('scenario loader under random mutations of the demo', () => {
  it('never throws, and either loads or explains every problem as `path: problem`', () => {
    fc.assert(
      fc.property(mutated(4), fc.constantFrom('yaml' as const, 'json' as const, 'sniff' as const), options, (doc, format, opts) => {
        const [text, file] = serialize(doc, format);
        const result = loadScenario(text, file, opts);
        if (result.ok) {
          // A loaded scenario is itself a valid file that loads to the same thing.
          const again = loadScenario(stringify(result.scenario), 'again.yaml', { faultIds: opts.faultIds });
          expect(again).toEqual({ ok: true, scenario: result.scenario, appliedFixes: [] });
          return;
        }
        expect(result.errors.length).toBeGreaterThan(0);
        for (const error of result.errors) {
          expect(ERROR.test(error) || SET_ERROR.test(error), error).toBe(true);
          expect(error).not.toContain('internal error');
        }
      }),
      { numRuns: 400 },
    );
  });

  it('reports single-key typos at the mistyped key', () => {
    fc.assert(
      fc.property(fc.constantFrom(...places(demo).filter((p) => typeof p[p.length - 1] === 'string')), (path) => {
        const last = path[path.length - 1] as string;
        const renamed = `${last}x`;
        const doc = modifyAt(demo, path.slice(0, -1), (parent) => {
          const { [last]: value, ...rest } = parent as Record<string, unknown>;
          return { ...rest, [renamed]: value };
        });
        const result = loadScenario(JSON.stringify(doc), 'typo.json');
        // Keys of records are names the author chose, so renaming one is not a typo.
        const parent = path.slice(0, -1).map(String).join('.');
        if (/^(topology\.(deployments|services)|fixes|fixes\.[^.]+\.set|timeline\.\d+\.params)$/.test(parent)) return;
        expect(result.ok).toBe(false);
        if (result.ok) return;
        // One added character is one edit, so the original key is always the suggestion.
        expect(result.errors).toContain(`${formatPath([...path.slice(0, -1), renamed])}: unknown key (did you mean ${JSON.stringify(last)}?)`);
      }),
    );
  });
});

describe.each(shipped)('shipped scenario %s', (file) => {
  it('round-trips through YAML and JSON', () => {
    const first = loadScenario(read(file), file);
    expect(first.ok, first.ok ? '' : first.errors.join('\n')).toBe(true);
    if (!first.ok) return;
    const viaYaml = loadScenario(stringify(first.scenario), 'roundtrip.yaml');
    const viaJson = loadScenario(JSON.stringify(first.scenario), 'roundtrip.json');
    expect(viaYaml).toEqual(first);
    expect(viaJson).toEqual(first);
  });
});
