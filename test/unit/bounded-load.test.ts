import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { faultCatalog, FAULT_IDS } from '../../src/sim/faults/catalog';
import { fieldsAt } from '../../src/sim/scenario/fields';
import { boundProblems, clip, echo, MAX_MESSAGE_CHARS, MAX_PROBLEMS, MAX_SCENARIO_CHARS } from '../../src/sim/scenario/limits';
import { loadScenario, type LoadResult } from '../../src/sim/scenario/load';
import { pathLocator } from '../../src/sim/scenario/locate';

const shipped = (file: string) => readFileSync(new URL(`../../public/scenarios/${file}`, import.meta.url), 'utf8');
const DEMO = shipped('demo.yaml');
const BIGGEST = shipped('its-not-dns.yaml');
const OPTIONS = { faultIds: FAULT_IDS, faults: faultCatalog() };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests rebuild the parsed demo at any depth
type Doc = Record<string, any>;
const demoDoc = (): Doc => parse(DEMO) as Doc;

function timedLoad(text: string, fileName: string): { result: LoadResult; ms: number } {
  const started = performance.now();
  const result = loadScenario(text, fileName, OPTIONS);
  return { result, ms: performance.now() - started };
}

function errorsOf(result: LoadResult): string[] {
  if (result.ok) throw new Error('expected the text to be rejected');
  return result.errors;
}

/**
 * The time per character to load the biggest shipped scenario (its fixes checked one by one), the best of three after a
 * warm-up. Hostile text is held to a multiple of it times its own length (linear work) rather than to milliseconds, so
 * a slower or busier machine moves both sides; before these limits the cases below took 10 to 100 times as long.
 */
const msPerChar = (() => {
  timedLoad(BIGGEST, 'its-not-dns.yaml');
  return Math.min(...[0, 1, 2].map(() => timedLoad(BIGGEST, 'its-not-dns.yaml').ms)) / BIGGEST.length;
})();
const RATIO = 4;

function expectLinear(ms: number, text: string): void {
  const bound = RATIO * msPerChar * Math.max(text.length, BIGGEST.length);
  expect(ms, `${ms.toFixed(0)} ms for ${text.length} characters, its-not-dns ${(msPerChar * BIGGEST.length).toFixed(0)} ms for ${BIGGEST.length}`).toBeLessThan(bound);
}

