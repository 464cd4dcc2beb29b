import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyEdit } from '../../src/sim/scenario/edits';
import { keepLayout, matchLines } from '../../src/sim/scenario/keep-layout';

const read = (file: string) => readFileSync(new URL(`../../public/scenarios/${file}`, import.meta.url), 'utf8');
/** Lines of `after` that are not lines of `before` kept in order, and how many of `before`'s lines are gone. */
function diff(before: string, after: string): { added: string[]; removed: number } {
  const a = before.split('\n');
  const b = after.split('\n');
  const match = [...matchLines(a, b)!];
  return { added: b.filter((_, j) => match[j] === -1), removed: a.length - match.filter((i) => i >= 0).length };
}

describe('matchLines', () => {
  it('matches a longest common subsequence of whole lines, in order', () => {
    expect([...matchLines(['a', 'b', 'c', 'd'], ['a', 'x', 'c', 'd', 'e'])!]).toEqual([0, -1, 2, 3, -1]);
    expect([...matchLines(['a', 'b'], ['b', 'a'])!].filter((i) => i >= 0)).toHaveLength(1);
    expect([...matchLines([], ['a'])!]).toEqual([-1]);
  });
});

describe('keepLayout', () => {
  it('changes only the line of a value set in a long scenario written in flow style with wrapped text', () => {
    const text = read('its-not-dns.yaml');
    const { text: edited } = applyEdit(text, { op: 'set', path: ['params', 'dns', 'maxConcurrent'], value: 500 });
    expect(diff(text, edited)).toEqual({ added: ['    maxConcurrent: 500'], removed: 1 });
  });

  it('adds a new section as its own lines and takes a value out as one line fewer', () => {
    const text = read('its-not-dns.yaml');
    const added = applyEdit(text, { op: 'set', path: ['params', 'tcp', 'synRetries'], value: 3 }).text;
    expect(diff(text, added)).toEqual({ added: ['  tcp:', '    synRetries: 3'], removed: 0 });
    const removed = applyEdit(text, { op: 'unset', path: ['params', 'dns', 'maxConcurrent'] }).text;
    expect(diff(text, removed)).toEqual({ added: [], removed: 1 });
  });

  it('writes a new key with the single values of its item, before the first list or map, in block and flow style', () => {
    const demo = read('demo.yaml');
    const block = applyEdit(demo, { op: 'set', path: ['topology', 'nodes', 1, 'size'], value: 4 }).text;
    expect(diff(demo, block)).toEqual({ added: ['      size: 4'], removed: 0 });
    expect(block).toContain('      platform: cloud\n      size: 4\n      pods:\n');
    const sandbox = read('bare-metal-sandbox.yaml');
    const flow = applyEdit(sandbox, { op: 'set', path: ['topology', 'nodes', 0, 'size'], value: 2 }).text;
    expect(diff(sandbox, flow).added).toEqual([expect.stringMatching(/^ {4}- \{ name: node-a, .*platform: bare-metal, size: 2, pods: \[/) as unknown]);
  });

  it('keeps a flow list next to an edit as written when only its spacing would change', () => {
    const text = 'a:\n  b: 1\n  c: [1, 2]\n';
    const doc = 'a:\n  b: 1\n  c: [ 1, 2 ]\n';
    expect(keepLayout(text, doc, 'a:\n  b: 2\n  c: [ 1, 2 ]\n')).toBe('a:\n  b: 2\n  c: [1, 2]\n');
  });

  it('falls back to the rewritten text when the spliced one would not read the same', () => {
    // The original disagrees with the base it is said to be: keeping its untouched line would keep a wrong value.
    expect(keepLayout('a: 1\nb: 9\nc: 1\n', 'a: 1\nb: 2\nc: 1\n', 'a: 1\nb: 2\nc: 1\nd: 4\n')).toBe('a: 1\nb: 2\nc: 1\nd: 4\n');
    expect(keepLayout('a: 1\n', 'a: 1\n', 'a: 1\n')).toBe('a: 1\n');
  });
});
