import type { FaultDescriptor, FaultParamDescriptor, FaultParamValue } from '../api';
import type { World } from '../world';

export type FaultParams = Record<string, FaultParamValue>;

/** A fault is data plus one function: the palette, timelines, the CLI and shared links all use this record. */
export interface Fault extends FaultDescriptor {
  /** Applies the fault to a resolved target name (the part after `kind/`), with validated params. */
  apply(world: World, targetKind: string, targetName: string, params: FaultParams, cause: string): void;
}

/** Fills defaults and checks every parameter against its descriptor; throws naming the parameter. */
export function resolveParams(fault: FaultDescriptor, given: FaultParams = {}): FaultParams {
  const out: FaultParams = {};
  const known = new Map<string, FaultParamDescriptor>(fault.params.map((p) => [p.name, p]));
  for (const name of Object.keys(given)) {
    if (!known.has(name)) {
      const names = fault.params.map((p) => p.name).join(', ') || 'none';
      throw new Error(`params.${name}: unknown parameter of fault "${fault.id}" (it takes: ${names})`);
    }
  }
  for (const p of fault.params) {
    const value = given[p.name] ?? p.default;
    if (p.kind === 'number') {
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`params.${p.name}: expected a number`);
      if (p.integer && !Number.isInteger(value)) throw new Error(`params.${p.name}: expected a whole number`);
      if (p.min !== undefined && value < p.min) throw new Error(`params.${p.name}: must be at least ${p.min}`);
      if (p.max !== undefined && value > p.max) throw new Error(`params.${p.name}: must be at most ${p.max}`);
    } else if (p.kind === 'choice') {
      const choices = p.choices ?? [];
      if (typeof value !== 'string' || !choices.includes(value)) {
        throw new Error(`params.${p.name}: expected one of ${choices.map((c) => `"${c}"`).join(', ')}`);
      }
    } else if (typeof value !== 'boolean') throw new Error(`params.${p.name}: expected true or false`);
    out[p.name] = value;
  }
  return out;
}

/** Splits `kind/name` and checks the kind is one the fault accepts. */
export function parseTarget(fault: FaultDescriptor, target: string): { kind: string; name: string } {
  const slash = target.indexOf('/');
  const kind = slash > 0 ? target.slice(0, slash) : '';
  const name = slash > 0 ? target.slice(slash + 1) : '';
  if (!kind || !name) throw new Error(`target: expected kind/name (e.g. ${fault.targets[0]}/${EXAMPLE_NAMES[fault.targets[0]!] ?? 'name'}), got "${target}"`);
  if (!fault.targets.includes(kind)) {
    throw new Error(`target: fault "${fault.id}" applies to ${fault.targets.join(' or ')}, not ${kind}`);
  }
  return { kind, name };
}

// What an example target of each kind looks like, for the error text.
const EXAMPLE_NAMES: Record<string, string> = {
  pod: 'web-0',
  node: 'node-a',
  deployment: 'web',
  service: 'web',
  router: 'tor',
  lb: 'bigip',
  dns: 'cluster',
  external: 'user-1',
  zookeeper: 'ensemble',
};
