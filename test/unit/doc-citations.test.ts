/**
 * Comments cite the facts they follow as `docs/<file>.md#<heading>`: every such citation in the sources, tests and
 * benches must name a page that exists and a heading on it, so a reader who follows one lands where it says.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === 'node_modules' ? [] : files(join(dir, e.name), ext)) : ext.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** GitHub's heading anchors: lower case, punctuation dropped but for hyphens and underscores, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(page: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of readFileSync(page, 'utf8').split('\n')) {
    const m = /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!.replace(/`/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const CITATION = /docs\/([\w./-]+\.md)(?:#([\w-]+))?/g;

describe('citations of docs/', () => {
  const sources = [...files(join(ROOT, 'src'), /\.tsx?$/), ...files(join(ROOT, 'test'), /\.ts$/), ...files(join(ROOT, 'bench'), /\.ts$/)];
  const citations = sources.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(CITATION)].map((m) => ({ at: relative(ROOT, file), page: m[1]!, anchor: m[2] })));

  it('are there to check', () => {
    expect(citations.length).toBeGreaterThan(100);
  });

  it('each name a page of docs/ and a heading on it', () => {
    const anchors = new Map<string, Set<string>>();
    const broken: string[] = [];
    for (const { at, page, anchor } of citations) {
      const path = join(ROOT, 'docs', page);
      if (!existsSync(path)) {
        broken.push(`${at}: docs/${page} does not exist`);
        continue;
      }
      if (!anchors.has(page)) anchors.set(page, anchorsOf(path));
      if (anchor !== undefined && !anchors.get(page)!.has(anchor)) broken.push(`${at}: docs/${page} has no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });
});
