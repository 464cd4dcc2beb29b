import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePath, pathLocator } from '../../src/sim';

const DEMO = readFileSync(new URL('../../public/scenarios/demo.yaml', import.meta.url), 'utf8');

describe('pathLocator', () => {
  const lineOf = (text: string, path: string) => pathLocator(text)(parsePath(path));

  it('finds the key of a path the loader names, through mappings and list items', () => {
    expect(lineOf(DEMO, 'topology.deployments.web.replicas')).toMatchObject({ line: 55, column: 7, found: 4 });
    expect(lineOf(DEMO, 'topology.nodes[1].podCidr')).toMatchObject({ line: 34, column: 7, found: 4 });
    expect(lineOf(DEMO, 'topology.nodes[2]')).toMatchObject({ line: 41, column: 7, found: 3 });
  });

  it('points at the deepest part the text has when the key is missing', () => {
    expect(lineOf(DEMO, 'topology.deployments.web.autoscale.minReplicas')).toMatchObject({ line: 53, found: 3 });
    expect(lineOf(DEMO, 'topology.nodes[7].ip')).toMatchObject({ line: 21, found: 2 });
    expect(lineOf(DEMO, 'nothing.here')).toMatchObject({ line: 2, found: 0 });
  });

  it('reads flow style, numeric keys, a byte-order mark and text with errors elsewhere', () => {
    const flow = 'a: { b: [ { c: 1 }, { d: 2 } ] }\n';
    expect(pathLocator(flow)(['a', 'b', 1, 'd'])).toEqual({ offset: 22, line: 1, column: 23, found: 4 });
    expect(pathLocator('x:\n  2: two\n')(parsePath('x.2'))).toMatchObject({ line: 2, column: 3, found: 2 });
    expect(pathLocator('\uFEFFa: 1\nb: 2\n')(['b'])).toMatchObject({ offset: 6, line: 2, column: 1 });
    expect(pathLocator('a: [\nb:\n  c: 1\n')(['b', 'c'])).toMatchObject({ line: 3, column: 3, found: 2 });
    expect(pathLocator('a: 1\nb:\n  c: 1\n  c: 2\n')(['b', 'c'])).toMatchObject({ line: 3, found: 2 });
  });
});
