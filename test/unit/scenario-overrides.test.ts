import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadScenario, type LoadResult } from '../../src/sim/scenario/load';
import { parseSet, setPath } from '../../src/sim/scenario/overrides';
import { parsePath } from '../../src/sim/scenario/path';

const text = readFileSync(new URL('../fixtures/scenario-placed.yaml', import.meta.url), 'utf8');
const FAULTS = ['delete-pod'];

function errorsOf(result: LoadResult): string[] {
  if (result.ok) throw new Error('expected the load to fail');
  return result.errors;
}

describe('parseSet', () => {
  it('splits a dotted path and reads the value as a YAML scalar', () => {
    expect(parseSet('params.client.reconnectMs=200')).toEqual({ path: ['params', 'client', 'reconnectMs'], value: 200 });
    expect(parseSet('seed=0x10')).toEqual({ path: ['seed'], value: 16 });
    expect(parseSet('a=1.5e3')).toEqual({ path: ['a'], value: 1500 });
    expect(parseSet('a=-3')).toEqual({ path: ['a'], value: -3 });
    expect(parseSet('a=true')).toEqual({ path: ['a'], value: true });
    expect(parseSet('a=false')).toEqual({ path: ['a'], value: false });
    expect(parseSet('a=null')).toEqual({ path: ['a'], value: null });
    expect(parseSet('a=.nan').value).toBeNaN();
    expect(parseSet('a=hello world')).toEqual({ path: ['a'], value: 'hello world' });
    expect(parseSet('a="42"')).toEqual({ path: ['a'], value: '42' });
    expect(parseSet("a='yes'")).toEqual({ path: ['a'], value: 'yes' });
    expect(parseSet('a=""')).toEqual({ path: ['a'], value: '' });
  });

  it('reads indexes written as [n] or .n', () => {
    expect(parseSet('topology.nodes[2].ip=10.0.0.9')).toEqual({ path: ['topology', 'nodes', 2, 'ip'], value: '10.0.0.9' });
    expect(parseSet('topology.nodes.2.ip=10.0.0.9')).toEqual({ path: ['topology', 'nodes', 2, 'ip'], value: '10.0.0.9' });
    expect(parseSet('timeline[0][1]=x').path).toEqual(['timeline', 0, 1]);
  });

  it('reads quoted keys, so dotted record keys can be addressed', () => {
    expect(parseSet('fixes.f.set["params.tcp.synRetries"]=3')).toEqual({
      path: ['fixes', 'f', 'set', 'params.tcp.synRetries'],
      value: 3,
    });
    expect(parseSet('a["x=y"]=1')).toEqual({ path: ['a', 'x=y'], value: 1 });
  });

  it('splits at the first = so values may contain =', () => {
    expect(parseSet('expect[0].metric=drops{reason=no_route}')).toEqual({
      path: ['expect', 0, 'metric'],
      value: 'drops{reason=no_route}',
    });
  });

  it('allows flow collections', () => {
    expect(parseSet('expect[0].window=[5, 10]').value).toEqual([5, 10]);
    expect(parseSet('timeline[0].params={gracePeriodSeconds: 30}').value).toEqual({ gracePeriodSeconds: 30 });
    expect(parseSet('params.client={}').value).toEqual({});
  });

  it('throws clear errors on malformed input', () => {
    expect(() => parseSet('params.client.reconnectMs')).toThrow('expected path=value');
    expect(() => parseSet('=5')).toThrow('missing path');
    expect(() => parseSet('a=')).toThrow('missing value');
    expect(() => parseSet('a..b=1')).toThrow('empty key');
    expect(() => parseSet('a.=1')).toThrow('ends with "."');
    expect(() => parseSet('.a=1')).toThrow('empty key');
    expect(() => parseSet('nodes[x]=1')).toThrow('is not an index');
    expect(() => parseSet('nodes[1=1')).toThrow('missing "]"');
    expect(() => parseSet('a]=1')).toThrow('unexpected "]"');
    expect(() => parseSet('a["b]=1')).toThrow('unterminated quoted key');
    expect(() => parseSet('nodes[0]x=1')).toThrow('expected "." or "["');
    expect(() => parseSet('a=[1, 2')).toThrow('cannot read value');
    expect(() => parseSet('a=b: c')).toThrow('must be a single value');
    expect(() => parseSet('__proto__.polluted=1')).toThrow('not a scenario key');
  });

  it('parses plain paths on their own', () => {
    expect(parsePath('params.tcp.synRetries')).toEqual(['params', 'tcp', 'synRetries']);
    expect(() => parsePath('a=b')).toThrow('unexpected "="');
  });
});

