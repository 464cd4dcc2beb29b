/** Command-line arguments of `npm run sim`, parsed without side effects so they can be tested. */
export interface CliArgs {
  scenario?: string;
  list: boolean;
  help: boolean;
  seed?: number;
  until?: number;
  sets: string[];
  fixes: string[];
  out?: string;
}

export class UsageError extends Error {}

export const USAGE = `usage: npm run sim -- <scenario-file-or-id> [--seed N] [--until SECONDS] [--set path=value]... [--fix NAME]... [--out FILE]
       npm run sim -- --list

  --seed N          run with this seed instead of the scenario's (integer 0..4294967295)
  --until SECONDS   stop the run at this simulated time (at most the scenario's duration)
  --set path=value  override any scenario value by dotted path, e.g. params.client.reconnectMs=600
  --fix NAME        apply one of the scenario's named fixes (repeatable, applied in order)
  --out FILE        write the run report there instead of standard output
  --list            list shipped scenarios, their fixes, and the fault catalog

Exit status: 0 when the run completes and every expectation holds, 1 when one fails, 2 for invalid input.`;

function takeValue(argv: string[], i: number, flag: string): string {
  const value = argv[i + 1];
  if (value === undefined || value.startsWith('--')) throw new UsageError(`${flag}: needs a value`);
  return value;
}

export function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = { list: false, help: false, sets: [], fixes: [] };
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
      case '--out':
        args.out = value();
        break;
      default:
        if (arg.startsWith('-')) throw new UsageError(`${flag}: unknown option (see --help)`);
        if (args.scenario !== undefined) throw new UsageError(`unexpected argument "${arg}": only one scenario per run`);
        args.scenario = arg;
    }
  }
  if (!args.list && !args.help && args.scenario === undefined) throw new UsageError('missing scenario: give a file path or a shipped scenario id (see --list)');
  return args;
}
