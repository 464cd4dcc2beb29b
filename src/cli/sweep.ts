import { readFileSync, writeFileSync } from 'node:fs';
import { checkSweepOptions, echo, impactOf, planSweep, rankRows, sweepCsv, type SweepRow, type VariantImpact } from '../sim';
import { OutputError, UsageError } from './args';
import { checkOutputs, loadFromArgs, readSource, unwritable } from './prepare';
import { runVariants } from './sweep-pool';
import type { MergeArgs, SweepArgs } from './sweep-args';

/** The first line of a sweep's table: what was swept, how many variants there are, and the unfaulted run's figures. */
export interface SweepHeader {
  record: 'sweep';
  scenario: string;
  source: string;
  seed: number;
  fixes: string[];
  sets: string[];
  faults: string[] | null;
  /** The risky settings chosen: null for all, [] for none (`--no-settings`). */
  settings: string[] | null;
  pairs: boolean;
  at: number;
  for: number;
  variants: number;
  untargeted: string[];
  /** Chosen risky settings with nothing in the scenario to apply to. */
  untargetedSettings: string[];
  /** Risky settings the scenario already has, on these targets: not variants. */
  settingsInEffect: { id: string; target: string }[];
  baseline: { digest: string; failedRequests: number; failedConnections: number };
  /** Only in a shard's output: which share of the variants it holds. */
  shard?: string;
}

/** Runs a sweep (or its shard) and writes its table; progress goes to stderr. */
export async function sweep(args: SweepArgs): Promise<void> {
  const source = readSource(args.scenario);
  checkOutputs({ out: args.out, csv: args.csv }, [{ path: source.fileName, what: 'the scenario file' }]);
  const { scenario, appliedFixes } = loadFromArgs(source, { ...args, faults: [] });
  const at = args.at ?? Math.floor(scenario.duration / 4);
  const options = { ...(args.faults ? { faults: args.faults } : {}), ...(args.settings ? { settings: args.settings } : {}), pairs: args.pairs, at, for: args.for ?? scenario.duration - at };
  try {
    checkSweepOptions(scenario, options);
  } catch (error) {
    // Its message starts with the option's name (`at: …`), which is the flag's.
    throw new UsageError(`--${(error as Error).message}`);
  }
  const plan = planSweep(scenario, appliedFixes, options);
  const { index, count } = args.shard;
  const mine = plan.variants.filter((v) => v.index % count === index).map((v) => v.index);
  const label = `sweep ${scenario.id}${count > 1 ? ` shard ${index}/${count}` : ''}`;
  const progress = progressLine(label, mine.length);
  progress(0);
  const runs = await runVariants(plan, mine, args.jobs, progress);
  const header: SweepHeader = {
    record: 'sweep',
    scenario: scenario.id,
    source: args.scenario,
    seed: scenario.seed,
    fixes: appliedFixes,
    sets: args.sets,
    faults: args.faults ?? null,
    settings: args.settings ?? null,
    pairs: args.pairs,
    at: options.at,
    for: options.for,
    variants: plan.variants.length,
    untargeted: plan.untargeted,
    untargetedSettings: plan.settings.untargeted,
    settingsInEffect: plan.settings.inEffect,
    baseline: {
      digest: plan.baseline.digest,
      failedRequests: plan.baseline.window.failed.reduce((a, b) => a + b, 0),
      failedConnections: plan.baseline.window.failedConnections,
    },
    ...(count > 1 ? { shard: `${index}/${count}` } : {}),
  };
  const rows = runs.map((run) => rowOf(header, impactOf(plan, run)));
  writeTable(header, count > 1 ? rows : rankRows(rows), args);
}

/** `onDone(n)` writes `label: n/total variants done` to stderr: in place on a terminal, else at every tenth. */
function progressLine(label: string, total: number): (done: number) => void {
  const tty = process.stderr.isTTY;
  let shown = -1;
  return (done) => {
    const tenth = total === 0 ? 10 : Math.floor((done * 10) / total);
    if (!tty && tenth === shown) return;
    shown = tenth;
    process.stderr.write(`${tty ? '\r' : ''}${label}: ${done}/${total} variants done${tty && done < total ? '' : '\n'}`);
  };
}

