import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadScenario, schemasAt, type JsonSchema } from '../../src/sim';
import { placeAt, type CursorPlace } from '../../src/ui/editor/yaml-place';
import { suggest } from '../../src/ui/editor/schema-complete';
import { problemOffsets } from '../../src/ui/editor/problem-place';

const SCHEMA = JSON.parse(readFileSync(new URL('../../public/scenario.schema.json', import.meta.url), 'utf8')) as JsonSchema;
const DEMO = readFileSync(new URL('../../public/scenarios/demo.yaml', import.meta.url), 'utf8');

/** The place at the `|` in `marked`, the `|` taken out. */
function placeOf(marked: string): CursorPlace | null {
  const at = marked.indexOf('|');
  return placeAt(marked.slice(0, at) + marked.slice(at + 1), at);
}

const labels = (marked: string): string[] => suggest(SCHEMA, placeOf(marked)!).map((s) => s.label);

describe('problemOffsets', () => {
  it('places each problem the loader finds in a broken demo at the line it is about', () => {
    const broken = DEMO.replace('replicas: 3', 'replicas: 20001').replace('      ip: 10.0.0.12\n', '');
    const result = loadScenario(broken, 'demo.yaml');
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors;
    expect(errors).toContain('topology.deployments.web.replicas: must be <= 20000, got 20001');
    const lines = problemOffsets(broken, errors).map((at) => broken.slice(broken.lastIndexOf('\n', at - 1) + 1, broken.indexOf('\n', at)));
    expect(lines[errors.indexOf('topology.deployments.web.replicas: must be <= 20000, got 20001')]).toBe('      replicas: 20001');
    const missingIp = errors.findIndex((e) => e.startsWith('topology.nodes[1].ip: '));
    expect(lines[missingIp]).toBe('    - name: node-b');
  });

  it('places a syntax error at the line and column it names', () => {
    const text = 'a: 1\nb: c: d\n';
    const result = loadScenario(text, 'x.yaml');
    const errors = result.ok ? [] : result.errors;
    expect(errors).toEqual(['(root): YAML syntax error at line 2, column 4: Nested mappings are not allowed in compact mappings']);
    expect(problemOffsets(text, errors)).toEqual([8]);
    expect(problemOffsets('a: 1\n', ['(root): YAML syntax error at line 9, column 1: x', '(root): the file is empty'])).toEqual([5, 0]);
  });
});

describe('placeAt', () => {
  it('names the mapping a key is being typed in, whatever the indentation says', () => {
    expect(placeOf('topology:\n  nodes:\n    - name: a\n      pl|\n  deployments: {}\n')).toMatchObject({
      kind: 'key',
      path: ['topology', 'nodes', 0],
      from: 39,
      to: 41,
      colonFollows: false,
      mapping: { name: 'a' },
    });
    expect(placeOf('topology:\n  |\n  nodes: []\n')).toMatchObject({ kind: 'key', path: ['topology'], mapping: { nodes: [] } });
    expect(placeOf('|')).toMatchObject({ kind: 'key', path: [], from: 0, to: 0 });
    expect(placeOf('a:\n  b:\n    c: 1\n|\n')).toMatchObject({ kind: 'key', path: [], mapping: { a: { b: { c: 1 } } } });
  });

  it('takes the whole word at the cursor and says whether its colon is already there', () => {
    expect(placeOf('topology:\n  nodes:\n    - name: a\n      repl|icas: 3\n')).toMatchObject({ kind: 'key', path: ['topology', 'nodes', 0], from: 39, to: 47, colonFollows: true });
  });

  it('opens a new list item as a mapping of its own', () => {
    expect(placeOf('topology:\n  nodes:\n    - name: a\n    - |\n')).toMatchObject({ kind: 'key', path: ['topology', 'nodes', 1], mapping: {} });
  });

  it('names the field whose value is being typed, leaving the word out of the mapping it reports', () => {
    expect(placeOf('topology:\n  deployments:\n    web:\n      replicas: 2\n      app: http-|se\n')).toMatchObject({
      kind: 'value',
      path: ['topology', 'deployments', 'web', 'app'],
      mapping: { replicas: 2 },
    });
  });

  it('reads flow mappings and lists', () => {
    expect(placeOf('topology: { nodes: [ { name: a, pla| } ] }\n')).toMatchObject({ kind: 'key', path: ['topology', 'nodes', 0], mapping: { name: 'a' } });
    expect(placeOf('topology: { nodes: [ { name: a, platform: c| } ] }\n')).toMatchObject({ kind: 'value', path: ['topology', 'nodes', 0, 'platform'] });
    expect(placeOf('a:\n  nodes: [x, |]\n')).toMatchObject({ kind: 'value', path: ['a', 'nodes', 1] });
  });

  it('offers nothing in a comment, a quoted string or after a value', () => {
    expect(placeOf('# a comment |\n')).toBeNull();
    expect(placeOf('title: "Demo |"\n')).toBeNull();
    expect(placeOf('seed: 4 |\n')).toBeNull();
    expect(placeOf('topology:\n  nodes:|\n')).toBeNull();
  });
});

