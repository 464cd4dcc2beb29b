import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { atSeconds, echo, oneLine, seconds, toSeconds, type SimTime, loadScenario, faultCatalog, FAULT_IDS, seriesCsv, timelineFailure } from '../sim';
import { OutputError, parseArgs, USAGE, UsageError, type CliArgs } from './args';
import { DEBUG_ENV, failure } from './failure';
import { prepareRun, unwritable, type PreparedRun } from './prepare';
import { readScenarioSource, shippedScenarios } from './shipped';
import { sweep, sweepMerge } from './sweep';
import { parseMergeArgs, parseSweepArgs, SWEEP_USAGE } from './sweep-args';

function list(): void {
  const out: string[] = ['Scenarios (public/scenarios):'];
  for (const entry of shippedScenarios()) {
    out.push(`  ${entry.id.padEnd(24)} ${entry.title}`);
    const source = readScenarioSource(entry.file);
    const loaded = source ? loadScenario(source.text, source.fileName, { faultIds: FAULT_IDS }) : null;
    if (loaded?.ok) {
      for (const [name, fix] of Object.entries(loaded.scenario.fixes)) out.push(`      --fix ${name.padEnd(20)} ${fix.description}`);
    } else out.push(`      (does not load: ${loaded ? loaded.errors[0] : 'missing file'})`);
  }
  out.push('', 'Faults:');
  for (const fault of faultCatalog()) {
    out.push(`  ${fault.id.padEnd(24)} ${fault.label} → ${fault.targets.map((t) => `${t}/<name>`).join(', ')}`);
    for (const p of fault.params) {
      const range = p.kind === 'number' ? ` (${p.min ?? '…'}–${p.max ?? '…'}${p.unit ? ' ' + p.unit : ''})` : p.kind === 'choice' ? ` (one of ${(p.choices ?? []).join(', ')})` : '';
      out.push(`      ${p.name.padEnd(22)} default ${p.default}${range}`);
    }
  }
  process.stdout.write(out.join('\n') + '\n');
}

/**
 * A `--fault` that failed where it landed (a pod already gone, a node already joined) makes the run not the one asked
 * for: stop there, as for any bad input, before anything is written.
 */
function checkLanded(run: PreparedRun, landing: number): void {
  for (const fault of run.faults) {
    const reason = timelineFailure(run.sim, fault.index, landing as SimTime);
    if (reason === undefined) continue;
    throw new UsageError(`--fault ${oneLine(fault.spec)}: ${reason} (when it landed at ${fault.at} s; nothing was written)`);
  }
}

function writeOutput(flag: string, path: string, data: string | Uint8Array): void {
  try {
    writeFileSync(path, data);
  } catch (error) {
    throw new OutputError(`${flag} ${echo(path)}: ${unwritable(error as NodeJS.ErrnoException, path)}`);
  }
}

function execute(run: PreparedRun, args: CliArgs): number {
  const { sim, scenario, end } = run;
  const landings = [...new Set(run.faults.map((f) => atSeconds(f.at) as number))].sort((a, b) => a - b);
  let next = 0;
  const progress = process.stderr.isTTY;
  const started = performance.now();
  for (let t = sim.now() as number; t < end;) {
    const landing = landings[next];
    t = Math.min(end, t + seconds(1), landing ?? Infinity);
    sim.runUntil(t as SimTime);
    if (t === landing) checkLanded(run, landings[next++]!);
    if (progress) {
      process.stderr.write(`\r${scenario.id}: ${toSeconds(sim.now()).toFixed(0)}/${toSeconds(end as SimTime)} s simulated, ${sim.eventsExecuted()} events`);
    }
  }
  if (progress) process.stderr.write('\n');
  const report = sim.report(Math.round(performance.now() - started));
  const json = JSON.stringify(report, null, 2) + '\n';
  if (args.out) writeOutput('--out', args.out, json);
  else process.stdout.write(json);
  if (args.pcap !== undefined) writeOutput('--pcap', args.pcap, sim.pcap()!);
  if (args.csv !== undefined) writeOutput('--csv', args.csv, seriesCsv(report));
  const failed = report.expect.filter((e) => !e.held);
  for (const f of failed) process.stderr.write(`expectation failed: ${f.description} (${f.actual === null ? (f.missing ?? 'no data') : `actual ${f.actual}`})\n`);
  return failed.length > 0 ? 1 : 0;
}

function main(argv: string[]): number | Promise<number> {
  if (argv[0] === 'sweep' || argv[0] === 'sweep-merge') return sweepCommand(argv[0], argv.slice(1));
  const args = parseArgs(argv);
  if (args.help) {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  if (args.list) {
    list();
    return 0;
  }
  return execute(prepareRun(args), args);
}

async function sweepCommand(command: 'sweep' | 'sweep-merge', argv: string[]): Promise<number> {
  const args = command === 'sweep' ? parseSweepArgs(argv) : parseMergeArgs(argv);
  if ('help' in args) process.stdout.write(SWEEP_USAGE + '\n');
  else if ('files' in args) await sweepMerge(args);
  else await sweep(args);
  return 0;
}

function stop(error: unknown): never {
  const { code, text } = failure(error, process.env[DEBUG_ENV] === '1');
  process.stderr.write(text);
  process.exit(code);
}

// A reader that stops early (`| head -1`) closes the pipe: that ends the output, not in an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' ? process.exit(0) : stop(error)));
process.stderr.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') process.exit(1);
});
process.on('uncaughtException', stop);

try {
  const code = main(process.argv.slice(2));
  if (typeof code === 'number') process.exitCode = code;
  else code.then((c) => (process.exitCode = c), stop);
} catch (error) {
  stop(error);
}
