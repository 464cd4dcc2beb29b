import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { atSeconds, seconds, toSeconds, type SimTime, loadScenario, createSim, faultCatalog, FAULT_IDS, seriesCsv } from '../sim';
import { faultSets, parseArgs, USAGE, UsageError, type CliArgs } from './args';
import { readScenarioSource, shippedScenarios } from './shipped';

// The latest million packets: about 60 MB of file, enough for minutes of a busy scenario.
const PCAP_CAPACITY = 1_000_000;

function fail(message: string): never {
  process.stderr.write(`netmortem: ${message}\n`);
  process.exit(2);
}

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

function run(args: CliArgs): number {
  const source = readScenarioSource(args.scenario!);
  if (!source) fail(`${args.scenario}: no such file, and no shipped scenario has that id (see --list)`);
  const options = { seed: args.seed, fixes: args.fixes, sets: args.sets, faultIds: FAULT_IDS, faults: faultCatalog() };
  let loaded = loadScenario(source.text, source.fileName, options);
  if (loaded.ok && args.faults.length > 0) {
    // --fault entries go after the timeline the scenario ends up with, fixes and --set included.
    const sets = [...args.sets, ...faultSets(args.faults, loaded.scenario.timeline.length)];
    loaded = loadScenario(source.text, source.fileName, { ...options, sets });
  }
  if (!loaded.ok) fail(`${source.fileName} is not a valid scenario:\n  ${loaded.errors.join('\n  ')}`);
  const scenario = loaded.scenario;
  if (args.until !== undefined && args.until > scenario.duration) {
    fail(`--until: ${args.until} s is past the scenario's duration (${scenario.duration} s); raise it with --set duration=${args.until}`);
  }
  const capture = args.pcap === undefined ? undefined : { every: args.pcapEvery, capacity: PCAP_CAPACITY };
  const sim = createSim(scenario, { fixes: loaded.appliedFixes, capture });
  const end = args.until === undefined ? sim.durationUs : atSeconds(args.until);
  const progress = process.stderr.isTTY;
  const started = performance.now();
  for (let t = sim.now() as number; t < end;) {
    t = Math.min(end, t + seconds(1));
    sim.runUntil(t as SimTime);
    if (progress) {
      process.stderr.write(`\r${scenario.id}: ${toSeconds(sim.now()).toFixed(0)}/${toSeconds(end)} s simulated, ${sim.eventsExecuted()} events`);
    }
  }
  if (progress) process.stderr.write('\n');
  const report = sim.report(Math.round(performance.now() - started));
  const json = JSON.stringify(report, null, 2) + '\n';
  if (args.out) writeFileSync(args.out, json);
  else process.stdout.write(json);
  if (args.pcap !== undefined) writeFileSync(args.pcap, sim.pcap()!);
  if (args.csv !== undefined) writeFileSync(args.csv, seriesCsv(report));
  const failed = report.expect.filter((e) => !e.held);
  for (const f of failed) process.stderr.write(`expectation failed: ${f.description} (${f.actual === null ? (f.missing ?? 'no data') : `actual ${f.actual}`})\n`);
  return failed.length > 0 ? 1 : 0;
}

function main(): void {
  let args: CliArgs;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) fail(`${error.message}\n${USAGE}`);
    throw error;
  }
  if (args.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (args.list) {
    list();
    return;
  }
  process.exitCode = run(args);
}

main();