describe('setPath', () => {
  it('returns a new object and leaves the input alone', () => {
    const input = { params: { client: { reconnectMs: 1000, connectTimeoutMs: 5000 } }, other: { x: 1 } };
    const frozen = structuredClone(input);
    const out = setPath(input, ['params', 'client', 'reconnectMs'], 200) as typeof input;
    expect(out.params.client).toEqual({ reconnectMs: 200, connectTimeoutMs: 5000 });
    expect(input).toEqual(frozen);
    expect(out).not.toBe(input);
    expect(out.params).not.toBe(input.params);
    expect(out.other).toBe(input.other);
  });

  it('copies arrays on the way down', () => {
    const input = { nodes: [{ ip: 'a' }, { ip: 'b' }] };
    const out = setPath(input, ['nodes', 1, 'ip'], 'c') as typeof input;
    expect(out.nodes).toEqual([{ ip: 'a' }, { ip: 'c' }]);
    expect(input.nodes[1]?.ip).toBe('b');
    expect(out.nodes[0]).toBe(input.nodes[0]);
  });

  it('creates missing intermediate objects', () => {
    expect(setPath({}, ['params', 'kube', 'replaceDelayMs'], 5)).toEqual({ params: { kube: { replaceDelayMs: 5 } } });
    expect(setPath({ services: {} }, ['services', 'api', 'port'], 81)).toEqual({ services: { api: { port: 81 } } });
  });

  it('appends at the end of a list but not past it', () => {
    expect(setPath({ t: [1] }, ['t', 1], 2)).toEqual({ t: [1, 2] });
    expect(() => setPath({ t: [1] }, ['t', 3], 2)).toThrow('t[3] is past the end of t (length 1)');
  });

  it('treats a numeric segment on an object as a key', () => {
    expect(setPath({ r: { '2': 'a' } }, ['r', 2], 'b')).toEqual({ r: { '2': 'b' } });
  });

  it('refuses to walk through scalars or to use a key on a list', () => {
    expect(() => setPath({ seed: 1 }, ['seed', 'x'], 1)).toThrow('cannot set seed.x: seed is a number, not an object');
    expect(() => setPath({ nodes: [] }, ['nodes', 'name'], 1)).toThrow('nodes is a list; address an item by index, like nodes[0]');
    expect(() => setPath({}, ['__proto__', 'x'], 1)).toThrow('not a scenario key');
  });
});

