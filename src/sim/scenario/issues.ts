import type { z } from 'zod';
import { echo } from './limits';
import { formatPath, pathKey, type PathSegment } from './path';
import { didYouMean } from './suggest';

/** One problem found in a scenario: where, and what is wrong in plain words. */
export interface ScenarioIssue {
  path: PathSegment[];
  message: string;
}

/** `path: problem`, the form every loader error takes. */
export function formatIssue(issue: ScenarioIssue): string {
  return `${formatPath(issue.path)}: ${issue.message}`;
}

type ZodIssue = z.core.$ZodIssue;

/** Turns zod issues (parsed with `reportInput: true`) into plain-English issues, one per unknown key. */
export function issuesFromZod(zodIssues: readonly ZodIssue[], schema: z.core.$ZodType): ScenarioIssue[] {
  const out: ScenarioIssue[] = [];
  const keys = zodIssues.map((issue) => pathKey(issue.path.map(toSegment)));
  const perPath = new Map<string, number>();
  for (const key of keys) perPath.set(key, (perPath.get(key) ?? 0) + 1);
  for (const [i, issue] of zodIssues.entries()) {
    const path = issue.path.map(toSegment);
    // zod's implicit safe-integer check is dropped only beside another issue at the same place.
    if (isSafeIntegerBound(issue) && (perPath.get(keys[i]!) ?? 0) > 1) continue;
    if (issue.code === 'unrecognized_keys') {
      const known = keysAt(schema, path, issue.input);
      for (const key of issue.keys) out.push({ path: [...path, key], message: otherBranchKey(schema, path, issue.input, key) ?? `unknown key${didYouMean(key, known)}` });
    } else {
      out.push({ path, message: describe(issue) });
      if (issue.code === 'invalid_union' && issue.discriminator !== undefined) out.push(...keysNoBranchHas(schema, path.slice(0, -1), issue.input));
    }
  }
  return out;
}

/** With no branch picked (its discriminator missing or wrong), the keys of the value that no branch has: typos, most likely. */
function keysNoBranchHas(schema: z.core.$ZodType, path: PathSegment[], input: unknown): ScenarioIssue[] {
  const options = objectAt(schema, path, input)?.union?.options;
  if (!options || !isRecord(input)) return [];
  const known = [...new Set(options.flatMap((o) => Object.keys(o.shape)))];
  return Object.keys(input)
    .filter((key) => !known.includes(key))
    .map((key) => ({ path: [...path, key], message: `unknown key${didYouMean(key, known)}` }));
}

/** zod's implicit safe-integer range check; redundant beside the field's own bound. */
function isSafeIntegerBound(issue: ZodIssue): boolean {
  if (issue.code === 'too_big') return Number(issue.maximum) === Number.MAX_SAFE_INTEGER;
  if (issue.code === 'too_small') return Number(issue.minimum) === Number.MIN_SAFE_INTEGER;
  return false;
}

function toSegment(key: PropertyKey): PathSegment {
  return typeof key === 'number' ? key : String(key);
}

