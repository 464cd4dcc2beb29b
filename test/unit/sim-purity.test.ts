import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SIM = fileURLToPath(new URL('../../src/sim', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

const FORBIDDEN_IMPORT = /from\s+['"](react[^'"]*|zustand[^'"]*|d3[^'"]*|comlink|node:[^'"]*|fs|path|os|url|child_process|worker_threads|perf_hooks)['"]/;
const WALL_CLOCK_OR_CHANCE = /\b(Math\.random|Date\.now|performance\.now|new Date\(|setTimeout|setInterval)\b/;

// The simulation runs unchanged in the worker, the CLI and tests, and must be deterministic (ARCHITECTURE.md).
describe('src/sim purity', () => {
  const files = sources(SIM);

  it('finds the simulation sources', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it.each(files.map((f) => [relative(SIM, f), f]))('%s imports no UI, worker or Node module and reads no clock', (_name, file) => {
    const code = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line));
    expect(code.filter((line) => FORBIDDEN_IMPORT.test(line))).toEqual([]);
    expect(code.filter((line) => WALL_CLOCK_OR_CHANCE.test(line))).toEqual([]);
  });
});
