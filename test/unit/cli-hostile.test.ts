import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../src/cli/args';
import { failure } from '../../src/cli/failure';
import { prepareRun } from '../../src/cli/prepare';
import { expectRefused, sim, STACK, type Exit } from '../fixtures/cli';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const MINIMAL = 'test/fixtures/scenario-minimal.yaml';
const tmp = mkdtempSync(join(tmpdir(), 'netmortem-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.concurrent('npm run sim on hostile input', () => {
  it('refuses a file too big to be a scenario without reading it', async () => {
    const path = join(tmp, 'huge.yaml');
    // Sparse: 3 GB on the file system's word, none of it written.
    writeFileSync(path, '');
    truncateSync(path, 3e9);
    expectRefused(await sim([path]), `scenario "${path}": is 3,000,000,000 bytes; a scenario may have at most 500,000 characters`);
  });

  it('refuses a folder as the scenario', async () => {
    expectRefused(await sim(['test/fixtures']), 'scenario "test/fixtures": is a folder');
  });

  it.each(['--out', '--csv', '--pcap'])('refuses %s into a missing folder before the run, so no report is lost', async (flag) => {
    const path = join(tmp, 'missing', 'x');
    const exit = await sim([MINIMAL, flag, path]);
    expectRefused(exit, `${flag} "${path}": folder "${join(tmp, 'missing')}" does not exist`);
    expect(exit.stdout).toBe('');
  });

  it('refuses an output that is the scenario file or another output', async () => {
    const scenario = join(tmp, 'own.yaml');
    writeFileSync(scenario, readFileSync(join(ROOT, MINIMAL)));
    expectRefused(await sim([scenario, '--out', scenario]), `--out "${scenario}": is the scenario file`);
    expect(readFileSync(scenario, 'utf8')).toBe(readFileSync(join(ROOT, MINIMAL), 'utf8'));
    const path = join(tmp, 'same');
    expectRefused(await sim([MINIMAL, '--out', path, '--csv', path]), `--csv "${path}": is --out`);
    expect(existsSync(path)).toBe(false);
  });

  it('refuses a --fault on a target the scenario does not have, before the run', async () => {
    const exit = await sim([MINIMAL, '--fault', '5:delete-pod:pod/nope']);
    expectRefused(exit, '--fault 5:delete-pod:pod/nope: no pod can be named "nope": a pod is placed by name under topology.nodes, or named <deployment>-<n>');
    expect(exit.stdout).toBe('');
    expectRefused(await sim([MINIMAL, '--fault', '1:scale-deployment:deployment/constructor:replicas=2']), '--fault 1:scale-deployment:deployment/constructor:replicas=2: ', '"constructor"');
  });

  it('stops at a --fault whose pod is not there when it lands, writing nothing', async () => {
    const out = join(tmp, 'late-pod.json');
    const exit = await sim([MINIMAL, '--fault', '2:delete-pod:pod/web-7', '--out', out]);
    expectRefused(exit, '--fault 2:delete-pod:pod/web-7: target: no running pod named "web-7" (when it landed at 2 s; nothing was written)');
    expect(existsSync(out)).toBe(false);
  });

  it('reads --until and --seed by the same number rule', async () => {
    expectRefused(await sim([MINIMAL, '--until', '0x10']), '--until: expected a number of seconds above 0, got "0x10"');
    expectRefused(await sim([MINIMAL, '--seed', '0x10']), '--seed: expected a whole number from 0 to 4294967295, got "0x10"');
  });

  it.each(['constructor', '__proto__', 'toString'])('refuses --fix %s naming the flag and the scenario’s fixes', async (name) => {
    expectRefused(await sim(['demo', '--fix', name]), `--fix "${name}": scenario "demo" has no such fix; its fixes: wait-for-propagation, short-connect-timeout, faster-propagation`);
  });

  it('ends quietly with exit 0 when standard output is closed early', async () => {
    for (const line of [`$SIM ${MINIMAL} --until 5 | head -1`, '$SIM --list | true', `$SIM ${MINIMAL} --until 1 | true`]) {
      const exit = await sim([], { shell: `${line}; echo "exit \${PIPESTATUS[0]}" >&2` });
      expect(exit.stderr).toBe('exit 0\n');
    }
  });

  it('names the flag when an output cannot be written after the run', async () => {
    const exit = await sim([MINIMAL, '--until', '1', '--out', '/dev/full']);
    expect(exit.stderr).toBe('netmortem: --out "/dev/full": no space left on the device\n');
    expect(exit.code).toBe(1);
  });

  it('turns an unexpected error into one line, the stack only with NETMORTEM_DEBUG=1', async () => {
    const preload = join(tmp, 'broken-clock.mjs');
    writeFileSync(preload, "performance.now = () => { throw new Error('the clock broke\\nsecond line'); };\n");
    const quiet = await sim([MINIMAL, '--until', '1'], { preload });
    expect(quiet.stderr).toBe('netmortem: internal error: the clock broke (NETMORTEM_DEBUG=1 shows the stack trace)\n');
    expect(quiet.code).toBe(1);
    const debug = await sim([MINIMAL, '--until', '1'], { preload, env: { NETMORTEM_DEBUG: '1' } });
    expect(debug.stderr).toMatch(/^netmortem: internal error: Error: the clock broke\nsecond line\n\s+at /);
    expect(debug.code).toBe(1);
  });

  it('still runs a good command line to the end', async () => {
    const out = join(tmp, 'report.json');
    const exit = await sim([MINIMAL, '--until', '3', '--fault', '1:delete-pod:pod/web-0', '--out', out]);
    expect([exit.code, exit.stderr]).toEqual([0, '']);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ scenario: 'minimal', simulatedSeconds: 3 });
  });
});