/** Every list the loader returns: at most MAX_PROBLEMS lines, each at most MAX_MESSAGE_CHARS. */
function expectBounded(errors: readonly string[]): void {
  expect(errors.length).toBeLessThanOrEqual(MAX_PROBLEMS);
  for (const error of errors) expect(error.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
}

function mappingKeys(n: number): string {
  const lines = ['version: 1', 'id: many-keys'];
  for (let i = 0; i < n; i++) lines.push(`k${i}: ${i}`);
  return `${lines.join('\n')}\n`;
}

function nestedBlocks(depth: number): string {
  let text = '';
  for (let i = 0; i < depth; i++) text += `${' '.repeat(i)}a${i}:\n`;
  return `${text}${' '.repeat(depth)}x: 1\n`;
}

describe('loading hostile text answers fast', () => {
  it('refuses text over the size limit by its length, before parsing it', () => {
    const text = DEMO + '#'.repeat(2_000_000);
    const { result, ms } = timedLoad(text, 'huge.yaml');
    expect(errorsOf(result)).toEqual([`(root): the text is ${text.length.toLocaleString('en-US')} characters; a scenario may have at most 500,000`]);
    expect(MAX_SCENARIO_CHARS).toBe(500_000);
    expectLinear(ms, BIGGEST);
  });

  it('lists 20,000 unknown keys as the first problems and a count of the rest', () => {
    const text = mappingKeys(20_000);
    const { result, ms } = timedLoad(text, 'keys.yaml');
    const errors = errorsOf(result);
    expect(errors).toHaveLength(MAX_PROBLEMS);
    expect(errors[0]).toBe('title: required (expected string)');
    expect(errors).toContain('k0: unknown key');
    // 20,000 unknown keys and five required fields missing, of which 49 are listed.
    expect(errors[MAX_PROBLEMS - 1]).toBe('and 19,956 more problems');
    expectLinear(ms, text);
  });

  it('finds a duplicate key among 30,000 and names its line', () => {
    const text = `${mappingKeys(30_000)}k7: again\n`;
    const { result, ms } = timedLoad(text, 'keys.yaml');
    expect(errorsOf(result)).toEqual(['(root): YAML syntax error at line 30003, column 1: Map keys must be unique']);
    expectLinear(ms, text);
  });

  it('reports 2,000 copies of one node as a capped list of duplicates', () => {
    const doc = demoDoc();
    const node = doc['topology'].nodes[0] as Doc;
    doc['topology'].nodes = Array.from({ length: 2_000 }, () => structuredClone(node));
    const text = stringify(doc);
    expect(text.length).toBeGreaterThan(400_000);
    const { result, ms } = timedLoad(text, 'copies.yaml');
    const errors = errorsOf(result);
    expectBounded(errors);
    expect(errors[0]).toBe('topology.nodes[1].name: duplicate node name "node-a" (also at topology.nodes[0].name)');
    expect(errors[MAX_PROBLEMS - 1]).toMatch(/^and \d{1,3}(,\d{3})* more problems$/);
    expectLinear(ms, text);
  });

  it('checks thousands of unknown faults beside structural problems in one pass', () => {
    const doc = demoDoc();
    doc['timeline'] = Array.from({ length: 8_000 }, () => ({ at: -1, fault: 'no-such-fault', target: 'pod/web-0' }));
    const text = JSON.stringify(doc);
    const { result, ms } = timedLoad(text, 'faults.json');
    const errors = errorsOf(result);
    expect(errors.slice(0, 2)).toEqual(['timeline[0].at: must be >= 0, got -1', 'timeline[1].at: must be >= 0, got -1']);
    expect(errors[MAX_PROBLEMS - 1]).toBe('and 15,951 more problems');
    expectLinear(ms, text);
  });

  it('compares 2,000 unknown names with 3,000 deployments within a budget for suggestions', () => {
    const doc = demoDoc();
    for (let i = 0; i < 3_000; i++) doc['topology'].deployments[`app-${i}`] = { app: 'http-server', replicas: 1, port: 8080 };
    doc['topology'].nodes[0].pods = Array.from({ length: 2_000 }, (_, i) => ({ name: `p-${i}`, deployment: `apq-${i}` }));
    const text = stringify(doc);
    const { result, ms } = timedLoad(text, 'refs.yaml');
    const errors = errorsOf(result);
    expectBounded(errors);
    // 100,000 comparisons cover 33 names against 3,002 deployments; the rest come without a suggestion.
    expect(errors[32]).toBe('topology.nodes[0].pods[32].deployment: unknown deployment "apq-32" (did you mean "app-32"?)');
    expect(errors[33]).toBe('topology.nodes[0].pods[33].deployment: unknown deployment "apq-33"');
    expectLinear(ms, text);
  });

  it('refuses more fixes than it can check against a scenario this long', () => {
    const fixes = Array.from({ length: 1_000 }, (_, i) => `  extra-${i}:\n    description: one more\n    set: { seed: ${i} }\n`).join('');
    const text = BIGGEST.replace('\nfixes:\n', `\nfixes:\n${fixes}`);
    const { result, ms } = timedLoad(text, 'its-not-dns.yaml');
    expect(errorsOf(result)).toEqual([
      `fixes: 1,008 fixes, each checked against the whole scenario of ${text.length.toLocaleString('en-US')} characters, are more than the loader checks; a scenario this long may have at most 41`,
    ]);
    expectLinear(ms, text);
  });

  it('says that text nested a thousand levels deep is nested too deep, in YAML, flow style and JSON', () => {
    // Before the limit: "YAML syntax error at line 1, column 1875: Maximum call stack size exceeded".
    const block = timedLoad(`${'- '.repeat(1_000)}x\n`, 'deep.yaml');
    expect(errorsOf(block.result)).toEqual(['(root): nesting deeper than 64 levels at line 1, column 129']);
    expect(errorsOf(loadScenario(nestedBlocks(100), 'deep.yaml', OPTIONS))).toEqual(['(root): nesting deeper than 64 levels at line 65, column 65']);
    const flow = `a: ${'['.repeat(200_000)}${']'.repeat(200_000)}\n`;
    const inFlow = timedLoad(flow, 'deep.yaml');
    expect(errorsOf(inFlow.result)).toEqual(['(root): nesting deeper than 64 levels at line 1, column 67']);
    const json = timedLoad(`{"a": ${'['.repeat(200_000)}${']'.repeat(200_000)}}`, 'deep.json');
    expect(errorsOf(json.result)).toEqual(['(root): nesting deeper than 64 levels']);
    for (const { ms } of [block, inFlow, json]) expectLinear(ms, BIGGEST);
    // The editor places problems with the same reader: the whole text's problem sits at its start.
    expect(pathLocator(flow)(['a', 0])).toEqual({ offset: 0, line: 1, column: 1, found: 0 });
  });

  it('reads text for the editor forms with the same limits', () => {
    const text = `${mappingKeys(30_000)}k7: again\n`;
    const started = performance.now();
    expect(fieldsAt(text, []).fields.map((f) => f.key)).toContain('id');
    expectLinear(performance.now() - started, text);
    expect(() => fieldsAt(`${'- '.repeat(1_000)}x\n`, [])).toThrow('(root): nesting deeper than 64 levels at line 1, column 129');
  });

  it('still reads nesting up to the limit', () => {
    const errors = errorsOf(loadScenario(nestedBlocks(63), 'deep.yaml', OPTIONS));
    expect(errors).toContain('a0: unknown key');
  });
});

describe('messages are bounded', () => {
  it('clips a message that repeats a reference of 400,000 characters', () => {
    const name = 'w'.repeat(400_000);
    const text = DEMO.replace('deployment: web\n', `deployment: ${name}\n`);
    const { result, ms } = timedLoad(text, 'ref.yaml');
    const errors = errorsOf(result);
    expectBounded(errors);
    expect(errors[0]).toMatch(/^topology\.nodes\[0\]\.pods\[0\]\.deployment: .*w… \(400,\d{3} characters\)$/);
    expectLinear(ms, text);
  });

  it('echoes a long value cut short with its length', () => {
    const doc = demoDoc();
    doc['timeline'] = [{ at: 1, fault: 'f'.repeat(100_000), target: 'pod/web-0' }];
    const errors = errorsOf(loadScenario(JSON.stringify(doc), 'fault.json', OPTIONS));
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
