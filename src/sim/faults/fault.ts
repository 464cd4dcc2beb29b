import type { FaultDescriptor, FaultParamDescriptor, FaultParamValue } from '../api';
import type { World } from '../world';

export type FaultParams = Record<string, FaultParamValue>;

/** A fault is data plus one function: the palette, timelines, the CLI and shared links all use this record. */
export interface Fault extends FaultDescriptor {
  /** Applies the fault to a resolved target name (the part after `kind/`), with validated params. */
  apply(world: World, targetKind: string, targetName: string, params: FaultParams, cause: string): void;
}

/** How a fault declares one parameter: a choice lists its words, so its value's type is their union. */
export type FaultParamSpec =
  | (Omit<FaultParamDescriptor, 'kind' | 'default' | 'choices'> & { kind: 'number'; default: number })
  | (Omit<FaultParamDescriptor, 'kind' | 'default' | 'choices'> & { kind: 'boolean'; default: boolean })
  | (Omit<FaultParamDescriptor, 'kind' | 'default' | 'choices'> & { kind: 'choice'; default: string; choices: readonly string[] });

type ValueOf<P extends FaultParamSpec> = P extends { kind: 'number' } ? number : P extends { kind: 'boolean' } ? boolean : P extends { choices: readonly (infer C)[] } ? C : never;

/** The values `apply` receives, typed from the declarations: `{ gracePeriodSeconds: number; mode: 'loose' | 'strict' }`. */
export type ParamsOf<Ps extends readonly FaultParamSpec[]> = { [P in Ps[number] as P['name']]: ValueOf<P> };

/**
 * A fault whose `apply` gets its parameters typed from their declarations. They reach it only through resolveParams,
 * which checks each against the same declarations, so the one cast below holds.
 */
export function defineFault<const Ps extends readonly FaultParamSpec[]>(
  fault: Omit<FaultDescriptor, 'params'> & { params: Ps; apply(world: World, targetKind: string, targetName: string, params: ParamsOf<Ps>, cause: string): void },
): Fault {
  const params = fault.params.map((p): FaultParamDescriptor => (p.kind === 'choice' ? { ...p, choices: [...p.choices] } : p));
  return { ...fault, params, apply: (world, kind, name, given, cause) => fault.apply(world, kind, name, given as ParamsOf<Ps>, cause) };
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