describe('schema completion', () => {
  it('offers the keys a mapping may still take, with type, default and range', () => {
    const keys = suggest(SCHEMA, placeOf('topology:\n  nodes:\n    - name: a\n      |\n')!);
    expect(keys.map((k) => k.label)).toEqual(['ip', 'podCidr', 'platform', 'size', 'pods', 'joined', 'labels', 'rack', 'room']);
    expect(keys.find((k) => k.label === 'platform')).toMatchObject({ apply: 'platform: ', detail: '"bare-metal" | "cloud" = "bare-metal"' });
    expect(keys.find((k) => k.label === 'size')).toMatchObject({ detail: 'number = 1', info: 'Above 0, at most 64.' });
    expect(keys.find((k) => k.label === 'ip')).toMatchObject({ boost: 1, info: 'Required.' });
    expect(keys.find((k) => k.label === 'pods')).toMatchObject({ apply: 'pods:', detail: 'list = []' });
  });

  it('writes only the name of a key whose colon is already there', () => {
    expect(suggest(SCHEMA, placeOf('topology:\n  nodes:\n    - name: a\n      pl|: cloud\n')!).find((k) => k.label === 'platform')?.apply).toBe('platform');
  });

  it('picks a deployment’s fields by its app, and offers every app while none is written', () => {
    const server = labels('topology:\n  deployments:\n    web:\n      app: http-server\n      |\n');
    const client = labels('topology:\n  deployments:\n    c:\n      app: http-client\n      |\n');
    expect(server).toEqual(expect.arrayContaining(['port', 'cpuPerRequestMs', 'autoscale']));
    expect(server).not.toContain('app');
    expect(server).not.toContain('target');
    expect(client).toContain('target');
    expect(client).not.toContain('autoscale');
    expect(labels('topology:\n  deployments:\n    web:\n      app: |\n')).toEqual([
      'http-server',
      'http-client',
      'ingress-proxy',
      'dns-client',
      'grpc-server',
      'grpc-client',
      'mesh-server',
      'mesh-client',
    ]);
    const undecided = labels('topology:\n  deployments:\n    web:\n      |\n');
    expect(undecided).toContain('app');
    expect(undecided).toEqual(expect.arrayContaining(['autoscale', 'target', 'lookup', 'uses']));
  });

  it('follows the chosen app below the deployment too', () => {
    expect(labels('topology:\n  deployments:\n    web:\n      app: http-server\n      autoscale:\n        |\n')).toContain('maxReplicas');
    expect(schemasAt(SCHEMA, ['topology', 'deployments', 'web', 'port'], { topology: { deployments: { web: { app: 'http-server' } } } })).toHaveLength(1);
  });

  it('offers enum values, constants and booleans', () => {
    expect(labels('topology:\n  nodes:\n    - name: a\n      platform: |\n')).toEqual(['bare-metal', 'cloud']);
    const platforms = suggest(SCHEMA, placeOf('topology:\n  nodes:\n    - name: a\n      platform: |\n')!);
    expect(platforms.map((p) => [p.detail, p.boost])).toEqual([
      ['default', undefined],
      [undefined, -1],
    ]);
    expect(labels('topology:\n  nodes:\n    - name: a\n      joined: |\n')).toEqual(['true', 'false']);
    expect(labels('version: |\n')).toEqual(['1']);
    expect(labels('topology:\n  nodes:\n    - name: a\n      size: |\n')).toEqual([]);
  });

  it('offers nothing for a record’s own names, and values for a list of plain items', () => {
    expect(labels('topology:\n  deployments:\n    |\n')).toEqual([]);
    expect(labels('timeline:\n  - at: 1\n    params:\n      |\n')).toEqual([]);
  });
});
