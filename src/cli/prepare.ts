import { closeSync, openSync, unlinkSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { atSeconds, createSim, echo, faultCatalog, FAULT_IDS, loadScenario, oneLine, type Scenario, type Sim } from '../sim';
import { faultSets, UsageError, type CliArgs } from './args';
import { readScenarioSource } from './shipped';

// The latest million packets: about 60 MB of file, enough for minutes of a busy scenario.
const PCAP_CAPACITY = 1_000_000;

/** A `--fault` as it sits in the run's timeline. */
export interface CliFault {
  spec: string;
  /** Its index in the scenario's timeline. */
  index: number;
  at: number;
}

/** Everything checked and built, nothing run yet: what `npm run sim` hands to the run loop. */
export interface PreparedRun {
  scenario: Scenario;
  sim: Sim;
  /** Where the run stops, simulated µs. */
  end: number;
  faults: CliFault[];
}

/** Names of the problems a load reported, one per line, each naming the flag or the file field it is about. */
function loadProblems(fileName: string, errors: readonly string[], faults: readonly string[], first: number): string {
  const bySet = faults.flatMap((spec, i) => faultSets([spec], first + i).map((set) => ({ label: `--set ${set}: `, spec })));
  return errors
    .map((error) => {
      const fault = bySet.find((f) => error.startsWith(f.label));
      if (fault) return `--fault ${oneLine(fault.spec)}: ${error.slice(fault.label.length)}`;
      return error.startsWith('--set ') ? error : `${fileName}: ${error}`;
    })
    .join('\n');
}

/**
 * Reads the scenario, checks every flag against it and builds the simulation, all before a simulated microsecond
 * runs; throws a UsageError naming the flag or field for any bad input.
 */
export function prepareRun(args: CliArgs): PreparedRun {
  const source = readSource(args.scenario!);
  checkOutputs(args, [{ path: source.fileName, what: 'the scenario file' }]);
  const { scenario, appliedFixes, first } = loadFromArgs(source, args);
  if (args.until !== undefined && args.until > scenario.duration) {
    throw new UsageError(`--until: ${args.until} s is past the scenario's duration (${scenario.duration} s); raise it with --set duration=${args.until}`);
  }
  const faults = args.faults.map((spec, i): CliFault => ({ spec, index: first + i, at: scenario.timeline[first + i]!.at }));
  for (const fault of faults) {
    if (args.until !== undefined && fault.at > args.until) {
      throw new UsageError(`--fault ${oneLine(fault.spec)}: at ${fault.at} s it lands after the run stops (--until ${args.until})`);
    }
  }
  const capture = args.pcap === undefined ? undefined : { every: args.pcapEvery, capacity: PCAP_CAPACITY };
  const sim = createSim(scenario, { fixes: appliedFixes, capture });
  return { scenario, sim, end: args.until === undefined ? sim.durationUs : atSeconds(args.until), faults };
}

/** The scenario a command line names, read, or a UsageError naming the argument. */
export function readSource(arg: string): { text: string; fileName: string } {
  const source = readScenarioSource(arg);
  if (!source) throw new UsageError(`scenario ${echo(arg)}: no such file, and no shipped scenario has that id (see --list)`);
  return source;
}

/**
 * The scenario loaded with the command line's seed, fixes, `--set` overrides and `--fault` entries (which go after the
 * timeline the scenario ends up with, at `first`); throws a UsageError naming the flag or field for any problem.
 */
export function loadFromArgs(
  source: { text: string; fileName: string },
  args: Pick<CliArgs, 'seed' | 'sets' | 'fixes' | 'faults'>,
): { scenario: Scenario; appliedFixes: string[]; first: number } {
  const options = { seed: args.seed, sets: args.sets, faultIds: FAULT_IDS, faults: faultCatalog() };
  if (args.fixes.length > 0) {
    const base = loadScenario(source.text, source.fileName, { ...options, sets: [] });
    if (!base.ok) throw new UsageError(loadProblems(source.fileName, base.errors, [], 0));
    checkFixNames(args.fixes, base.scenario);
  }
  let loaded = loadScenario(source.text, source.fileName, { ...options, fixes: args.fixes });
  if (!loaded.ok) throw new UsageError(loadProblems(source.fileName, loaded.errors, [], 0));
  const first = loaded.scenario.timeline.length;
  if (args.faults.length > 0) {
    loaded = loadScenario(source.text, source.fileName, { ...options, fixes: args.fixes, sets: [...args.sets, ...faultSets(args.faults, first)] });
    if (!loaded.ok) throw new UsageError(loadProblems(source.fileName, loaded.errors, args.faults, first));
  }
  return { scenario: loaded.scenario, appliedFixes: loaded.appliedFixes, first };
}

/** `--fix` names looked up as the scenario's own fixes only, so `constructor` or `__proto__` is just an unknown name. */
function checkFixNames(names: readonly string[], scenario: Scenario): void {
  const available = Object.keys(scenario.fixes);
  for (const name of names) {
    if (Object.hasOwn(scenario.fixes, name)) continue;
    const list = available.length > 0 ? `its fixes: ${available.join(', ')}` : 'it has no fixes';
    throw new UsageError(`--fix ${echo(name)}: scenario "${scenario.id}" has no such fix; ${list}`);
  }
}

/** Each output path must name a file this process can write, distinct from the others and from the files read. */
export function checkOutputs(args: Pick<CliArgs, 'out' | 'pcap' | 'csv'> & { html?: string }, inputs: readonly { path: string; what: string }[]): void {
  const taken = new Map<string, string>(inputs.map((input) => [resolve(input.path), input.what]));
  for (const [flag, path] of [
    ['--out', args.out],
    ['--pcap', args.pcap],
    ['--csv', args.csv],
    ['--html', args.html],
  ] as const) {
    if (path === undefined) continue;
    const full = resolve(path);
    const other = taken.get(full);
    if (other !== undefined) throw new UsageError(`${flag} ${echo(path)}: is ${other}; give each output its own file`);
    taken.set(full, flag);
    checkWritable(flag, path);
  }
}

/**
 * Opens the file for appending, as the write after the run will open it for writing, so every reason the system
 * could refuse shows now; a file that was not there is removed again, and one that was is left as it was.
 */
function checkWritable(flag: string, path: string): void {
  try {
    try {
      closeSync(openSync(path, 'ax'));
      unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      closeSync(openSync(path, 'a'));
    }
  } catch (error) {
    throw new UsageError(`${flag} ${echo(path)}: ${unwritable(error as NodeJS.ErrnoException, path)}`);
  }
}

/** Why the system refused to write `path`, in words. */
export function unwritable(error: NodeJS.ErrnoException, path: string): string {
  switch (error.code) {
    case 'ENOENT':
      return `folder ${echo(dirname(path))} does not exist`;
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder';
    case 'EISDIR':
      return 'is a folder; give a file name';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    case 'ENOSPC':
      return 'no space left on the device';
    default:
      return `cannot be written (${error.code ?? error.message})`;
  }
}
