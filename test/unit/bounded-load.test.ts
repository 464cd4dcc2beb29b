import { describe, expect, it } from 'vitest';
import { fieldsAt } from '../../src/sim/scenario/fields';
import { boundProblems, clip, echo, MAX_MESSAGE_CHARS, MAX_PROBLEMS, MAX_SCENARIO_CHARS } from '../../src/sim/scenario/limits';
import { loadScenario, type LoadResult } from '../../src/sim/scenario/load';
import { pathLocator } from '../../src/sim/scenario/locate';
import {
  copiedNodes,
  duplicateKeyAfter,
  extraFixes,
  LOAD_OPTIONS,
  longFaultName,
  longReference,
  nestedBlocks,
  nestedFlowSequences,
  nestedJsonArrays,
  nestedSequences,
  oversizedText,
  unknownDeployments,
  unknownFaults,
  unknownKeys,
} from '../fixtures/hostile-texts';

// How long these answers take is measured by `npm run bench:loader` (bench/loader.ts), on the same texts.
const load = (text: string, fileName: string): LoadResult => loadScenario(text, fileName, LOAD_OPTIONS);

function errorsOf(result: LoadResult): string[] {
  if (result.ok) throw new Error('expected the text to be rejected');
  return result.errors;
}

/** Every list the loader returns: at most MAX_PROBLEMS lines, each at most MAX_MESSAGE_CHARS. */
function expectBounded(errors: readonly string[]): void {
  expect(errors.length).toBeLessThanOrEqual(MAX_PROBLEMS);
  for (const error of errors) expect(error.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
}

describe('the loader answers hostile text within its limits', () => {
  it('refuses text over the size limit by its length, before parsing it', () => {
    const text = oversizedText(2_000_000);
    expect(errorsOf(load(text, 'huge.yaml'))).toEqual([`(root): the text is ${text.length.toLocaleString('en-US')} characters; a scenario may have at most 500,000`]);
    expect(MAX_SCENARIO_CHARS).toBe(500_000);
  });

  it('lists 20,000 unknown keys as the first problems and a count of the rest', () => {
    const errors = errorsOf(load(unknownKeys(20_000), 'keys.yaml'));
    expect(errors).toHaveLength(MAX_PROBLEMS);
    expect(errors[0]).toBe('title: required (expected string)');
    expect(errors).toContain('k0: unknown key');
    // 20,000 unknown keys and five required fields missing, of which 49 are listed.
    expect(errors[MAX_PROBLEMS - 1]).toBe('and 19,956 more problems');
  });

  it('finds a duplicate key among 30,000 and names its line', () => {
    expect(errorsOf(load(duplicateKeyAfter(30_000), 'keys.yaml'))).toEqual(['(root): YAML syntax error at line 30003, column 1: Map keys must be unique']);
  });

  it('reports 2,000 copies of one node as a capped list of duplicates', () => {
    const text = copiedNodes(2_000);
    expect(text.length).toBeGreaterThan(400_000);
    const errors = errorsOf(load(text, 'copies.yaml'));
    expectBounded(errors);
    expect(errors[0]).toBe('topology.nodes[1].name: duplicate node name "node-a" (also at topology.nodes[0].name)');
    expect(errors[MAX_PROBLEMS - 1]).toMatch(/^and \d{1,3}(,\d{3})* more problems$/);
  });

  it('checks thousands of unknown faults beside structural problems in one pass', () => {
    const errors = errorsOf(load(unknownFaults(8_000), 'faults.json'));
    expect(errors.slice(0, 2)).toEqual(['timeline[0].at: must be >= 0, got -1', 'timeline[1].at: must be >= 0, got -1']);
    expect(errors[MAX_PROBLEMS - 1]).toBe('and 15,951 more problems');
  });

  it('compares 2,000 unknown names with 3,000 deployments within a budget for suggestions', () => {
    const errors = errorsOf(load(unknownDeployments(2_000, 3_000), 'refs.yaml'));
    expectBounded(errors);
    // 100,000 comparisons cover 33 names against 3,002 deployments; the rest come without a suggestion.
    expect(errors[32]).toBe('topology.nodes[0].pods[32].deployment: unknown deployment "apq-32" (did you mean "app-32"?)');
    expect(errors[33]).toBe('topology.nodes[0].pods[33].deployment: unknown deployment "apq-33"');
  });

  it('refuses more fixes than it can check against a scenario this long', () => {
    const text = extraFixes(1_000);
    expect(errorsOf(load(text, 'its-not-dns.yaml'))).toEqual([
      `fixes: 1,008 fixes, each checked against the whole scenario of ${text.length.toLocaleString('en-US')} characters, are more than the loader checks; a scenario this long may have at most 41`,
    ]);
  });

  it('says that text nested a thousand levels deep is nested too deep, in YAML, flow style and JSON', () => {
    // Before the limit: "YAML syntax error at line 1, column 1875: Maximum call stack size exceeded".
    expect(errorsOf(load(nestedSequences(1_000), 'deep.yaml'))).toEqual(['(root): nesting deeper than 64 levels at line 1, column 129']);
    expect(errorsOf(load(nestedBlocks(100), 'deep.yaml'))).toEqual(['(root): nesting deeper than 64 levels at line 65, column 65']);
    const flow = nestedFlowSequences(200_000);
    expect(errorsOf(load(flow, 'deep.yaml'))).toEqual(['(root): nesting deeper than 64 levels at line 1, column 67']);
    expect(errorsOf(load(nestedJsonArrays(200_000), 'deep.json'))).toEqual(['(root): nesting deeper than 64 levels']);
    // The editor places problems with the same reader: the whole text's problem sits at its start.
    expect(pathLocator(flow)(['a', 0])).toEqual({ offset: 0, line: 1, column: 1, found: 0 });
  });

  it('reads text for the editor forms with the same limits', () => {
    expect(fieldsAt(duplicateKeyAfter(30_000), []).fields.map((f) => f.key)).toContain('id');
    expect(() => fieldsAt(nestedSequences(1_000), [])).toThrow('(root): nesting deeper than 64 levels at line 1, column 129');
  });

  it('still reads nesting up to the limit', () => {
    const errors = errorsOf(load(nestedBlocks(63), 'deep.yaml'));
    expect(errors).toContain('a0: unknown key');
  });
});

describe('messages are bounded', () => {
  it('clips a message that repeats a reference of 400,000 characters', () => {
    const errors = errorsOf(load(longReference(400_000), 'ref.yaml'));
    expectBounded(errors);
    expect(errors[0]).toMatch(/^topology\.nodes\[0\]\.pods\[0\]\.deployment: .*w… \(400,\d{3} characters\)$/);
  });

  it('echoes a long value cut short with its length', () => {
    const errors = errorsOf(load(longFaultName(100_000), 'fault.json'));
    expect(errors).toEqual([`timeline[0].fault: unknown fault "${'f'.repeat(80)}…" (100,000 characters)`]);
    expect(echo('short')).toBe('"short"');
  });

  it('keeps bounded lists as they are and counts what it leaves out', () => {
    const many = Array.from({ length: 8_002 }, (_, i) => `a[${i}]: ${'x'.repeat(i % 2 === 0 ? 10 : 1_000)}`);
    const bounded = boundProblems(many);
    expect(bounded).toHaveLength(MAX_PROBLEMS);
    expect(bounded[MAX_PROBLEMS - 1]).toBe('and 7,953 more problems');
    expect(bounded[1]).toBe(clip(many[1]!, MAX_MESSAGE_CHARS));
    expect(bounded[1]).toMatch(/x… \(1,006 characters\)$/);
    expectBounded(bounded);
    expect(boundProblems(bounded)).toEqual(bounded);
    expect(boundProblems(['a: b'])).toEqual(['a: b']);
  });
});
