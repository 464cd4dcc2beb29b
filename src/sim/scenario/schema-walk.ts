import type { PathSegment } from './path';

/** The parts of a JSON Schema (draft 2020-12, as zod writes public/scenario.schema.json) that walking it reads. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The alternatives of a union that fit `value`: a branch whose `const` property (a deployment's `app`) names another
 * value is left out, unless every branch would be, as while that property is still being written.
 */
export function branches(schema: JsonSchema, value: unknown): JsonSchema[] {
  const union = schema.oneOf ?? schema.anyOf;
  if (!union) return [schema];
  const all = union.flatMap((branch) => branches(branch, value));
  const fitting = all.filter((branch) =>
    Object.entries(branch.properties ?? {}).every(([key, field]) => !('const' in field) || !isObject(value) || !(key in value) || value[key] === field.const),
  );
  return fitting.length > 0 ? fitting : all;
}

/** The schema of one key or list index below `schema`; an empty schema (anything at all) counts as none. */
export function childSchema(schema: JsonSchema, segment: PathSegment): JsonSchema | undefined {
  const index = typeof segment === 'number' ? segment : /^\d+$/.test(segment) ? Number(segment) : undefined;
  if (index !== undefined && (schema.items || schema.prefixItems)) return schema.prefixItems?.[index] ?? schema.items;
  const field = schema.properties && Object.hasOwn(schema.properties, segment) ? schema.properties[String(segment)] : undefined;
  if (field) return field;
  const rest = schema.additionalProperties;
  return typeof rest === 'object' && Object.keys(rest).length > 0 ? rest : undefined;
}

function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let value = root;
  for (const segment of path) value = (isObject(value) || Array.isArray(value)) && Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[String(segment)] : undefined;
  return value;
}

/** The schemas that may hold at `path` in the document `root`, unions opened by the values along the way. */
export function schemasAt(schema: JsonSchema, path: readonly PathSegment[], root: unknown): JsonSchema[] {
  let here = branches(schema, root);
  for (let i = 0; i < path.length; i++) {
    const value = valueAt(root, path.slice(0, i + 1));
    here = here.flatMap((s) => {
      const next = childSchema(s, path[i]!);
      return next ? branches(next, value) : [];
    });
  }
  return here;
}
