import { echo, oneLine } from '../sim';

/** Command-line arguments of `npm run sim`, parsed without side effects so they can be tested. */
export interface CliArgs {
  scenario?: string;
  list: boolean;
  help: boolean;
  seed?: number;
  until?: number;
  sets: string[];
  fixes: string[];
  /** Extra timeline entries, `AT:FAULT:KIND/NAME[:param=value,...]`, appended after the scenario's own. */
  faults: string[];
  out?: string;
  /** Write the captured packets there as a pcap file. */
  pcap?: string;
  /** Capture one packet in this many. */
  pcapEvery: number;
  /** Write the metric series there as CSV. */
  csv?: string;
}

/** Invalid input, found before the run: exit 2. */
export class UsageError extends Error {}

/** An output file that could not be written after the run: exit 1, naming the flag. */
export class OutputError extends Error {}

export const USAGE = `usage: npm run sim -- <scenario-file-or-id> [--seed N] [--until SECONDS] [--set path=value]... [--fix NAME]... [--fault SPEC]... [--out FILE]
                          [--pcap FILE [--pcap-every N]] [--csv FILE]
       npm run sim -- --list
       npm run sim -- sweep <scenario-file-or-id> [options]   (every fault on every target, ranked; sweep --help)

  --seed N          run with this seed instead of the scenario's (integer 0..4294967295)
  --until SECONDS   stop the run at this simulated time (at most the scenario's duration)
  --set path=value  override any scenario value by dotted path, e.g. params.client.reconnectMs=600
  --fix NAME        apply one of the scenario's named fixes (repeatable, applied in order)
  --fault SPEC      add a fault to the timeline: AT:FAULT:KIND/NAME[:param=value,...], e.g.
                    20:scale-deployment:deployment/web:replicas=5 (see --list for faults and params)
  --out FILE        write the run report there instead of standard output
  --pcap FILE       write the packets that left sockets as a pcap file (Ethernet, IPv4, TCP/UDP headers, simulated
                    timestamps; the latest million); ZooKeeper's flow-modelled packets are not in it
  --pcap-every N    capture one packet in N (default 1)
  --csv FILE        write every metric series as CSV, one row per simulated second
  --list            list shipped scenarios, their fixes, and the fault catalog

Numbers are plain decimals (30, 2.5; no signs, exponents or hex). Every input is checked before the run: a bad one
stops it with one line naming the flag, and nothing is written.

Exit status: 0 when the run completes and every expectation holds (or standard output was closed early), 1 when one
fails or on an internal error (one line; NETMORTEM_DEBUG=1 adds the stack trace), 2 for invalid input.`;

function takeValue(argv: readonly string[], i: number, flag: string): string {
  const value = argv[i + 1];
  if (value === undefined || value.startsWith('--')) throw new UsageError(`${oneLine(flag)}: needs a value`);
  return value;
}

/** What a numeric flag takes; every number on the command line is read by `parseNumber` against one of these. */
export interface NumberRule {
  integer: boolean;
  min: number;
  /** The minimum itself is refused (a duration must be above 0). */
  aboveMin?: boolean;
  max?: number;
  unit?: string;
}

const SEED: NumberRule = { integer: true, min: 0, max: 0xffffffff };
const UNTIL: NumberRule = { integer: false, min: 0, aboveMin: true, unit: 'seconds' };
const FAULT_AT: NumberRule = { integer: false, min: 0, unit: 'seconds' };
const PCAP_EVERY: NumberRule = { integer: true, min: 1 };

/** Reads a plain decimal (no sign, exponent, hex or spaces) within the rule's range, or throws naming the flag. */
export function parseNumber(flag: string, text: string, rule: NumberRule): number {
  const pattern = rule.integer ? /^\d+$/ : /^\d+(\.\d+)?$/;
  const value = Number(text);
  const inRange = (rule.aboveMin ? value > rule.min : value >= rule.min) && (rule.max === undefined || value <= rule.max);
  if (pattern.test(text) && Number.isFinite(value) && (!rule.integer || Number.isSafeInteger(value)) && inRange) return value;
  const what = `${rule.integer ? 'a whole number' : 'a number'}${rule.unit ? ` of ${rule.unit}` : ''}`;
  const range = `${rule.aboveMin ? 'above' : 'from'} ${rule.min}${rule.max === undefined ? '' : ` to ${rule.max}`}`;
  throw new UsageError(`${flag}: expected ${what} ${range}, got ${echo(text)}`);
}

