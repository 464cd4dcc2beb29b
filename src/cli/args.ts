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

export class UsageError extends Error {}

export const USAGE = `usage: npm run sim -- <scenario-file-or-id> [--seed N] [--until SECONDS] [--set path=value]... [--fix NAME]... [--fault SPEC]... [--out FILE]
                          [--pcap FILE [--pcap-every N]] [--csv FILE]
       npm run sim -- --list

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

Exit status: 0 when the run completes and every expectation holds, 1 when one fails, 2 for invalid input.`;

function takeValue(argv: string[], i: number, flag: string): string {
  const value = argv[i + 1];
  if (value === undefined || value.startsWith('--')) throw new UsageError(`${flag}: needs a value`);
  return value;
}

export function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = { list: false, help: false, sets: [], fixes: [], faults: [], pcapEvery: 1 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const v = takeValue(argv, i, flag);
      i++;
      return v;
    };
    switch (flag) {
      case '--list':
        args.list = true;
        break;
      case '--help':
      case '-h':
        args.help = true;
        break;
      case '--seed': {
        const text = value();
        const seed = Number(text);
        if (!/^\d+$/.test(text) || seed > 0xffffffff) throw new UsageError(`--seed: expected an integer 0..4294967295, got "${text}"`);
        args.seed = seed;
        break;
      }
      case '--until': {
        const text = value();
        const until = Number(text);
        if (text.trim() === '' || !Number.isFinite(until) || until <= 0) throw new UsageError(`--until: expected a positive number of seconds, got "${text}"`);
        args.until = until;
        break;
      }
      case '--set': {
        const text = value();
        if (!text.includes('=')) throw new UsageError(`--set: expected path=value, got "${text}"`);
        args.sets.push(text);
        break;
      }
      case '--fix':
        args.fixes.push(value());
        break;
      case '--fault': {
        const text = value();
        if (!FAULT_SPEC.test(text)) throw new UsageError(`--fault: expected AT:FAULT:KIND/NAME[:param=value,...], got "${text}"`);
        args.faults.push(text);
        break;
      }
      case '--out':
        args.out = value();
        break;
      case '--pcap':
        args.pcap = value();
        break;
      case '--pcap-every': {
        const text = value();
        const every = Number(text);
        if (!/^\d+$/.test(text) || every < 1) throw new UsageError(`--pcap-every: expected a whole number from 1, got "${text}"`);
        args.pcapEvery = every;
        break;
      }
      case '--csv':
        args.csv = value();
        break;
      default:
        if (arg.startsWith('-')) throw new UsageError(`${flag}: unknown option (see --help)`);
        if (args.scenario !== undefined) throw new UsageError(`unexpected argument "${arg}": only one scenario per run`);
        args.scenario = arg;
    }
  }
  if (args.pcapEvery !== 1 && args.pcap === undefined) throw new UsageError('--pcap-every: only with --pcap FILE');
  if (!args.list && !args.help && args.scenario === undefined) throw new UsageError('missing scenario: give a file path or a shipped scenario id (see --list)');
  return args;
}

const FAULT_SPEC = /^\d+(\.\d+)?:[a-z0-9-]+:[a-z]+\/[^:\s]+(:[A-Za-z0-9_]+=[^,=\s]+(,[A-Za-z0-9_]+=[^,=\s]+)*)?$/;

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