function describe(issue: ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      // A schema that words its own "required for …" knows better than a type name what belongs there.
      if (issue.input === undefined) return issue.message.startsWith('required') ? issue.message : `required (expected ${typeWord(issue.expected)})`;
      return `expected ${typeWord(issue.expected)}, got ${valueWord(issue.input, issue.expected === 'int', false)}`;
    case 'too_small':
      return describeBound(issue.origin, 'min', issue.minimum, issue.inclusive ?? true, issue.input);
    case 'too_big':
      return describeBound(issue.origin, 'max', issue.maximum, issue.inclusive ?? true, issue.input);
    case 'invalid_format':
      if (issue.format === 'ipv4') return 'not an IPv4 address';
      if (issue.format === 'cidrv4') return 'not an IPv4 CIDR block (like 10.244.1.0/24)';
      return issue.message;
    case 'invalid_value': {
      const allowed = issue.values.map((v) => JSON.stringify(v));
      const expected = allowed.length === 1 ? allowed[0] : `one of ${allowed.join(', ')}`;
      if (issue.input === undefined) return `required (expected ${expected})`;
      const hint = typeof issue.input === 'string' ? didYouMean(issue.input, issue.values.map(String)) : '';
      return `expected ${expected}, got ${valueWord(issue.input, true, true)}${hint}`;
    }
    case 'invalid_union':
      return describeUnion(issue);
    case 'invalid_key': {
      const inner = issue.issues[0];
      return `invalid name: ${inner ? describe(inner) : issue.message}`;
    }
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `unknown keys ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    case 'invalid_element':
    case 'custom':
      return issue.message;
  }
}

function describeBound(origin: string, side: 'min' | 'max', bound: number | bigint, inclusive: boolean, input: unknown): string {
  if (origin === 'array') {
    const n = Number(bound);
    return side === 'min' ? `needs at least ${n} item${n === 1 ? '' : 's'}` : `allows at most ${n} item${n === 1 ? '' : 's'}`;
  }
  if (origin === 'string') {
    const n = Number(bound);
    if (side === 'min' && n === 1) return 'must not be empty';
    return side === 'min' ? `needs at least ${n} characters` : `allows at most ${n} characters`;
  }
  const op = side === 'min' ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<';
  const got = typeof input === 'number' ? `, got ${input}` : '';
  return `must be ${op} ${String(bound)}${got}`;
}

function describeUnion(issue: Extract<ZodIssue, { code: 'invalid_union' }>): string {
  // zod's discriminated union lists the discriminator's values on the issue, though its type does not say so.
  const options = (issue as { options?: unknown }).options;
  if (issue.discriminator !== undefined && Array.isArray(options)) {
    const given = isRecord(issue.input) ? issue.input[issue.discriminator] : undefined;
    return describe({ code: 'invalid_value', values: options as z.core.util.Primitive[], input: given, path: issue.path, message: issue.message });
  }
  const expected: string[] = [];
  for (const branch of issue.errors) {
    const first = branch[0];
    if (branch.length !== 1 || first === undefined || first.code !== 'invalid_type' || first.path.length > 0) {
      return 'does not match any allowed form';
    }
    expected.push(typeWord(first.expected));
  }
  const list = expected.length > 1 ? `${expected.slice(0, -1).join(', ')} or ${expected[expected.length - 1]}` : expected.join('');
  return issue.input === undefined ? `required (expected ${list})` : `expected ${list}, got ${valueWord(issue.input, false, false)}`;
}

function typeWord(expected: string): string {
  if (expected === 'int') return 'integer';
  if (expected === 'array' || expected === 'tuple') return 'list';
  if (expected === 'record') return 'object';
  return expected;
}

/** A type name, or the value itself where the value is what is wrong (NaN, 1.5 for an integer, "x" for an enum). */
function valueWord(input: unknown, showNumber: boolean, showString: boolean): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'list';
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return String(input);
    return showNumber ? String(input) : 'number';
  }
  if (typeof input === 'string' && showString) return echo(input);
  return typeof input;
}

interface SchemaDef {
  type: string;
  options?: z.core.$ZodType[];
  discriminator?: string;
  shape?: Record<string, z.core.$ZodType>;
  valueType?: z.core.$ZodType;
  element?: z.core.$ZodType;
  items?: z.core.$ZodType[];
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
}

/**
 * The keys an object schema allows at `path`, found by walking the schema; empty when no object lives there. A union
 * of objects is resolved by the value there (`input`) on its discriminator, and on the way by the next key.
 */
function keysAt(schema: z.core.$ZodType, path: readonly PathSegment[], input?: unknown): string[] {
  const shape = objectAt(schema, path, input)?.shape;
  return shape ? Object.keys(shape) : [];
}

/** For a key another branch of a discriminated union has: which branches, as "only X deployments have this key". */
function otherBranchKey(schema: z.core.$ZodType, path: readonly PathSegment[], input: unknown, key: string): string | undefined {
  const found = objectAt(schema, path, input);
  if (!found?.union || !found.shape) return undefined;
  const { options, discriminator } = found.union;
  const owners = options.filter((o) => Object.hasOwn(o.shape, key)).map((o) => String(literalOf(o.shape[discriminator])));
  if (owners.length === 0) return undefined;
  const list = owners.length > 1 ? `${owners.slice(0, -1).join(', ')} and ${owners[owners.length - 1]}` : owners[0];
  const parent = path[path.length - 2];
  const noun = typeof parent === 'string' ? parent : 'items';
  const current = isRecord(input) ? input[discriminator] : undefined;
  return `only ${list} ${noun} have this key${typeof current === 'string' ? ` (this one's ${discriminator} is ${current})` : ''}`;
}

interface ObjectBranch {
  shape: Record<string, z.core.$ZodType>;
}

/** The object at a path; for a discriminated union, its branches and the one the value picks, if any. */
interface ObjectAt {
  shape?: Record<string, z.core.$ZodType>;
  union?: { options: ObjectBranch[]; discriminator: string };
}

function objectAt(schema: z.core.$ZodType, path: readonly PathSegment[], input: unknown): ObjectAt | undefined {
  let current: z.core.$ZodType | undefined = unwrap(schema);
  for (const segment of path) {
    if (current === undefined) return undefined;
    const def = current._zod.def as unknown as SchemaDef;
    if (def.type === 'object') current = def.shape && Object.hasOwn(def.shape, segment) ? def.shape[String(segment)] : undefined;
    else if (def.type === 'record') current = def.valueType;
    else if (def.type === 'array') current = def.element;
    else if (def.type === 'tuple') current = typeof segment === 'number' ? def.items?.[segment] : undefined;
    else if (def.type === 'union') current = branchesOf(def).find((b) => Object.hasOwn(b.shape, segment))?.shape[String(segment)];
    else return undefined;
    current = current && unwrap(current);
  }
  if (current === undefined) return undefined;
  const def = current._zod.def as unknown as SchemaDef;
  if (def.type === 'object' && def.shape) return { shape: def.shape };
  if (def.type !== 'union' || def.discriminator === undefined) return undefined;
  const options = branchesOf(def);
  const given = isRecord(input) ? input[def.discriminator] : undefined;
  const branch = options.find((o) => literalOf(o.shape[def.discriminator!]) === given);
  return { ...(branch && { shape: branch.shape }), union: { options, discriminator: def.discriminator } };
}

function branchesOf(def: SchemaDef): ObjectBranch[] {
  return (def.options ?? []).flatMap((o) => {
    const d = unwrap(o)._zod.def as unknown as SchemaDef;
    return d.type === 'object' && d.shape ? [{ shape: d.shape }] : [];
  });
}

function literalOf(schema: z.core.$ZodType | undefined): unknown {
  const def = schema?._zod.def as unknown as { type: string; values?: unknown[] } | undefined;
  return def?.type === 'literal' ? def.values?.[0] : undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let current = schema;
  for (;;) {
    const def = current._zod.def as unknown as SchemaDef;
    const inner = def.type === 'pipe' ? def.in : def.innerType;
    if (inner === undefined) return current;
    current = inner;
  }
}
