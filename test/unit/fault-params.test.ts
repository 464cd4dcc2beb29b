import { describe, expect, it } from 'vitest';
import { faultCatalog, findFault } from '../../src/sim/faults/catalog';
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
});
