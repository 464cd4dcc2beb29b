import { isScalar } from 'yaml';
import type { Field, ScalarValue, YamlPath } from './edit-kinds';
import { scenarioJsonSchema } from './json-schema';
import { formatPath } from './path';
import { readYaml, withoutBom } from './parse-text';
import { schemasAt, type JsonSchema } from './schema-walk';

// zod writes an unbounded integer's range as ±Number.MAX_SAFE_INTEGER, which says nothing to a person.
const bound = (v: unknown): number | undefined => (typeof v === 'number' && Math.abs(v) < Number.MAX_SAFE_INTEGER ? v : undefined);
const isScalarValue = (v: unknown): v is ScalarValue => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

let cached: JsonSchema | undefined;
function rootSchema(): JsonSchema {
  cached ??= scenarioJsonSchema() as JsonSchema;
  return cached;
}

/** The object among the schemas that may hold somewhere: a union's branch picked by its constants (a deployment's `app`). */
const objectOf = (schemas: readonly JsonSchema[]): JsonSchema | undefined => schemas.find((s) => s.type === 'object' && s.properties);

/** How a scalar is typed in, or null when the schema is not a single value (a list, a map). */
function inputOf(schema: JsonSchema): Omit<Field, 'key' | 'path' | 'required' | 'value'> | null {
  const fallback = isScalarValue(schema.default) ? { default: schema.default } : {};
  const range: Pick<Field, 'min' | 'max' | 'above'> = {};
  for (const [key, into] of [
    ['minimum', 'min'],
    ['maximum', 'max'],
    ['exclusiveMinimum', 'above'],
  ] as const) {
    const limit = bound(schema[key]);
    if (limit !== undefined) range[into] = limit;
  }
  if (schema.enum?.every((o) => typeof o === 'string')) return { input: 'choice', options: schema.enum as string[], ...fallback };
  const type = schema.type;
  if (type === 'boolean') return { input: 'boolean', ...fallback };
  if (type === 'integer' || type === 'number') return { input: 'number', integer: type === 'integer', ...range, ...fallback };
  if (type === 'string') return { input: 'text', ...fallback };
  if (schema.anyOf?.every((a) => ['integer', 'number', 'string'].includes(String(a.type)))) return { input: 'text', numeric: true, ...fallback };
  return null;
}

/** The key that tells a union's objects apart (a deployment's `app`), as a choice among every object's value of it. */
function choiceOfConstant(alternatives: readonly JsonSchema[], key: string): Omit<Field, 'key' | 'path' | 'required' | 'value'> {
  const options = alternatives.flatMap((o) => {
    const value = o.properties?.[key]?.const;
    return typeof value === 'string' ? [value] : [];
  });
  return { input: 'choice', options };
}

/**
 * The single values the item at `path` holds (those of maps directly inside it too, like a deployment's autoscale),
 * typed from the scenario's JSON Schema, with what the text says of each; and the keys that only the text can edit.
 * Throws an Error naming the path when the schema has nothing there.
 */
export function fieldsAt(text: string, path: YamlPath): { fields: Field[]; inText: string[] } {
  const read = readYaml(withoutBom(text));
  if (!read.ok) throw new Error(read.error);
  const { doc } = read;
  const root = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (!objectOf(schemasAt(rootSchema(), path, root))) throw new Error(`${formatPath(path)}: the scenario format has nothing there to edit`);
  const fields: Field[] = [];
  const inText: string[] = [];
  const walk = (at: YamlPath, prefix: string, depth: number): void => {
    const s = objectOf(schemasAt(rootSchema(), at, root))!;
    for (const [key, child] of Object.entries(s.properties ?? {})) {
      if (at.length === 0 && key === 'version') continue;
      const name = prefix + key;
      // Every alternative the union there has, whatever the text says, to offer them all.
      const input = 'const' in child ? choiceOfConstant(schemasAt(rootSchema(), at, undefined), key) : inputOf(child);
      if (input) {
        const node = doc.getIn([...at, key], true);
        const value = isScalar(node) && isScalarValue(node.value) ? node.value : undefined;
        fields.push({ key: name, path: [...at, key], required: s.required?.includes(key) ?? false, ...input, ...(value !== undefined && { value }) });
      } else if (depth === 0 && at.length > 0 && objectOf(schemasAt(rootSchema(), [...at, key], root))) {
        walk([...at, key], `${name}.`, depth + 1);
      } else {
        inText.push(name);
      }
    }
  };
  walk(path, '', 0);
  return { fields, inText };
}
