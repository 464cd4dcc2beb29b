import { readFileSync, statSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { echo, formatCount, MAX_SCENARIO_CHARS } from '../sim';
import { UsageError } from './args';

export const SCENARIO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../public/scenarios');

export interface ShippedEntry {
  file: string;
  id: string;
  title: string;
}

export function shippedScenarios(): ShippedEntry[] {
  const index = JSON.parse(readFileSync(join(SCENARIO_DIR, 'index.json'), 'utf8')) as { scenarios: ShippedEntry[] };
  return index.scenarios;
}

/**
 * A path that exists is read as a file; otherwise the argument names a shipped scenario by id or file name. A path
 * that is no regular file (a folder, a device) or cannot be read is a UsageError naming the argument.
 */
export function readScenarioSource(arg: string): { text: string; fileName: string } | null {
  const stat = statOrNull(arg);
  if (stat?.isDirectory()) throw new UsageError(`scenario ${echo(arg)}: is a folder; give a scenario file (YAML or JSON) or a shipped scenario id (see --list)`);
  // A pipe is read to its end (`/dev/stdin`); a device such as /dev/zero might never end.
  if (stat && !stat.isFile() && !stat.isFIFO()) throw new UsageError(`scenario ${echo(arg)}: is neither a file nor a pipe`);
  // A UTF-8 character takes at most 4 bytes: a bigger file is over the loader's limit, and is not read into memory.
  if (stat?.isFile() && stat.size > 4 * MAX_SCENARIO_CHARS) {
    throw new UsageError(`scenario ${echo(arg)}: is ${formatCount(stat.size)} bytes; a scenario may have at most ${formatCount(MAX_SCENARIO_CHARS)} characters`);
  }
  if (stat) {
    try {
      return { text: readFileSync(arg, 'utf8'), fileName: arg };
    } catch (error) {
      throw new UsageError(`scenario ${echo(arg)}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  const entry = shippedScenarios().find((s) => s.id === arg || s.file === arg);
  if (!entry) return null;
  const path = join(SCENARIO_DIR, entry.file);
  return { text: readFileSync(path, 'utf8'), fileName: path };
}

/** What is at a path, or null when nothing is, or when the text cannot be a path (too long, through a file). */
function statOrNull(path: string): Stats | null {
  try {
    return statSync(path, { throwIfNoEntry: false }) ?? null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENAMETOOLONG' || code === 'ENOTDIR' || code === 'ELOOP') return null;
    throw new UsageError(`scenario ${echo(path)}: cannot be read (${code ?? (error as Error).message})`);
  }
}
