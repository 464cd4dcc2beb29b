import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** A path that exists is read as a file; otherwise the argument names a shipped scenario by id or file name. */
export function readScenarioSource(arg: string): { text: string; fileName: string } | null {
  if (existsSync(arg)) return { text: readFileSync(arg, 'utf8'), fileName: arg };
  const entry = shippedScenarios().find((s) => s.id === arg || s.file === arg);
  if (!entry) return null;
  const path = join(SCENARIO_DIR, entry.file);
  return { text: readFileSync(path, 'utf8'), fileName: path };
}
