import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyEdit, outline } from '../../src/sim/scenario/edits';
import type { Field } from '../../src/sim/scenario/edit-kinds';
import { fieldsAt } from '../../src/sim/scenario/fields';
import { fieldEdit, fieldHint } from '../../src/state/field-value';

const DEMO = readFileSync(new URL('../../public/scenarios/demo.yaml', import.meta.url), 'utf8');
const field = (fields: Field[], key: string): Field => {
  const found = fields.find((f) => f.key === key);
  if (!found) throw new Error(`no field ${key} among ${fields.map((f) => f.key).join(', ')}`);
  return found;
};

describe('fieldsAt', () => {
  it('types a node’s values from the schema and reads what the text says', () => {
    const { fields, inText } = fieldsAt(DEMO, ['topology', 'nodes', 0]);
    expect(fields.map((f) => f.key)).toEqual(['name', 'ip', 'podCidr', 'platform', 'size', 'joined', 'rack', 'room']);
    expect(field(fields, 'name')).toEqual({ key: 'name', path: ['topology', 'nodes', 0, 'name'], input: 'text', required: true, value: 'node-a' });
    expect(field(fields, 'platform')).toEqual({
      key: 'platform',
      path: ['topology', 'nodes', 0, 'platform'],
      input: 'choice',
      options: ['bare-metal', 'cloud'],
      default: 'bare-metal',
      required: false,
      value: 'cloud',
    });
    expect(field(fields, 'size')).toEqual({ key: 'size', path: ['topology', 'nodes', 0, 'size'], input: 'number', integer: false, above: 0, max: 64, default: 1, required: false });
    expect(field(fields, 'joined')).toMatchObject({ input: 'boolean', default: true });
    expect(inText).toEqual(['pods', 'labels']);
  });

  it('goes into a named record entry and one map below it, with the range the format allows', () => {
    const { fields, inText } = fieldsAt(DEMO, ['topology', 'deployments', 'web']);
    expect(field(fields, 'replicas')).toMatchObject({ input: 'number', integer: true, min: 0, max: 20_000, value: 3, required: false });
    expect(field(fields, 'maxSurge')).toMatchObject({ input: 'text', numeric: true });
    expect(field(fields, 'autoscale.maxReplicas')).toMatchObject({ path: ['topology', 'deployments', 'web', 'autoscale', 'maxReplicas'], input: 'number', required: true });
    expect(inText).toContain('nodes');
    expect(inText).not.toContain('autoscale');
    expect(fieldsAt(DEMO, ['params', 'client']).fields.find((f) => f.key === 'requestsPerConnection')).toMatchObject({ min: 0, max: 1_000_000 });
  });

  it('gives a deployment the fields of its own app kind, and its app as a choice among all of them', () => {
    const its = readFileSync(new URL('../../public/scenarios/its-not-dns.yaml', import.meta.url), 'utf8');
    const client = fieldsAt(its, ['topology', 'deployments', 'alerting']).fields;
    expect(field(client, 'app')).toMatchObject({ input: 'choice', value: 'grpc-client', required: true });
    expect(field(client, 'app').options).toEqual(['http-server', 'http-client', 'ingress-proxy', 'dns-client', 'grpc-server', 'grpc-client', 'mesh-server', 'mesh-client']);
    expect(field(client, 'target')).toMatchObject({ input: 'text', required: true, value: 'metric.example.com:9090' });
    expect(client.map((f) => f.key)).not.toContain('cpuPerRequestMs');
    const web = fieldsAt(DEMO, ['topology', 'deployments', 'web']).fields.map((f) => f.key);
    expect(web).toContain('cpuPerRequestMs');
    expect(web).not.toContain('target');
  });

  it('lists the scenario’s own values without the format version, and a parameter section with its defaults', () => {
    const root = fieldsAt(DEMO, []);
    expect(root.fields.map((f) => f.key)).toEqual(['id', 'title', 'description', 'seed', 'duration']);
    expect(root.inText).toEqual(['topology', 'params', 'timeline', 'fixes', 'expect', 'chapters', 'charts']);
    const client = fieldsAt(DEMO, ['params', 'client']).fields;
    expect(field(client, 'reconnectMs')).toMatchObject({ value: 300, default: 1000, min: 0 });
    expect(field(client, 'requestsPerSecond')).toMatchObject({ value: 20, min: 0.001, max: 10_000 });
  });

  it('has fields for every item the outline lists', () => {
    for (const item of outline(DEMO).items) expect(fieldsAt(DEMO, item.path).fields.length, item.name).toBeGreaterThan(0);
  });

  it('names a path the format has nothing at', () => {
    expect(() => fieldsAt(DEMO, ['topology', 'gateways', 0])).toThrow('topology.gateways[0]: the scenario format has nothing there to edit');
  });
});

