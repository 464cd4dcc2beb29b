import { echo, FAULT_IDS, FIX_TOP, MAX_FIX_TOP, oneLine, SETTING_IDS } from '../sim';
import { MAX_LINK_CHARS } from '../state/share-link';
import { filePath, loadFlag, parseNumber, scanArgs, UsageError, type NumberRule } from './args';

/** `npm run sim -- sweep …`, parsed without side effects. */
export interface SweepArgs {
  scenario: string;
  seed?: number;
  sets: string[];
  fixes: string[];
  /** Catalog fault ids to try; all when absent. */
  faults?: string[];
  /** Risky setting ids to try; all when absent, none when empty (`--no-settings`). */
  settings?: string[];
  pairs: boolean;
  at?: number;
  for?: number;
  jobs: number;
  /** Run only the variants whose index mod `count` is `index` (0-based). */
  shard: { index: number; count: number };
  out?: string;
  csv?: string;
  html?: string;
  /** Where the app is served, for a link per row that replays it there. */
  app?: string;
  /** How many of the worst rows each of the scenario's fixes is tried on (0: none). */
  fixTop: number;
}

/** `npm run sim -- sweep-merge FILE... [--out FILE] [--csv FILE] [--html FILE] [--fix-top N] [--jobs N]`. */
export interface MergeArgs {
  files: string[];
  out?: string;
  csv?: string;
  html?: string;
  app?: string;
  fixTop: number;
  jobs: number;
}

export const SWEEP_USAGE = `usage: npm run sim -- sweep <scenario-file-or-id> [--faults a,b,...] [--settings a,b,... | --no-settings] [--pairs]
                          [--at SECONDS] [--for SECONDS]
                          [--jobs N] [--shard I/N] [--fix-top N] [--seed N] [--set path=value]... [--fix NAME]...
                          [--out FILE] [--csv FILE] [--html FILE] [--app URL]
       npm run sim -- sweep-merge FILE.jsonl... [--fix-top N] [--jobs N] [--out FILE] [--csv FILE] [--html FILE] [--app URL]

  --faults a,b      only these catalog faults (default: every fault; see --list)
  --settings a,b    only these risky settings, each turned on from time 0 where the scenario does not have it
                    (default: all: ${SETTING_IDS.join(', ')})
  --no-settings     no risky settings, faults only
  --pairs           also every two of the single faults, landing together, and each setting with each single fault
  --at SECONDS      when the faults land (default: a quarter into the run, in whole seconds)
  --for SECONDS     how long each run goes on after them (default: to the scenario's end)
  --jobs N          run N variants at a time on worker threads (default 1, at most 256)
  --shard I/N       run only the variants whose index mod N is I; I is 0-based (0/3, 1/3, 2/3), N at most 100000
  --fix-top N       try each of the scenario's own fixes on the N worst rows that did harm, a run per fix and row
                    (default ${FIX_TOP}; 0: none; at most ${MAX_FIX_TOP}); a shard tries none, its merge does
  --out FILE        write the table as JSON lines there (default: standard output)
  --csv FILE        write the table as CSV there
  --html FILE       write the report there: one HTML file, readable offline, with charts of the worst rows
  --app URL         where the app is served (https://…/ or file:///…/index.html): each row gets a link that replays
                    its run there (rows whose link would be over ${MAX_LINK_CHARS.toLocaleString('en-US')} characters get none)
  --seed, --set, --fix   load the scenario as a run does

A whole sweep writes its rows ranked; a shard writes its rows in variant order, and sweep-merge checks the shards are
of one sweep and cover every variant once, then ranks them. Same sweep, same table, whatever --jobs or sharding.`;

const JOBS: NumberRule = { integer: true, min: 1, max: 256 };
const FIX_TOP_RULE: NumberRule = { integer: true, min: 0, max: MAX_FIX_TOP };
const SHARD_COUNT: NumberRule = { integer: true, min: 1, max: 100_000 };
const SHARD_INDEX: NumberRule = { integer: true, min: 0 };
const SECONDS_FROM_0: NumberRule = { integer: false, min: 0, unit: 'seconds' };
const SECONDS_ABOVE_0: NumberRule = { integer: false, min: 0, aboveMin: true, unit: 'seconds' };

