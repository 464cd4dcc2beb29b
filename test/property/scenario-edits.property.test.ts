import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FAULT_IDS } from '../../src/sim/faults/catalog';
import { loadScenario } from '../../src/sim/scenario/load';
import { applyEdit, blankScenario, outline } from '../../src/sim/scenario/edits';
import { ADDABLE, type Edit, type YamlPath } from '../../src/sim/scenario/edit-kinds';

// A failure prints fast-check's seed and path; rerun just that case with FC_SEED=<seed> FC_PATH=<path>.
const reproduce = (): fc.Parameters<unknown> => {
  const seed = process.env.FC_SEED;
  const path = process.env.FC_PATH;
  return seed === undefined ? {} : { seed: Number(seed), path, endOnFailure: true };
};

const STARTS = {
  blank: blankScenario(),
  demo: readFileSync(new URL('../../public/scenarios/demo.yaml', import.meta.url), 'utf8'),
};

const UNTOUCHED = ['timeline', 'fixes', 'expect', 'chapters', 'charts'];

/** A top-level section's text as written: its key's line and every line after it up to the next top-level key. */
function section(text: string, key: string): string | undefined {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`${key}:`));
  if (start < 0) return undefined;
  const end = lines.findIndex((l, i) => i > start && /^[A-Za-z]/.test(l));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** An edit as random choices, turned into a concrete edit against the text it meets. */
type Step =
  | { type: 'add'; kind: (typeof ADDABLE)[number]['kind'] }
  | { type: 'remove'; pick: number }
  | { type: 'replicas'; pick: number; value: number }
  | { type: 'port'; pick: number; value: number }
  | { type: 'unset-port'; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ type: fc.constant('add' as const), kind: fc.constantFrom(...ADDABLE.map((o) => o.kind)) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('remove' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('replicas' as const), pick: fc.nat(), value: fc.integer({ min: 0, max: 6 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant('port' as const), pick: fc.nat(), value: fc.oneof(fc.constantFrom(80, 8080, 9090), fc.integer({ min: 1, max: 65535 })) }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('unset-port' as const), pick: fc.nat() }) },
);

/** The concrete edit, and for a removal whether the outline offered it as removable; null when nothing fits. */
function concrete(text: string, s: Step): { edit: Edit; removable?: boolean } | null {
  const items = outline(text).items;
  const pick = <T>(list: T[], n: number): T | undefined => list[n % Math.max(list.length, 1)];
  if (s.type === 'add') return { edit: { op: 'add', kind: s.kind } };
  if (s.type === 'remove') {
    const item = pick(items, s.pick);
    return item ? { edit: { op: 'remove', path: item.path }, removable: item.removable } : null;
  }
  const deployments = items.filter((i) => i.path[1] === 'deployments').map((i) => i.path);
  let places: YamlPath[];
  if (s.type === 'replicas') places = deployments.map((p) => [...p, 'replicas']);
  else {
    const services = items.filter((i) => i.path[1] === 'services').map((i) => [...i.path, 'port']);
    const virtualServers = items.filter((i) => i.kind === 'load-balancer').map((i) => [...i.path, 'virtualServers', 0, 'port']);
    places = [...deployments.map((p) => [...p, 'port']), ...services, ...virtualServers];
  }
  const path = pick(places, s.pick);
  if (!path) return null;
  return s.type === 'unset-port' ? { edit: { op: 'unset', path } } : { edit: { op: 'set', path, value: s.value } };
}

describe('scenario edits under random sequences', () => {
  it('each edit that succeeds saves text that loads and reads back identical, leaving untouched sections as written; each refusal says why and changes nothing', () => {
    fc.assert(
      fc.property(fc.constantFrom(...(Object.keys(STARTS) as (keyof typeof STARTS)[])), fc.array(step, { minLength: 1, maxLength: 10 }), (start, steps) => {
        let text = STARTS[start];
        for (const s of steps) {
          const chosen = concrete(text, s);
          if (chosen === null) continue;
          const before = text;
          let result: ReturnType<typeof applyEdit>;
          try {
            result = applyEdit(text, chosen.edit);
          } catch (error) {
            expect(error).toBeInstanceOf(Error);
            expect((error as Error).message.length).toBeGreaterThan(10);
            // The outline promised this removal: nothing it knows of refers to the item.
            expect(chosen.removable, (error as Error).message).not.toBe(true);
            expect(text).toBe(before);
            continue;
          }
          expect(chosen.removable).not.toBe(false);
          const loaded = loadScenario(result.text, 'x.yaml', { faultIds: FAULT_IDS });
          expect(loaded.ok ? [] : loaded.errors).toEqual([]);
          // The sections these edits never touch keep their layout exactly: flow lists, wrapping, comments.
          for (const key of UNTOUCHED) expect(section(result.text, key), key).toBe(section(before, key));
          expect(parse(result.text)).toEqual(result.doc.toJS());
          text = result.text;
        }
      }),
      { numRuns: 100, ...reproduce() },
    );
  });
});