/**
 * Walks a command line: `--flag value` and `--flag=value` reach `onFlag`, which takes the value only if the flag has
 * one (`value()` throws naming the flag when it is missing; `--flag=value` for one that takes none is refused) and returns
 * false for a flag it does not know; anything else reaches `onWord`.
 */
export function scanArgs(argv: readonly string[], onFlag: (flag: string, value: () => string) => boolean, onWord: (arg: string) => void): void {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    let taken = false;
    const value = (): string => {
      taken = true;
      if (inline !== undefined) return inline;
      const v = takeValue(argv, i, flag);
      i++;
      return v;
    };
    if (arg.startsWith('-')) {
      if (!onFlag(flag, value)) throw new UsageError(`${oneLine(flag)}: unknown option (see --help)`);
      if (inline !== undefined && !taken) throw new UsageError(`${oneLine(flag)}: takes no value, got ${echo(arg)}`);
    } else onWord(arg);
  }
}

/** The flags that choose how a scenario is loaded, shared by a run and a sweep; false for any other flag. */
export function loadFlag(args: Pick<CliArgs, 'seed' | 'sets' | 'fixes'>, flag: string, value: () => string): boolean {
  switch (flag) {
    case '--seed':
      args.seed = parseNumber(flag, value(), SEED);
      return true;
    case '--set': {
      const text = value();
      if (!text.includes('=')) throw new UsageError(`--set: expected path=value, got ${echo(text)}`);
      args.sets.push(text);
      return true;
    }
    case '--fix':
      args.fixes.push(value());
      return true;
    default:
      return false;
  }
}

export function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = { list: false, help: false, sets: [], fixes: [], faults: [], pcapEvery: 1 };
  const onFlag = (flag: string, value: () => string): boolean => {
    switch (flag) {
      case '--list':
        args.list = true;
        return true;
      case '--help':
      case '-h':
        args.help = true;
        return true;
      case '--until':
        args.until = parseNumber(flag, value(), UNTIL);
        return true;
      case '--fault': {
        const text = value();
        if (!FAULT_SPEC.test(text)) throw new UsageError(`--fault: expected AT:FAULT:KIND/NAME[:param=value,...], got ${echo(text)}`);
        parseNumber(`--fault ${oneLine(text)}: AT`, text.slice(0, text.indexOf(':')), FAULT_AT);
        args.faults.push(text);
        return true;
      }
      case '--out':
        args.out = filePath(flag, value());
        return true;
      case '--pcap':
        args.pcap = filePath(flag, value());
        return true;
      case '--pcap-every':
        args.pcapEvery = parseNumber(flag, value(), PCAP_EVERY);
        return true;
      case '--csv':
        args.csv = filePath(flag, value());
        return true;
      default:
        return loadFlag(args, flag, value);
    }
  };
  scanArgs(argv, onFlag, (arg) => {
    if (args.scenario !== undefined) throw new UsageError(`unexpected argument ${echo(arg)}: only one scenario per run`);
    args.scenario = arg;
  });
  if (args.pcapEvery !== 1 && args.pcap === undefined) throw new UsageError('--pcap-every: only with --pcap FILE');
  if (!args.list && !args.help && args.scenario === undefined) throw new UsageError('missing scenario: give a file path or a shipped scenario id (see --list)');
  return args;
}

// AT is read by parseNumber after the shape is known, so it follows the same rules as every other number.
const FAULT_SPEC = /^[^:\s]+:[a-z0-9-]+:[a-z]+\/[^:\s]+(:[A-Za-z0-9_]+=[^,=\s]+(,[A-Za-z0-9_]+=[^,=\s]+)*)?$/;

export function filePath(flag: string, text: string): string {
  if (text === '') throw new UsageError(`${flag}: needs a file path, got ""`);
  return text;
}

/** `--fault` specs as `--set` assignments of timeline entries `first`, `first + 1`, …; values parse as `--set` values do. */
export function faultSets(faults: readonly string[], first: number): string[] {
  return faults.flatMap((spec, i) => {
    const [at, fault, target, params] = spec.split(':') as [string, string, string, string | undefined];
    const entry = `timeline[${first + i}]`;
    const sets = [`${entry}.at=${at}`, `${entry}.fault=${fault}`, `${entry}.target=${target}`];
    for (const pair of params ? params.split(',') : []) sets.push(`${entry}.params.${pair}`);
    return sets;
  });
}
