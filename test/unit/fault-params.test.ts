import { describe, expect, it } from 'vitest';
import type { FaultDescriptor } from '../../src/sim/api';
import { faultCatalog, findFault } from '../../src/sim/faults/catalog';
import { TARGET_KINDS } from '../../src/sim/scenario/schema';
import { parseTarget, resolveParams } from '../../src/sim/faults/fault';

const deletePod = findFault('delete-pod')!;

describe('fault catalog', () => {
  it('describes every fault as plain data with targets and parameter ranges', () => {
    const catalog = faultCatalog();
    expect(catalog.map((f) => f.id)).toContain('delete-pod');
    for (const f of catalog) {
      expect(f.targets.length).toBeGreaterThan(0);
      expect(JSON.parse(JSON.stringify(f))).toEqual(f);
    }
  });

  it('fills defaults: Kubernetes grace period is 30 s', () => {
    expect(resolveParams(deletePod, {})).toEqual({ gracePeriodSeconds: 30 });
    expect(resolveParams(deletePod, { gracePeriodSeconds: 0 })).toEqual({ gracePeriodSeconds: 0 });
  });

  it('names the parameter that is wrong', () => {
    expect(() => resolveParams(deletePod, { grace: 1 })).toThrow('params.grace: unknown parameter');
    expect(() => resolveParams(deletePod, { gracePeriodSeconds: -1 })).toThrow('params.gracePeriodSeconds: must be at least 0');
    expect(() => resolveParams(deletePod, { gracePeriodSeconds: true })).toThrow('params.gracePeriodSeconds: expected a number');
  });

  it('parses kind/name targets and checks the kind', () => {
    expect(parseTarget(deletePod, 'pod/web-0')).toEqual({ kind: 'pod', name: 'web-0' });
    expect(() => parseTarget(deletePod, 'web-0')).toThrow('target: expected kind/name');
    expect(() => parseTarget(deletePod, 'node/node-a')).toThrow('applies to pod, not node');
  });

  it('every entry: one glyph for an icon, a one-line description, known target kinds, defaults its own rules accept', () => {
    const catalog = faultCatalog();
    expect(new Set(catalog.map((f) => f.id)).size).toBe(catalog.length);
    for (const f of catalog) {
      expect([...f.icon], f.id).toHaveLength(1);
      expect(f.description).not.toContain('\n');
      expect(f.description.length, f.id).toBeGreaterThan(20);
      for (const kind of f.targets) expect(TARGET_KINDS, f.id).toContain(kind);
      expect(() => resolveParams(f, {}), f.id).not.toThrow();
      for (const p of f.params) {
        if (p.kind === 'choice') expect(p.choices, `${f.id}.${p.name}`).toContain(p.default);
        if (p.kind === 'number') expect(p.min !== undefined && p.max !== undefined, `${f.id}.${p.name} has a range`).toBe(true);
      }
    }
  });

  it('choice parameters take one of their words', () => {
    const fault: FaultDescriptor = {
      id: 'x',
      label: 'X',
      icon: 'x',
      description: 'a test fault',
      targets: ['router'],
      params: [{ name: 'mode', label: 'Mode', kind: 'choice', default: 'a', choices: ['a', 'b'] }],
    };
    expect(resolveParams(fault, {})).toEqual({ mode: 'a' });
    expect(resolveParams(fault, { mode: 'b' })).toEqual({ mode: 'b' });
    expect(() => resolveParams(fault, { mode: 'c' })).toThrow('params.mode: expected one of "a", "b"');
    expect(() => resolveParams(fault, { mode: 1 })).toThrow('params.mode: expected one of "a", "b"');
  });

  it('integer parameters refuse fractions; numbers refuse words', () => {
    const scale = findFault('scale-deployment')!;
    expect(resolveParams(scale, { replicas: 4 })).toEqual({ replicas: 4 });
    expect(() => resolveParams(scale, { replicas: 2.5 })).toThrow('params.replicas: expected a whole number');
    expect(() => resolveParams(scale, { replicas: 'four' })).toThrow('params.replicas: expected a number');
    expect(() => resolveParams(findFault('set-rp-filter')!, { interfaces: 'yes' })).toThrow('params.interfaces: expected true or false');
  });

  it('target errors name the field and give an example of the kind', () => {
    expect(() => parseTarget(findFault('change-ecmp-hash')!, 'tor')).toThrow('target: expected kind/name (e.g. router/tor), got "tor"');
    expect(() => parseTarget(findFault('break-upstream')!, 'node/node-a')).toThrow('target: fault "break-upstream" applies to dns, not node');
  });
});
