import { isNode, isScalar, parseDocument } from 'yaml';
import type { Field, ScalarValue, YamlPath } from './edit-kinds';
import { scenarioJsonSchema } from './json-schema';
import { formatPath } from './path';
import { withoutBom } from './parse-text';

type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
// zod writes an unbounded integer's range as ±Number.MAX_SAFE_INTEGER, which says nothing to a person.
const bound = (v: unknown): number | undefined => (typeof v === 'number' && Math.abs(v) < Number.MAX_SAFE_INTEGER ? v : undefined);
const isScalarValue = (v: unknown): v is ScalarValue => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

let cached: Schema | undefined;
function rootSchema(): Schema {
  cached ??= scenarioJsonSchema();
  return cached;
}

/**
 * The object alternative of a union that the value there is: the one whose constants (a deployment's `app`) it has,
 * else the first object, so a path can go on through it.
 */
function objectOf(schema: Schema, value?: unknown): Schema {
  const alternatives = schema['anyOf'] ?? schema['oneOf'];
  if (!Array.isArray(alternatives)) return schema;
  const objects = alternatives.filter((s): s is Schema => isSchema(s) && s['type'] === 'object');
  return objects.find((o) => hasConstants(o, value)) ?? objects[0] ?? schema;
}

function hasConstants(object: Schema, value: unknown): boolean {
  if (!isSchema(value)) return false;
  const properties = isSchema(object['properties']) ? object['properties'] : {};
  return Object.entries(properties).every(([key, p]) => !isSchema(p) || !('const' in p) || value[key] === p['const']);
}

function childOf(schema: Schema, segment: string | number, value: unknown): Schema | undefined {
  const s = objectOf(schema, value);
  if (typeof segment === 'number') return isSchema(s['items']) ? s['items'] : undefined;
  const properties = isSchema(s['properties']) ? s['properties'] : {};
  const named = properties[segment];
  if (isSchema(named)) return named;
  return isSchema(s['additionalProperties']) && Object.keys(s['additionalProperties']).length > 0 ? s['additionalProperties'] : undefined;
}

/** How a scalar is typed in, or null when the schema is not a single value (a list, a map). */
function inputOf(schema: Schema): Omit<Field, 'key' | 'path' | 'required' | 'value'> | null {
  const fallback = isScalarValue(schema['default']) ? { default: schema['default'] } : {};
  const range: Pick<Field, 'min' | 'max' | 'above'> = {};
  for (const [key, into] of [
    ['minimum', 'min'],
    ['maximum', 'max'],
    ['exclusiveMinimum', 'above'],
  ] as const) {
    const limit = bound(schema[key]);
    if (limit !== undefined) range[into] = limit;
  }
  if (Array.isArray(schema['enum']) && schema['enum'].every((o) => typeof o === 'string')) return { input: 'choice', options: schema['enum'] as string[], ...fallback };
  const type = schema['type'];
  if (type === 'boolean') return { input: 'boolean', ...fallback };
  if (type === 'integer' || type === 'number') return { input: 'number', integer: type === 'integer', ...range, ...fallback };
  if (type === 'string') return { input: 'text', ...fallback };
  const alternatives = schema['anyOf'];
  if (Array.isArray(alternatives) && alternatives.every((a) => isSchema(a) && ['integer', 'number', 'string'].includes(String(a['type'])))) {
    return { input: 'text', numeric: true, ...fallback };
  }
  return null;
}

/** The key that tells a union's objects apart (a deployment's `app`), as a choice among every object's value of it. */
function choiceOfConstant(union: Schema, key: string): Omit<Field, 'key' | 'path' | 'required' | 'value'> {
  const alternatives = union['anyOf'] ?? union['oneOf'];
  const options = (Array.isArray(alternatives) ? alternatives : [union]).flatMap((o) => {
    const p = isSchema(o) && isSchema(o['properties']) ? o['properties'][key] : undefined;
    return isSchema(p) && typeof p['const'] === 'string' ? [p['const']] : [];
  });
  return { input: 'choice', options };
}

/**
 * The single values the item at `path` holds (those of maps directly inside it too, like a deployment's autoscale),
 * typed from the scenario's JSON Schema, with what the text says of each; and the keys that only the text can edit.
 * Throws an Error naming the path when the schema has nothing there.
 */
export function fieldsAt(text: string, path: YamlPath): { fields: Field[]; inText: string[] } {
  const doc = parseDocument(withoutBom(text));
  const valueAt = (at: YamlPath): unknown => {
    const node = doc.getIn(at, true);
    return isNode(node) ? node.toJSON() : node;
  };
  let schema: Schema | undefined = rootSchema();
  path.forEach((segment, i) => (schema = schema && childOf(schema, segment, valueAt(path.slice(0, i)))));
  if (!schema) throw new Error(`${formatPath(path)}: the scenario format has nothing there to edit`);
  const fields: Field[] = [];
  const inText: string[] = [];
  const walk = (object: Schema, at: YamlPath, prefix: string, depth: number): void => {
    const s = objectOf(object, valueAt(at));
    const properties = isSchema(s['properties']) ? s['properties'] : {};
    const required = Array.isArray(s['required']) ? (s['required'] as string[]) : [];
    for (const [key, child] of Object.entries(properties)) {
      if (!isSchema(child) || (at.length === 0 && key === 'version')) continue;
      const name = prefix + key;
      const input = 'const' in child ? choiceOfConstant(object, key) : inputOf(child);
      if (input) {
        const node = doc.getIn([...at, key], true);
        const value = isScalar(node) && isScalarValue(node.value) ? node.value : undefined;
        fields.push({ key: name, path: [...at, key], required: required.includes(key), ...input, ...(value !== undefined && { value }) });
      } else if (depth === 0 && at.length > 0 && objectOf(child)['type'] === 'object' && isSchema(objectOf(child)['properties'])) {
        walk(child, [...at, key], `${name}.`, depth + 1);
      } else {
        inText.push(name);
      }
    }
  };
  walk(schema, path, '', 0);
  return { fields, inText };
}