function rowOf(header: SweepHeader, impact: VariantImpact): SweepRow {
  const until = header.at + header.for;
  // The setting's overrides come after the sweep's, as the run applied them.
  const sets = [...header.sets, ...(impact.setting?.sets ?? [])];
  const replay = {
    scenario: header.source,
    seed: header.seed,
    fixes: header.fixes,
    sets,
    at: header.at,
    for: header.for,
  };
  const words = ['npm', 'run', 'sim', '--', header.source, '--seed', String(header.seed)];
  for (const fix of header.fixes) words.push('--fix', fix);
  for (const set of sets) words.push('--set', set);
  for (const f of impact.faults) words.push('--fault', `${header.at}:${f.fault}:${f.target}`);
  words.push('--until', String(until));
  // A shell comment, so the line names the setting its overrides turn on and still runs as it is.
  const named = impact.setting ? `  # risky setting ${impact.setting.id} on ${impact.setting.target}` : '';
  return { record: 'variant', ...impact, ...replay, command: words.map(shellWord).join(' ') + named };
}

/** A word a POSIX shell reads back as itself. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

function writeTable(header: SweepHeader, rows: readonly SweepRow[], outputs: { out?: string; csv?: string }): void {
  const jsonl = [header, ...rows].map((record) => JSON.stringify(record)).join('\n') + '\n';
  if (outputs.out !== undefined) writeOutput('--out', outputs.out, jsonl);
  else if (outputs.csv === undefined) process.stdout.write(jsonl);
  if (outputs.csv !== undefined) writeOutput('--csv', outputs.csv, sweepCsv(rows));
}

function writeOutput(flag: string, path: string, data: string): void {
  try {
    writeFileSync(path, data);
  } catch (error) {
    throw new OutputError(`${flag} ${echo(path)}: ${unwritable(error as NodeJS.ErrnoException, path)}`);
  }
}

/** Reads the tables of one sweep's shards, checks they are one sweep and hold every variant once, and writes it ranked. */
export function sweepMerge(args: MergeArgs): void {
  checkOutputs(
    { out: args.out, csv: args.csv },
    args.files.map((path) => ({ path, what: 'one of the files to merge' })),
  );
  let first: { file: string; header: SweepHeader; key: string } | undefined;
  const rows = new Map<number, { file: string; row: SweepRow }>();
  for (const file of args.files) {
    const { header, rows: own } = readTable(file);
    const rest: SweepHeader = { ...header };
    delete rest.shard;
    const key = JSON.stringify(rest);
    if (!first) first = { file, header: rest, key };
    else if (key !== first.key) throw new UsageError(`${echo(file)}: is not of the same sweep as ${echo(first.file)} (${differingField(first.header, rest)} differs)`);
    for (const row of own) {
      if (!Number.isInteger(row.index) || row.index < 0 || row.index >= rest.variants) {
        throw new UsageError(`${echo(file)}: variant index ${row.index} is not one of the sweep's (0 to ${rest.variants - 1})`);
      }
      const seen = rows.get(row.index);
      if (seen) throw new UsageError(`${echo(file)}: variant ${row.index} is also in ${echo(seen.file)}; give each shard once`);
      rows.set(row.index, { file, row });
    }
  }
  const header = first!.header;
  const missing = Array.from({ length: header.variants }, (_, i) => i).filter((i) => !rows.has(i));
  if (missing.length > 0) {
    const some = missing.slice(0, 5).join(', ') + (missing.length > 5 ? ', …' : '');
    throw new UsageError(`sweep-merge: ${missing.length} of the sweep's ${header.variants} variants are in none of the files (index ${some}); give every shard's output`);
  }
  writeTable(header, rankRows([...rows.values()].map((r) => r.row)), args);
}

function differingField(a: SweepHeader, b: SweepHeader): string {
  const keys = Object.keys({ ...a, ...b }) as (keyof SweepHeader)[];
  return keys.find((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])) ?? 'the order of its fields';
}

function readTable(file: string): { header: SweepHeader; rows: SweepRow[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${echo(file)}: cannot be read (${code === 'ENOENT' ? 'no such file' : (code ?? (error as Error).message)})`);
  }
  const lines = text.split('\n').filter((line, i, all) => line !== '' || i < all.length - 1);
  const records = lines.map((line, i) => {
    try {
      return JSON.parse(line) as { record?: unknown; index?: unknown };
    } catch {
      throw new UsageError(`${echo(file)}: line ${i + 1} is not JSON; expected the JSON lines a sweep writes with --out`);
    }
  });
  const [header, ...rows] = records;
  if (header?.record !== 'sweep') throw new UsageError(`${echo(file)}: line 1 is not a sweep's header; expected the JSON lines a sweep writes with --out`);
  rows.forEach((row, i) => {
    if (row?.record !== 'variant' || typeof row.index !== 'number') throw new UsageError(`${echo(file)}: line ${i + 2} is not a variant of the sweep`);
  });
  return { header: header as SweepHeader, rows: rows as SweepRow[] };
}