describe('the internal-error line', () => {
  it('keeps a long message to one bounded line', () => {
    const { code, text } = failure(new RangeError(`cannot schedule at ${'9'.repeat(10_000)}`), false);
    expect(code).toBe(1);
    expect(text.split('\n')).toHaveLength(2);
    expect(text.length).toBeLessThan(600);
  });
});

// Seeded fuzzing of command lines: anything may come in, and what comes out is a prepared run or a UsageError whose
// every line names a flag, the scenario argument or a field of the file; never any other exception.
// Mostly well-formed pieces with hostile ones mixed in, so that fuzzed lines get past the first flag and reach the
// checks made against the scenario.
const mostly = (good: readonly string[], hostile: readonly string[]) => fc.oneof({ arbitrary: fc.constantFrom(...good), weight: 3 }, { arbitrary: fc.constantFrom(...hostile), weight: 1 });
const scenarioArg = mostly([MINIMAL, 'demo'], ['test/fixtures', 'no-such.yaml', '', '/dev/null', 'public/scenarios/index.json', '-']);
const number = mostly(['0', '1', '2', '5', '1.5'], ['0x10', '1e3', '-1', '+5', ' 5', '.5', '5.', 'Infinity', 'NaN', '', '4294967296', '9'.repeat(400)]);
const name = mostly(['wait-for-propagation', 'faster-propagation'], ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'nope', '']);
const fault = fc.oneof(
  fc
    .tuple(
      number,
      mostly(['delete-pod', 'scale-deployment'], ['nope', 'constructor']),
      mostly(['pod', 'deployment'], ['node', 'constructor']),
      mostly(['web-0', 'web', 'client-0', 'web-9'], ['node-a', 'nope', '__proto__', 'toString']),
    )
    .map((parts) => parts.join(':')),
  fc.constantFrom('1:scale-deployment:deployment/web:replicas=3', '1:delete-pod:pod/web-0:gracePeriodSeconds=abc', '1:delete-pod:pod/web-0:constructor=1', '1:delete-pod:pod/web-0:', 'x'),
);
const set = mostly(
  ['duration=5', 'seed=7', 'topology.deployments.web.replicas=2'],
  ['duration=0x10', 'duration=-1', '__proto__.x=1', 'constructor=1', 'timeline[0].at=1', 'params.nope.x=1', 'duration', '=1'],
);
const output = mostly([join(tmp, 'fuzz-out'), '/dev/null'], [join(tmp, 'missing', 'fuzz-out'), tmp, '', '/proc/nope/x', join(tmp, 'own.yaml')]);
const flagged = (flag: string, value: fc.Arbitrary<string>) => fc.tuple(value, fc.boolean()).map(([v, inline]) => (inline ? [`${flag}=${v}`] : [flag, v]));
const token = fc.oneof(
  flagged('--seed', number),
  flagged('--until', number),
  flagged('--pcap-every', number),
  flagged('--fix', name),
  flagged('--fault', fault),
  flagged('--set', set),
  flagged('--out', output),
  flagged('--csv', output),
  flagged('--pcap', output),
  fc.constantFrom(['--list'], ['--help'], ['--bogus'], ['-x'], ['--'], ['--seed'], ['--out'], [MINIMAL]),
);
const commandLine = fc
  .tuple(fc.oneof({ arbitrary: fc.constant(undefined), weight: 1 }, { arbitrary: scenarioArg, weight: 8 }), fc.array(token, { maxLength: 4 }))
  .map(([scenario, tokens]) => [...(scenario === undefined ? [] : [scenario]), ...tokens.flat()]);

