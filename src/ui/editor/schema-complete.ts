import { schemasAt, type JsonSchema } from '../../sim';
import type { CursorPlace } from './yaml-place';

export interface Suggestion {
  label: string;
  /** What choosing it writes in place of the word at the cursor. */
  apply: string;
  what: 'key' | 'value';
  /** The type and default, short. */
  detail?: string;
  /** The description and range, a sentence. */
  info?: string;
  /** Ranks it above (or, below zero, under) the others: required keys first, values in the schema's order. */
  boost?: number;
}

function typeText(schema: JsonSchema): string {
  if ('const' in schema) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const union = schema.oneOf ?? schema.anyOf;
  if (union) return [...new Set(union.map(typeText))].join(' | ');
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'any');
  return type === 'array' ? 'list' : type;
}

function rangeText(schema: JsonSchema): string | undefined {
  const parts = [
    schema.minimum !== undefined ? `at least ${schema.minimum}` : undefined,
    schema.exclusiveMinimum !== undefined ? `above ${schema.exclusiveMinimum}` : undefined,
    schema.maximum !== undefined ? `at most ${schema.maximum}` : undefined,
  ].filter((p) => p !== undefined);
  const text = parts.join(', ');
  return text === '' ? undefined : `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

function keySuggestion(key: string, field: JsonSchema, required: boolean, colonFollows: boolean): Suggestion {
  const detail = `${typeText(field)}${field.default !== undefined ? ` = ${JSON.stringify(field.default)}` : ''}`;
  const info = [field.description, rangeText(field), required ? 'Required.' : undefined].filter((p) => p !== undefined).join(' ');
  const nested = field.type === 'object' || field.type === 'array';
  // A mapping or list goes on the lines below its key; a scalar follows it on the same line.
  const apply = colonFollows ? key : nested ? `${key}:` : `${key}: `;
  return { label: key, apply, what: 'key', detail, ...(info ? { info } : {}), ...(required ? { boost: 1 } : {}) };
}

/** A value written as plain YAML where that reads back as the same string, quoted otherwise. */
function yamlScalar(value: unknown): string {
  if (typeof value !== 'string') return String(value);
  return /^[A-Za-z_][\w./-]*$/.test(value) && !/^(true|false|null|yes|no|on|off|~)$/i.test(value) ? value : JSON.stringify(value);
}

function values(schema: JsonSchema): unknown[] {
  const union = schema.oneOf ?? schema.anyOf;
  if (union) return union.flatMap(values);
  if ('const' in schema) return [schema.const];
  if (schema.enum) return schema.enum;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes('boolean') ? [true, false] : [];
}

function valueSuggestions(schemas: readonly JsonSchema[]): Suggestion[] {
  const seen = new Map<string, Suggestion>();
  for (const schema of schemas) {
    for (const value of values(schema)) {
      const label = yamlScalar(value);
      if (seen.has(label)) continue;
      const isDefault = schema.default !== undefined && schema.default === value;
      const rank = seen.size === 0 ? {} : { boost: -Math.min(seen.size, 99) };
      seen.set(label, { label, apply: label, what: 'value', ...rank, ...(isDefault ? { detail: 'default' } : {}), ...(schema.description ? { info: schema.description } : {}) });
    }
  }
  return [...seen.values()];
}

/**
 * What may be written at `place` by `schema`: the keys its mapping may still take (with each field's type, default and
 * description), or the values its field takes (enums, constants, booleans). A list item that is not a mapping gets
 * values where a key was asked for.
 */
export function suggest(schema: JsonSchema, place: CursorPlace): Suggestion[] {
  const schemas = schemasAt(schema, place.path, place.root);
  if (place.kind === 'value') return valueSuggestions(schemas);
  const objects = schemas.filter((s) => s.properties);
  if (objects.length === 0) return valueSuggestions(schemas);
  const keys = new Map<string, Suggestion>();
  for (const object of objects) {
    for (const [key, field] of Object.entries(object.properties!)) {
      if (key in place.mapping || keys.has(key)) continue;
      keys.set(key, keySuggestion(key, field, object.required?.includes(key) ?? false, place.colonFollows));
    }
  }
  return [...keys.values()];
}
