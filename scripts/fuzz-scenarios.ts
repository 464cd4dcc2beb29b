// The longer run of the scenario property test (test/unit/hostile-scenarios.test.ts): random mutants of every
// shipped scenario, each refused field by field or run for 5 simulated seconds, with a ceiling on the events a run may
// take. A failure prints its seed and path, to pin in that test file as a regression case.
//
//   FUZZ_RUNS=200 FUZZ_SEED=7 npm run fuzz:scenarios [-- file.yaml ...]
//
// FUZZ_RUNS is the number of mutants per scenario (default 100), FUZZ_SEED the first seed (default: the time).
// FUZZ_MAX_EVENTS (default 20,000,000) is the most events five simulated seconds may take.
import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import { fixChoices, loadAndRun, mutants, SHIPPED, shippedDoc } from '../test/fixtures/hostile-mutants';

function envInt(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text)) {
    console.error(`fuzz:scenarios: ${name} must be a whole number, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return Number(text);
}

const runs = envInt('FUZZ_RUNS', 100);
const seed = envInt('FUZZ_SEED', Date.now() % 2 ** 31);
const maxEvents = envInt('FUZZ_MAX_EVENTS', 20_000_000);
const files = process.argv.slice(2);
const unknown = files.filter((f) => !SHIPPED.includes(f));
if (unknown.length > 0) {
  console.error(`fuzz:scenarios: no shipped scenario ${unknown.join(', ')} (have: ${SHIPPED.join(', ')})`);
  process.exit(2);
}

let failed = 0;
for (const file of files.length > 0 ? files : SHIPPED) {
  const doc = shippedDoc(file);
  let loaded = 0;
  let slowest = 0;
  const started = performance.now();
  const result = fc.check(
    fc.property(mutants(doc, 3), fixChoices(doc), (mutant, fixes) => {
      const begun = performance.now();
      const outcome = loadAndRun(mutant, fixes, file, maxEvents);
      if (outcome.loaded) loaded++;
      slowest = Math.max(slowest, performance.now() - begun);
    }),
    { seed, numRuns: runs },
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`${file}: ${runs} mutants, ${loaded} ran, slowest ${(slowest / 1000).toFixed(1)} s, ${seconds} s in all (seed ${seed})`);
  if (result.failed) {
    failed++;
    console.log(`${String(result.errorInstance)}\n${fc.defaultReportMessage(result)}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
