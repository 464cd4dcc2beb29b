import type { z } from 'zod';
import { formatPath, samePath, type PathSegment } from './path';
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
  for (const issue of zodIssues) {
    const path = issue.path.map(toSegment);
    const crowded = zodIssues.some((other) => other !== issue && samePath(other.path.map(toSegment), path));
    if (crowded && isSafeIntegerBound(issue)) continue;
    if (issue.code === 'unrecognized_keys') {
      const known = keysAt(schema, path);
      for (const key of issue.keys) out.push({ path: [...path, key], message: `unknown key${didYouMean(key, known)}` });
    } else {
      out.push({ path, message: describe(issue) });
    }
  }
  return out;
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
      if (issue.input === undefined) return `required (expected ${typeWord(issue.expected)})`;
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
  if (typeof input === 'string' && showString) return JSON.stringify(input.length > 40 ? `${input.slice(0, 40)}…` : input);
  return typeof input;
}

interface SchemaDef {
  type: string;
  shape?: Record<string, z.core.$ZodType>;
  valueType?: z.core.$ZodType;
  element?: z.core.$ZodType;
  items?: z.core.$ZodType[];
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
}

/** The keys an object schema allows at `path`, found by walking the schema; empty when no object lives there. */
export function keysAt(schema: z.core.$ZodType, path: readonly PathSegment[]): string[] {
  let current: z.core.$ZodType | undefined = unwrap(schema);
  for (const segment of path) {
    if (current === undefined) return [];
    const def = current._zod.def as unknown as SchemaDef;
    if (def.type === 'object') current = def.shape?.[String(segment)];
    else if (def.type === 'record') current = def.valueType;
    else if (def.type === 'array') current = def.element;
    else if (def.type === 'tuple') current = typeof segment === 'number' ? def.items?.[segment] : undefined;
    else return [];
    current = current && unwrap(current);
  }
  if (current === undefined) return [];
  const def = current._zod.def as unknown as SchemaDef;
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
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
