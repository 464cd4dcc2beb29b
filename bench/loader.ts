import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fieldsAt } from '../src/sim/scenario/fields';
import { MAX_SCENARIO_CHARS } from '../src/sim/scenario/limits';
import { loadScenario } from '../src/sim/scenario/load';
import {
  copiedNodes,
  duplicateKeyAfter,
  extraFixes,
  ITS_NOT_DNS,
  largeValidScenario,
  LOAD_OPTIONS,
  longFaultName,
  longReference,
  nestedFlowSequences,
  nestedJsonArrays,
  nestedSequences,
  oversizedText,
  unknownDeployments,
  unknownFaults,
  unknownKeys,
} from '../test/fixtures/hostile-texts';

/**
 * The loader on the hostile texts of test/unit/bounded-load.test.ts (whose answers that test checks) and on valid
 * scenarios of 400 and 500 kB; part of `npm run bench`, alone with `npm run bench:loader`. Issue 22 asks every answer
 * for an input up to 2 MB within a second on this machine: the editor loads its text again 0.3 s after each keystroke,
 * and its forms read it with fieldsAt, timed here too.
 */
export const LOADER_BAR_MS = 1000;

interface LoaderCase {
  label: string;
  fileName: string;
  text: string;
  /** What is timed: the worker's load, or the editor forms' reading. */
  read?: 'load' | 'fields';
  /** The valid scenario must be accepted, or its figure would time a refusal. */
  valid?: boolean;
}

export interface LoaderFigures {
  label: string;
  /** Bytes in UTF-8; every text here is ASCII, so as many as its characters. */
  bytes: number;
  bestMs: number;
  /** Milliseconds per character over its-not-dns's. */
  perCharRatio: number;
  answer: string;
}

/** The best of three runs of `read`, which the caller has run once already to warm up. */
function bestOfThree(read: () => void): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    read();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** The cases of test/unit/bounded-load.test.ts at its sizes, and the valid scenario. */
function testCases(): LoaderCase[] {
  return [
    { label: 'valid: demo + 1,650 service groups', fileName: 'large.yaml', text: largeValidScenario(1_650), valid: true },
    { label: 'over the size limit (demo + comment)', fileName: 'huge.yaml', text: oversizedText(2_000_000) },
    { label: '20,000 unknown keys', fileName: 'keys.yaml', text: unknownKeys(20_000) },
    { label: 'duplicate key after 30,000', fileName: 'keys.yaml', text: duplicateKeyAfter(30_000) },
    { label: 'editor forms: duplicate key after 30,000', fileName: 'keys.yaml', text: duplicateKeyAfter(30_000), read: 'fields' },
    { label: '2,000 copies of one node', fileName: 'copies.yaml', text: copiedNodes(2_000) },
    { label: '8,000 unknown faults (JSON)', fileName: 'faults.json', text: unknownFaults(8_000) },
    { label: '2,000 unknown among 3,000 deployments', fileName: 'refs.yaml', text: unknownDeployments(2_000, 3_000) },
    { label: 'its-not-dns + 1,000 fixes', fileName: 'its-not-dns.yaml', text: extraFixes(1_000) },
    { label: 'block sequences 1,000 deep', fileName: 'deep.yaml', text: nestedSequences(1_000) },
    { label: 'flow sequences 200,000 deep', fileName: 'deep.yaml', text: nestedFlowSequences(200_000) },
    { label: 'JSON arrays 200,000 deep', fileName: 'deep.json', text: nestedJsonArrays(200_000) },
    { label: 'reference of 400,000 characters', fileName: 'ref.yaml', text: longReference(400_000) },
    { label: 'fault name of 100,000 characters (JSON)', fileName: 'fault.json', text: longFaultName(100_000) },
  ];
}

/**
 * The cases whose work grows with their size, grown to just under MAX_SCENARIO_CHARS: anything longer, up to 2 MB and
 * beyond, is refused by its length, so these are the slowest inputs the bar is about.
 */
function atTheLimit(): LoaderCase[] {
  return [
    { label: 'valid: demo + 2,050 service groups', fileName: 'large.yaml', text: largeValidScenario(2_050), valid: true },
    { label: '37,000 unknown keys', fileName: 'keys.yaml', text: unknownKeys(37_000) },
    { label: 'duplicate key after 37,000', fileName: 'keys.yaml', text: duplicateKeyAfter(37_000) },
    { label: 'editor forms: duplicate key after 37,000', fileName: 'keys.yaml', text: duplicateKeyAfter(37_000), read: 'fields' },
    { label: '2,150 copies of one node', fileName: 'copies.yaml', text: copiedNodes(2_150) },
    { label: '9,000 unknown faults (JSON)', fileName: 'faults.json', text: unknownFaults(9_000) },
    { label: '2,000 unknown among 5,400 deployments', fileName: 'refs.yaml', text: unknownDeployments(2_000, 5_400) },
    { label: 'its-not-dns + 7,200 fixes', fileName: 'its-not-dns.yaml', text: extraFixes(7_200) },
  ];
}