const DEMO_FILE = join(ROOT, 'public/scenarios/demo.yaml');
const NAMES_A_FLAG = /^(--[a-z-]*|-[^-]|scenario "|missing scenario|unexpected argument ")/;

/**
 * Throws unless the command line prepares a run or is refused with lines that each name where the problem is; says
 * how far it got, so the fuzz can show it reaches the checks made against the scenario.
 */
function checkCommandLine(argv: readonly string[]): 'prepared' | 'refused by its flags' | 'refused against the scenario' | 'no run' {
  let stage: 'refused by its flags' | 'refused against the scenario' = 'refused by its flags';
  try {
    const args = parseArgs([...argv]);
    if (args.help || args.list) return 'no run';
    stage = 'refused against the scenario';
    prepareRun(args);
    return 'prepared';
  } catch (error) {
    if (!(error instanceof UsageError)) throw new Error(`${JSON.stringify(argv)} threw ${(error as Error).stack}`);
    for (const line of error.message.split('\n')) {
      const inFile = [...argv, DEMO_FILE].some((file) => file !== '' && line.startsWith(`${file}: `));
      expect(inFile || NAMES_A_FLAG.test(line), `${JSON.stringify(argv)}: ${line}`).toBe(true);
      expect(line.length, JSON.stringify(argv)).toBeLessThan(1000);
      expect(line, JSON.stringify(argv)).not.toContain('internal error');
    }
    return stage;
  }
}

// `npm run fuzz:cli` runs longer; FUZZ_SEED picks other command lines, FUZZ_RUNS of them checked in-process and
// FUZZ_SPAWNS run as processes.
const FUZZ_RUNS = Number(process.env['FUZZ_RUNS'] ?? 300);
const FUZZ_SPAWNS = Number(process.env['FUZZ_SPAWNS'] ?? 4);
const FUZZ_SEED = Number(process.env['FUZZ_SEED'] ?? 22);

// Command lines the fuzz once found wrong, kept as they were found.
const PINNED: string[][] = [
  // Found against main: a folder as the scenario threw EISDIR.
  ['test/fixtures'],
  // The robustness probe's command lines (issue 22).
  ['demo', '--fix', 'constructor'],
  [MINIMAL, '--fix', '__proto__'],
  ['demo', '--fix', 'toString'],
  ['demo', '--until', '0x10'],
];

describe('seeded fuzzing of command lines', () => {
  it.each(PINNED.map((argv) => [argv]))('pinned: %j', (argv) => {
    expect(checkCommandLine(argv)).toMatch(/^refused/);
  });

  it('prepares or refuses every fuzzed command line, naming its source', () => {
    const outcomes = new Map<string, number>();
    fc.assert(
      fc.property(commandLine, (argv) => {
        const outcome = checkCommandLine(argv);
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_RUNS },
    );
    for (const outcome of ['prepared', 'refused by its flags', 'refused against the scenario']) expect(outcomes.get(outcome) ?? 0, outcome).toBeGreaterThan(FUZZ_RUNS / 10);
  });

  it(
    'exits 0, 1 for failed expectations only, or 2, never with a stack trace, when run',
    async () => {
      const lines = fc.sample(commandLine, { seed: FUZZ_SEED, numRuns: FUZZ_SPAWNS });
      const exits: Exit[] = [];
      // Two at a time: the machine running the tests has few cores.
      for (let i = 0; i < lines.length; i += 2) exits.push(...(await Promise.all(lines.slice(i, i + 2).map((argv) => sim([...argv, '--until', '1'])))));
      exits.forEach((exit, i) => {
        const context = JSON.stringify(lines[i]);
        expect(exit.stderr, context).not.toMatch(STACK);
        if (exit.code === 1)
          expect(exit.stderr.trimEnd().split('\n'), context).toEqual(
            exit.stderr
              .trimEnd()
              .split('\n')
              .map(() => expect.stringMatching(/^expectation failed: /)),
          );
        else expect([0, 2], context).toContain(exit.code);
      });
    },
    30_000 + FUZZ_SPAWNS * 4_000,
  );
});
