import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const REPO = fileURLToPath(new URL('..', import.meta.url))
  .replace(/\/$/, '')
  .split(sep)
  .join('/');

/** The bar for JavaScript the entry HTML loads before the app can run. */
export const INITIAL_JS_LIMIT_KB = 300;

export interface JsFile {
  /** Path relative to the build folder, e.g. `assets/index-abc.js`. */
  file: string;
  bytes: number;
  gzipBytes: number;
}

export interface BundleFigures {
  initial: JsFile[];
  initialGzipBytes: number;
  worker: JsFile[];
  /** Chunks loaded later (dynamic imports): neither initial nor the worker. */
  lazy: JsFile[];
  /** The source files of the initial JS, from its source maps (`src/…` or `node_modules/<package>`); undefined without maps. */
  initialSources?: string[];
  /** Initial files without a source map: the bundler's own runtime helpers, which have no source. */
  initialUnmapped?: string[];
}

/** Modules the main thread must not carry: the scenario schema, the library it is written with, the engine (issue 20). */
const WORKER_ONLY = ['node_modules/zod', 'node_modules/yaml', 'src/sim/scenario/schema.ts', 'src/sim/sim.ts'];

/** Packages only the scenario editor's text view loads, when the editor opens (issue 21). */
const EDITOR_ONLY = /^node_modules\/(@codemirror|@lezer)\//;

/**
 * A source map's entry as `node_modules/<package>` or `src/…`: resolved against the map's folder first, since the
 * bench's build sits inside node_modules and its relative paths to packages need not name that folder.
 */
function normalSource(mapFile: string, sourceRoot: string | undefined, source: string): string {
  const path = resolve(dirname(mapFile), sourceRoot ?? '', source)
    .split(sep)
    .join('/');
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/.][^/]*)\/(?!.*\/node_modules\/)/.exec(path);
  if (pkg && !path.startsWith(`${REPO}/src/`)) return `node_modules/${pkg[1]}`;
  return path.startsWith(`${REPO}/`) ? path.slice(REPO.length + 1) : path;
}

function initialSources(distDir: string, files: string[]): { sources: string[]; unmapped: string[] } | undefined {
  const sources = new Set<string>();
  const unmapped: string[] = [];
  for (const file of files) {
    const map = join(distDir, `${file}.map`);
    if (!existsSync(map)) {
      unmapped.push(file);
      continue;
    }
    const { sources: entries, sourceRoot } = JSON.parse(readFileSync(map, 'utf8')) as { sources: string[]; sourceRoot?: string };
    for (const source of entries) sources.add(normalSource(map, sourceRoot, source));
  }
  return unmapped.length === files.length ? undefined : { sources: [...sources], unmapped };
}

function measure(distDir: string, file: string): JsFile {
  const body = readFileSync(join(distDir, file));
  return { file, bytes: body.length, gzipBytes: gzipSync(body).length };
}