/** The answer in brief: accepted, or how many lines the refusal has and its first (the loader bounds its length). */
function answerOf(c: LoaderCase): string {
  if (c.read === 'fields') {
    const fields = fieldsAt(c.text, []).fields.length;
    return `${fields} fields`;
  }
  const result = loadScenario(c.text, c.fileName, LOAD_OPTIONS);
  if (result.ok) return 'accepted';
  if (c.valid) throw new Error(`the valid scenario of the loader bench was refused:\n${result.errors.join('\n')}`);
  return `refused, ${result.errors.length} line${result.errors.length === 1 ? '' : 's'}, the first: ${result.errors[0] ?? ''}`;
}

export interface LoaderBench {
  yardstick: LoaderFigures;
  groups: { title: string; rows: LoaderFigures[] }[];
}

export function runLoaderBench(): LoaderBench {
  const measure = (c: LoaderCase, yardMsPerChar: number): LoaderFigures => {
    // Reading the answer is the warm-up.
    const answer = answerOf(c);
    const bestMs = bestOfThree(c.read === 'fields' ? () => fieldsAt(c.text, []) : () => loadScenario(c.text, c.fileName, LOAD_OPTIONS));
    return { label: c.label, bytes: Buffer.byteLength(c.text), bestMs, perCharRatio: bestMs / c.text.length / yardMsPerChar, answer };
  };
  const yardstick = measure({ label: 'its-not-dns as shipped (the yardstick)', fileName: 'its-not-dns.yaml', text: ITS_NOT_DNS, valid: true }, 1);
  const yardMsPerChar = yardstick.bestMs / ITS_NOT_DNS.length;
  yardstick.perCharRatio = 1;
  return {
    yardstick,
    groups: [
      { title: "the unit test's cases at its sizes", rows: testCases().map((c) => measure(c, yardMsPerChar)) },
      { title: `the same kinds grown to just under the ${MAX_SCENARIO_CHARS.toLocaleString('en-US')}-character limit`, rows: atTheLimit().map((c) => measure(c, yardMsPerChar)) },
    ],
  };
}

/** Milliseconds and ratios with two significant digits below 1 and 0.1, so that a refusal by size does not read 0.0. */
const figure = (n: number, digits: number): string => (n >= 10 ** (1 - digits) || n === 0 ? n.toFixed(digits) : n.toPrecision(2));

export function printLoader({ yardstick, groups }: LoaderBench): void {
  const all = [yardstick, ...groups.flatMap((g) => g.rows)];
  const width = Math.max(...all.map((r) => r.label.length));
  const row = (r: LoaderFigures) =>
    console.log(
      `${r.label.padEnd(width)} | ${(r.bytes / 1000).toLocaleString('en-US', { maximumFractionDigits: 0 }).padStart(7)} | ${figure(r.bestMs, 1).padStart(7)} | ` +
        `${`${figure(r.perCharRatio, 2)}×`.padStart(21)} | ${(r.bestMs < LOADER_BAR_MS ? 'PASS' : 'FAIL').padStart(13)} | ${r.answer}`,
    );
  const load = loadavg()
    .map((n) => n.toFixed(1))
    .join(', ');
  console.log(`load average ${load} (1, 5, 15 min): every figure here moves with the machine's load; compare rows of one run`);
  console.log(`${'case'.padEnd(width)} | size kB | best ms | ms/char ÷ its-not-dns | bar < ${LOADER_BAR_MS} ms | answer`);
  row(yardstick);
  for (const group of groups) {
    console.log(`  ${group.title}:`);
    group.rows.forEach(row);
  }
  const rows = groups.flatMap((g) => g.rows);
  const worst = rows.reduce((a, b) => (b.bestMs > a.bestMs ? b : a));
  const failed = rows.filter((r) => r.bestMs >= LOADER_BAR_MS).length;
  console.log(
    `slowest: ${worst.label}, ${worst.bestMs.toFixed(0)} ms (${((worst.bestMs / LOADER_BAR_MS) * 100).toFixed(0)}% of the bar); ` +
      `${failed === 0 ? 'every case PASS' : `${failed} of ${rows.length} cases FAIL`}`,
  );
}
