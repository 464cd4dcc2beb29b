import { readFileSync, writeFileSync } from 'node:fs';
import { checkSweepOptions, echo, impactOf, planSweep, rankRows, sweepCsv, sweepHeader, sweepReportHtml, sweepRow, type SweepHeader, type SweepRow, type VariantImpact } from '../sim';
import { OutputError, UsageError } from './args';
import { checkOutputs, loadFromArgs, readSource, unwritable } from './prepare';
import { measureFixes, replan } from './sweep-fixes';
import { withLinks } from './sweep-links';
import { progressLine, runVariants } from './sweep-pool';
import type { MergeArgs, SweepArgs } from './sweep-args';

export type { SweepHeader } from '../sim';

/** Runs a sweep (or its shard) and writes its table; progress goes to stderr. */
export async function sweep(args: SweepArgs): Promise<void> {
  const source = readSource(args.scenario);
  checkOutputs({ out: args.out, csv: args.csv, html: args.html }, [{ path: source.fileName, what: 'the scenario file' }]);
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
  const progress = progressLine(label, mine.length, 'variants');
  progress(0);
  const runs = await runVariants(plan, mine, args.jobs, progress);
  const header: SweepHeader = {
    ...sweepHeader(plan, { scenario: scenario.id, source: args.scenario, seed: scenario.seed, sets: args.sets }),
    ...(count > 1 ? { shard: `${index}/${count}` } : { fixTop: args.fixTop }),
  };
  const rows = runs.map((run) => rowOf(header, impactOf(plan, run)));
  if (count > 1) return writeTable(header, rows, args);
  const ranked = await measureFixes(source, args, plan, rankRows(rows), args.fixTop, args.jobs, label);
  writeTable(header, ranked, args);
}

function rowOf(header: SweepHeader, impact: VariantImpact): SweepRow {
  return sweepRow({ scenario: header.source, seed: header.seed, fixes: header.fixes, sets: header.sets, timeline: [], at: header.at, for: header.for }, impact);
}

function writeTable(header: SweepHeader, table: readonly SweepRow[], outputs: { out?: string; csv?: string; html?: string; app?: string }): void {
  const rows = outputs.app === undefined ? table : withLinks(outputs.app, header, table);
  const jsonl = [header, ...rows].map((record) => JSON.stringify(record)).join('\n') + '\n';
  if (outputs.out !== undefined) writeOutput('--out', outputs.out, jsonl);
  else if (outputs.csv === undefined && outputs.html === undefined) process.stdout.write(jsonl);
  if (outputs.csv !== undefined) writeOutput('--csv', outputs.csv, sweepCsv(rows));
  if (outputs.html !== undefined) writeOutput('--html', outputs.html, sweepReportHtml(header, rows));
}

function writeOutput(flag: string, path: string, data: string): void {
  try {
    writeFileSync(path, data);
  } catch (error) {
    throw new OutputError(`${flag} ${echo(path)}: ${unwritable(error as NodeJS.ErrnoException, path)}`);
  }
}

/**
 * Reads the tables of one sweep's shards, checks they are one sweep and hold every variant once (throwing before it
 * returns), then tries the scenario's fixes on the worst rows as a whole sweep does and writes the table ranked.
 */
export function sweepMerge(args: MergeArgs): Promise<void> {
  checkOutputs(
    { out: args.out, csv: args.csv, html: args.html },
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
  const ranked = rankRows([...rows.values()].map((r) => r.row));
  const whole: SweepHeader = { ...header, fixTop: args.fixTop };
  if (args.fixTop === 0) return Promise.resolve(writeTable(whole, ranked, args));
  const again = replan(header);
  if (!again) return Promise.resolve(writeTable(whole, ranked, args));
  return measureFixes(again.source, { seed: header.seed, sets: header.sets, fixes: header.fixes }, again.plan, ranked, args.fixTop, args.jobs, `sweep-merge ${header.scenario}`).then(
    (measured) => writeTable(whole, measured, args),
  );
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