/** `./assets/x.js` in the HTML → `assets/x.js`; absolute or remote URLs are not part of the build. */
function localPath(ref: string): string | undefined {
  if (/^[a-z]+:|^\/\//i.test(ref)) return undefined;
  return posix.normalize(ref.replace(/^\.\//, '').replace(/^\//, ''));
}

function attribute(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i')
    .exec(tag)
    ?.slice(1)
    .find((v) => v !== undefined);
}

/** Scripts and modulepreloads of the entry HTML, plus the chunks they import statically (what the browser fetches before running). */
export function initialJsFiles(distDir: string): string[] {
  const html = readFileSync(join(distDir, 'index.html'), 'utf8');
  const found: string[] = [];
  for (const tag of html.match(/<script\b[^>]*>/gi) ?? []) {
    const src = attribute(tag, 'src');
    const path = src === undefined ? undefined : localPath(src);
    if (path) found.push(path);
  }
  for (const tag of html.match(/<link\b[^>]*>/gi) ?? []) {
    if (attribute(tag, 'rel')?.toLowerCase() !== 'modulepreload') continue;
    const href = attribute(tag, 'href');
    const path = href === undefined ? undefined : localPath(href);
    if (path) found.push(path);
  }
  // Minified static imports read `import{…}from"./x.js"` or `import"./x.js"`; dynamic `import("…")` is lazy and skipped.
  const staticImport = /\bimport\s*(?:[\w$*{}\s,]+?\s*from\s*)?["'`](\.{1,2}\/[^"'`]+\.js)["'`]/g;
  const queue = [...new Set(found)];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const file = queue.shift()!;
    const code = readFileSync(join(distDir, file), 'utf8');
    for (const m of code.matchAll(staticImport)) {
      const dep = posix.normalize(posix.join(posix.dirname(file), m[1]!));
      if (!seen.has(dep)) {
        seen.add(dep);
        queue.push(dep);
      }
    }
  }
  return [...seen];
}

export function measureBundle(distDir: string): BundleFigures {
  const initialFiles = initialJsFiles(distDir);
  const initial = initialFiles.map((f) => measure(distDir, f));
  const others = readdirSync(join(distDir, 'assets'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => `assets/${f}`)
    .filter((f) => !initialFiles.includes(f));
  const isWorker = (f: string): boolean => /worker/i.test(posix.basename(f));
  const sources = initialSources(distDir, initialFiles);
  return {
    initial,
    initialGzipBytes: initial.reduce((sum, f) => sum + f.gzipBytes, 0),
    worker: others.filter(isWorker).map((f) => measure(distDir, f)),
    lazy: others.filter((f) => !isWorker(f)).map((f) => measure(distDir, f)),
    ...(sources ? { initialSources: sources.sources, initialUnmapped: sources.unmapped } : {}),
  };
}

// kB of 1,000 bytes, as vite prints them, so the figures can be compared with the build output.
const kb = (bytes: number): string => (bytes / 1000).toFixed(1);

export function printBundle(f: BundleFigures): void {
  const total = f.initialGzipBytes / 1000;
  const verdict = total <= INITIAL_JS_LIMIT_KB ? 'PASS' : 'FAIL';
  console.log(`initial JS: ${kb(f.initialGzipBytes)} kB gzipped (bar ≤ ${INITIAL_JS_LIMIT_KB} kB: ${verdict}, ${((total / INITIAL_JS_LIMIT_KB) * 100).toFixed(0)}% of it)`);
  const row = (f: JsFile): string => `  ${f.file.padEnd(36)} ${kb(f.bytes).padStart(7)} kB raw → ${kb(f.gzipBytes).padStart(6)} kB gzipped`;
  for (const file of f.initial) console.log(row(file));
  if (f.initialSources) {
    const all = f.initialSources;
    const packages = all.filter((s) => s.startsWith('node_modules/')).map((s) => s.slice('node_modules/'.length));
    const present = WORKER_ONLY.filter((m) => all.includes(m));
    console.log(`  packages in it: ${packages.join(', ')}`);
    console.log(`  simulation files in it: ${all.filter((s) => s.startsWith('src/sim/')).join(', ') || 'none'}`);
    console.log(`  worker-only modules in it (${WORKER_ONLY.join(', ')}): ${present.length === 0 ? 'none: PASS' : `${present.join(', ')}: FAIL`}`);
    const editorOnly = all.filter((s) => EDITOR_ONLY.test(s));
    console.log(`  editor-only packages in it (@codemirror/*, @lezer/*): ${editorOnly.length === 0 ? 'none: PASS' : `${editorOnly.join(', ')}: FAIL`}`);
    if (f.initialUnmapped?.length) console.log(`  without a source map (bundler runtime): ${f.initialUnmapped.join(', ')}`);
  }
  console.log('worker (loaded when the app starts the simulation, not counted above):');
  for (const file of f.worker) console.log(row(file));
  if (f.worker.length === 0) console.log('  (none found)');
  if (f.lazy.length > 0) {
    console.log('lazy chunks (not counted above):');
    for (const file of f.lazy) console.log(row(file));
  }
}
