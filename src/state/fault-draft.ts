import type { FaultDescriptor, FaultParamDescriptor, FaultParamValue } from '../sim';

/** Parameter values as typed into the inspector: text for numbers (so a half-typed "-" survives), booleans as is. */
export type ParamDraft = Record<string, string | boolean>;

/** The catalog entries that accept an entity of this kind, in catalog order. */
export function faultsFor(catalog: readonly FaultDescriptor[], kind: string): FaultDescriptor[] {
  return catalog.filter((f) => f.targets.includes(kind));
}

const draftValue = (p: FaultParamDescriptor): string | boolean => (p.kind === 'boolean' ? p.default === true : String(p.default));

/** Every parameter at its catalog default. */
export function defaultDraft(fault: FaultDescriptor): ParamDraft {
  return Object.fromEntries(fault.params.map((p) => [p.name, draftValue(p)]));
}

/**
 * The draft as fault parameters. Text that is not a number becomes NaN, so the simulation's own validation rejects it
 * with a message naming the parameter; the UI does not keep a second copy of the rules.
 */
export function draftToParams(fault: FaultDescriptor, draft: ParamDraft): Record<string, FaultParamValue> {
  const params: Record<string, FaultParamValue> = {};
  for (const p of fault.params) {
    const value = draft[p.name] ?? draftValue(p);
    if (p.kind === 'boolean') params[p.name] = value === true;
    else if (p.kind === 'choice') params[p.name] = String(value);
    else params[p.name] = typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  }
  return params;
}