describe('loading with fixes, sets and a seed', () => {
  it('applies fixes in order, then sets, then the seed', () => {
    const result = loadScenario(text, 'placed.yaml', {
      faultIds: FAULTS,
      fixes: ['faster-reconnect', 'more-web'],
      sets: ['params.client.reconnectMs=300', 'topology.nodes[1].pods[0].ip=10.244.2.77'],
      seed: 99,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.appliedFixes).toEqual(['faster-reconnect', 'more-web']);
    expect(result.scenario.params.client.reconnectMs).toBe(300);
    expect(result.scenario.topology.deployments['web']?.replicas).toBe(3);
    expect(result.scenario.topology.nodes[1]?.pods[0]?.ip).toBe('10.244.2.77');
    expect(result.scenario.seed).toBe(99);
  });

  it('applies a fix on its own', () => {
    const result = loadScenario(text, 'placed.yaml', { fixes: ['faster-reconnect'] });
    expect(result.ok && result.scenario.params.client.reconnectMs).toBe(200);
    expect(result.ok && result.scenario.seed).toBe(7);
  });

  it('lists the available fixes when one is unknown', () => {
    expect(errorsOf(loadScenario(text, 'placed.yaml', { fixes: ['faster-reconect'] }))).toEqual([
      'fixes: unknown fix "faster-reconect" (did you mean "faster-reconnect"?); available: faster-reconnect, more-web',
    ]);
    const minimal = readFileSync(new URL('../fixtures/scenario-minimal.yaml', import.meta.url), 'utf8');
    expect(errorsOf(loadScenario(minimal, 'minimal.yaml', { fixes: ['anything'] }))).toEqual(['fixes: unknown fix "anything"; this scenario has no fixes']);
  });

  it('names the --set flag for an unknown key', () => {
    expect(errorsOf(loadScenario(text, 'placed.yaml', { sets: ['params.client.reconectMs=5'] }))).toEqual(['--set params.client.reconectMs=5: unknown key (did you mean "reconnectMs"?)']);
  });

  it('names the --set flag and the offending key for a misspelt section', () => {
    expect(errorsOf(loadScenario(text, 'placed.yaml', { sets: ['params.clinet.reconnectMs=5'] }))).toEqual([
      '--set params.clinet.reconnectMs=5: params.clinet: unknown key (did you mean "client"?)',
    ]);
  });

  it('reports type errors of set values', () => {
    expect(errorsOf(loadScenario(text, 'placed.yaml', { sets: ['params.client.reconnectMs=abc', 'seed=-1'] }))).toEqual([
      '--set seed=-1: must be >= 0, got -1',
      '--set params.client.reconnectMs=abc: expected number, got string',
    ]);
    expect(errorsOf(loadScenario(text, 'placed.yaml', { sets: ['topology.deployments.web.app=nginx'] }))).toEqual([
      '--set topology.deployments.web.app=nginx: expected one of "http-server", "http-client", "ingress-proxy", "dns-client", "grpc-server", "grpc-client", "mesh-server", "mesh-client", got "nginx"',
    ]);
  });

  it('reports errors inside a value set as a collection with their own path', () => {
    expect(errorsOf(loadScenario(text, 'placed.yaml', { sets: ['params.client={reconnectMs: -1}'] }))).toEqual([
      '--set params.client={reconnectMs: -1}: params.client.reconnectMs: must be >= 0, got -1',
    ]);
  });

  it('reports cross-field problems caused by a set', () => {
    expect(errorsOf(loadScenario(text, 'placed.yaml', { sets: ['topology.nodes[0].pods[0].ip=10.244.9.9'] }))).toEqual([
      "--set topology.nodes[0].pods[0].ip=10.244.9.9: 10.244.9.9 is outside node node-a's podCidr 10.244.1.0/24",
    ]);
    expect(errorsOf(loadScenario(text, 'placed.yaml', { sets: ['timeline[0].fault=delet-pod'], faultIds: FAULTS }))).toEqual([
      '--set timeline[0].fault=delet-pod: unknown fault "delet-pod" (did you mean "delete-pod"?)',
    ]);
  });

  it('keeps the path of problems a set causes elsewhere', () => {
    expect(errorsOf(loadScenario(text, 'placed.yaml', { sets: ['topology.services.api.clusterIp=10.96.0.20'] }))).toEqual(['topology.services.api.selector: required (expected string)']);
    expect(errorsOf(loadScenario(text, 'placed.yaml', { sets: ['duration=10'] }))).toEqual([
      'timeline[0].at: 20 s is after the end of the run (duration 10 s)',
      'expect[0].window: window ends at 20 s, after the end of the run (duration 10 s)',
    ]);
  });

  it('lets a later set override an earlier one and a fix', () => {
    const result = loadScenario(text, 'placed.yaml', {
      fixes: ['faster-reconnect'],
      sets: ['params.client.reconnectMs=1', 'params.client.reconnectMs=2'],
    });
    expect(result.ok && result.scenario.params.client.reconnectMs).toBe(2);
  });

  it('can add a record entry in one set', () => {
    const result = loadScenario(text, 'placed.yaml', {
      sets: ['topology.services.api={selector: web, clusterIp: 10.96.0.20}'],
    });
    expect(result.ok && result.scenario.topology.services['api']).toEqual({
      selector: 'web',
      clusterIp: '10.96.0.20',
      port: 80,
      type: 'ClusterIP',
      externalTrafficPolicy: 'Cluster',
    });
  });

  it('reports malformed sets and path errors by flag', () => {
    expect(errorsOf(loadScenario(text, 'placed.yaml', { sets: ['seed'] }))).toEqual(['--set seed: expected path=value']);
    expect(errorsOf(loadScenario(text, 'placed.yaml', { sets: ['seed.x=1'] }))).toEqual(['--set seed.x=1: cannot set seed.x: seed is a number, not an object']);
    expect(errorsOf(loadScenario(text, 'placed.yaml', { sets: ['timeline[5].at=1'] }))).toEqual(['--set timeline[5].at=1: timeline[5] is past the end of timeline (length 1)']);
  });

  it('validates the seed override', () => {
    expect(loadScenario(text, 'placed.yaml', { seed: 0 }).ok).toBe(true);
    expect(loadScenario(text, 'placed.yaml', { seed: 4294967295 }).ok).toBe(true);
    expect(errorsOf(loadScenario(text, 'placed.yaml', { seed: -1 }))).toEqual(['seed: override -1 must be an integer from 0 to 4294967295']);
    expect(errorsOf(loadScenario(text, 'placed.yaml', { seed: 1.5 }))).toHaveLength(1);
  });

  it('dedupes repeated fixes', () => {
    const result = loadScenario(text, 'placed.yaml', { fixes: ['more-web', 'more-web'] });
    expect(result.ok && result.appliedFixes).toEqual(['more-web']);
  });
});