export function parseSweepArgs(argv: readonly string[]): SweepArgs | { help: true } {
  const args: Omit<SweepArgs, 'scenario'> & { scenario?: string } = { sets: [], fixes: [], pairs: false, jobs: 1, shard: { index: 0, count: 1 }, fixTop: FIX_TOP };
  let help = false;
  scanArgs(
    argv,
    (flag, value) => {
      switch (flag) {
        case '--help':
        case '-h':
          help = true;
          return true;
        case '--faults':
          args.faults = idList(flag, value(), FAULT_IDS, 'fault', 'in the catalog (see --list)');
          return true;
        case '--settings':
          if (args.settings?.length === 0) throw new UsageError('--settings: cannot be given with --no-settings');
          args.settings = idList(flag, value(), SETTING_IDS, 'risky setting', `(known: ${SETTING_IDS.join(', ')})`);
          return true;
        case '--no-settings':
          if (args.settings !== undefined && args.settings.length > 0) throw new UsageError('--no-settings: cannot be given with --settings');
          args.settings = [];
          return true;
        case '--pairs':
          args.pairs = true;
          return true;
        case '--at':
          args.at = parseNumber(flag, value(), SECONDS_FROM_0);
          return true;
        case '--for':
          args.for = parseNumber(flag, value(), SECONDS_ABOVE_0);
          return true;
        case '--jobs':
          args.jobs = parseNumber(flag, value(), JOBS);
          return true;
        case '--shard':
          args.shard = shard(value());
          return true;
        case '--out':
          args.out = filePath(flag, value());
          return true;
        case '--csv':
          args.csv = filePath(flag, value());
          return true;
        case '--html':
          args.html = filePath(flag, value());
          return true;
        case '--app':
          args.app = appAddress(value());
          return true;
        case '--fix-top':
          args.fixTop = parseNumber(flag, value(), FIX_TOP_RULE);
          return true;
        default:
          return loadFlag(args, flag, value);
      }
    },
    (arg) => {
      if (args.scenario !== undefined) throw new UsageError(`unexpected argument ${echo(arg)}: a sweep takes one scenario`);
      args.scenario = arg;
    },
  );
  if (help) return { help };
  if (args.scenario === undefined) throw new UsageError('sweep: missing scenario: give a file path or a shipped scenario id (see --list)');
  if (args.shard.count > 1 && args.html !== undefined) throw new UsageError('--html: a shard holds only part of the table; write the report with sweep-merge');
  return { ...args, scenario: args.scenario };
}

/** The app's address without a query or fragment, which each row's link then adds its own to. */
function appAddress(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:', 'file:'].includes(url.protocol)) {
    throw new UsageError(`--app: expected the address the app is served at, like https://example.org/netmortem/ or file:///srv/netmortem/index.html, got ${echo(text)}`);
  }
  url.search = '';
  url.hash = '';
  return url.href;
}

/** A comma-separated list of ids, each one of `known` and each once. */
function idList(flag: string, text: string, known: readonly string[], what: string, where: string): string[] {
  const ids = text.split(',');
  for (const id of ids) {
    if (!known.includes(id)) throw new UsageError(`${flag}: no ${what} ${echo(id)} ${where}`);
  }
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated !== undefined) throw new UsageError(`${flag}: ${echo(repeated)} is listed twice`);
  return ids;
}

function shard(text: string): { index: number; count: number } {
  const match = /^([^/]*)\/([^/]*)$/.exec(text);
  if (!match) throw new UsageError(`--shard: expected I/N with I from 0 to N-1 (0-based: 0/3, 1/3, 2/3), got ${echo(text)}`);
  const count = parseNumber('--shard: N', match[2]!, SHARD_COUNT);
  const index = parseNumber('--shard: I', match[1]!, SHARD_INDEX);
  if (index >= count) throw new UsageError(`--shard: I is 0-based, so ${oneLine(text)} needs I from 0 to ${count - 1}`);
  return { index, count };
}

export function parseMergeArgs(argv: readonly string[]): MergeArgs | { help: true } {
  const args: MergeArgs = { files: [], fixTop: FIX_TOP, jobs: 1 };
  let help = false;
  scanArgs(
    argv,
    (flag, value) => {
      if (flag === '--help' || flag === '-h') help = true;
      else if (flag === '--out') args.out = filePath(flag, value());
      else if (flag === '--csv') args.csv = filePath(flag, value());
      else if (flag === '--html') args.html = filePath(flag, value());
      else if (flag === '--app') args.app = appAddress(value());
      else if (flag === '--fix-top') args.fixTop = parseNumber(flag, value(), FIX_TOP_RULE);
      else if (flag === '--jobs') args.jobs = parseNumber(flag, value(), JOBS);
      else return false;
      return true;
    },
    (arg) => args.files.push(arg),
  );
  if (help) return { help };
  if (args.files.length === 0) throw new UsageError("sweep-merge: give the JSON lines files of a sweep (each shard's --out)");
  return args;
}
