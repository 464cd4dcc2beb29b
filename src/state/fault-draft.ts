import type { FaultDescriptor, FaultParamDescriptor } from '../sim/api';

/** Parameter values as typed into the inspector: text for numbers (so a half-typed "-" survives), booleans as is. */
export type ParamDraft = Record<string, string | boolean>;

/** The catalog entries that accept an entity of this kind, in catalog order. */
export function faultsFor(catalog: readonly FaultDescriptor[], kind: string): FaultDescriptor[] {
  return catalog.filter((f) => f.targets.includes(kind));
}

const draftValue = (p: FaultParamDescriptor): string | boolean =>
  p.kind === 'boolean' ? p.default === true : String(p.default);

/** Every parameter at its catalog default. */
export function defaultDraft(fault: FaultDescriptor): ParamDraft {
  return Object.fromEntries(fault.params.map((p) => [p.name, draftValue(p)]));
}

/**
 * The draft as fault parameters. Text that is not a number becomes NaN, so the simulation's own validation rejects it
 * with a message naming the parameter; the UI does not keep a second copy of the rules.
 */
export function draftToParams(fault: FaultDescriptor, draft: ParamDraft): Record<string, number | boolean> {
  const params: Record<string, number | boolean> = {};
  for (const p of fault.params) {
    const value = draft[p.name] ?? draftValue(p);
    if (p.kind === 'boolean') params[p.name] = value === true;
    else params[p.name] = typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  }
  return params;
}