describe('fieldEdit', () => {
  const { fields } = fieldsAt(DEMO, ['topology', 'nodes', 0]);
  const size = field(fields, 'size');
  const name = field(fields, 'name');
  const platform = field(fields, 'platform');
  const replicas = field(fieldsAt(DEMO, ['topology', 'deployments', 'web']).fields, 'replicas');
  const maxSurge = field(fieldsAt(DEMO, ['topology', 'deployments', 'web']).fields, 'maxSurge');

  it('sets a typed number, a choice and a count or percentage, each as the type the schema wants', () => {
    expect(fieldEdit(size, ' 2.5 ')).toEqual({ edit: { op: 'set', path: size.path, value: 2.5 } });
    expect(fieldEdit(platform, 'bare-metal')).toEqual({ edit: { op: 'set', path: platform.path, value: 'bare-metal' } });
    expect(fieldEdit(maxSurge, '2')).toEqual({ edit: { op: 'set', path: maxSurge.path, value: 2 } });
    expect(fieldEdit(maxSurge, '50%')).toEqual({ edit: { op: 'set', path: maxSurge.path, value: '50%' } });
  });

  it('asks nothing when the text already says it, and takes out an optional value left empty', () => {
    expect(fieldEdit(platform, 'cloud')).toBeNull();
    expect(fieldEdit(replicas, '3')).toBeNull();
    expect(fieldEdit(size, '')).toBeNull();
    expect(fieldEdit(platform, '')).toEqual({ edit: { op: 'unset', path: platform.path } });
  });

  it('names the field when what was typed is not its kind of value', () => {
    expect(fieldEdit(size, '2x')).toEqual({ problem: 'size: expected a number, got "2x"' });
    expect(fieldEdit(size, 'Infinity')).toEqual({ problem: 'size: expected a number, got "Infinity"' });
    expect(fieldEdit(replicas, '2.5')).toEqual({ problem: 'replicas: expected a whole number, got 2.5' });
    expect(fieldEdit(name, '')).toEqual({ problem: 'name: required, so it cannot be left empty' });
    expect(fieldEdit(platform, 'vm')).toEqual({ problem: 'platform: expected one of bare-metal, cloud, got "vm"' });
  });

  it('writes what the field takes in a few words', () => {
    expect(fieldHint(size)).toBe('number · above 0 · at most 64 · default 1');
    expect(fieldHint(replicas)).toBe('whole number · 0 to 20000 · optional');
    expect(fieldHint(name)).toBe('required');
    expect(fieldHint(maxSurge)).toBe('a count or a percentage · optional');
  });

  it('gives edits the editor applies: the loader then names a value out of range', () => {
    const asked = fieldEdit(size, '100');
    if (asked === null || !('edit' in asked)) throw new Error('expected an edit');
    expect(() => applyEdit(DEMO, asked.edit)).toThrow(/^the scenario would no longer load: topology\.nodes\[0\]\.size: must be <= 64, got 100$/);
  });
});
