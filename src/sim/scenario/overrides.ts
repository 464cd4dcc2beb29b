import { isCollection, isScalar, parseDocument } from 'yaml';
import { formatPath, RESERVED_KEYS, scanPath, type PathSegment } from './path';

export interface SetAssignment {
  path: PathSegment[];
  value: unknown;
}

/**
 * Parses a `--set` argument `a.b[2].c=value`. The value is read as a YAML scalar (`5`, `true`, `null`, `"text"`,
 * bare words are strings) or a flow collection (`[1, 2]`, `{a: 1}`). Throws an Error saying what is malformed.
 */
export function parseSet(arg: string): SetAssignment {
  const { path, end } = scanPath(arg);
  if (arg[end] !== '=') throw new Error('expected path=value');
  const text = arg.slice(end + 1);
  if (text.trim() === '') throw new Error('missing value after "=" (write "" for an empty string)');
  return { path, value: parseValue(text) };
}

function parseValue(text: string): unknown {
  const doc = parseDocument(text, { prettyErrors: false });
  const first = doc.errors[0];
  if (first) throw new Error(`cannot read value ${JSON.stringify(text)}: ${first.message}`);
  const contents = doc.contents;
  const flowCollection = isCollection(contents) && contents.flow === true;
  if (!isScalar(contents) && !flowCollection) {
    throw new Error(`value ${JSON.stringify(text)} must be a single value or a [..]/{..} collection; quote text that contains ": "`);
  }
  return doc.toJS({ maxAliasCount: 0 });
}

/**
 * Returns a copy of `obj` with `value` at `path`; the input is not modified and untouched branches are shared.
 * Missing intermediate places are created (an object, or a list when the next segment is an index), so a new
 * record entry can be written in one assignment. Throws when the path runs through a scalar or past a list's end.
 */
export function setPath(obj: unknown, path: readonly PathSegment[], value: unknown): unknown {
  return setFrom(obj, path, 0, value);
}

function setFrom(container: unknown, path: readonly PathSegment[], depth: number, value: unknown): unknown {
  const segment = path[depth];
  if (segment === undefined) return value;
  const here = path.slice(0, depth);
  const base = container ?? (typeof segment === 'number' ? [] : {});
  if (Array.isArray(base)) {
    if (typeof segment !== 'number') {
      throw new Error(`${formatPath(here)} is a list; address an item by index, like ${formatPath([...here, 0])}`);
    }
    if (segment > base.length) {
      throw new Error(`${formatPath(path.slice(0, depth + 1))} is past the end of ${formatPath(here)} (length ${base.length})`);
    }
    const copy = base.slice();
    copy[segment] = setFrom(base[segment], path, depth + 1, value);
    return copy;
  }
  if (typeof base === 'object') {
    const key = String(segment);
    if (RESERVED_KEYS.has(key)) throw new Error(`"${key}" is not a scenario key`);
    const record = base as Record<string, unknown>;
    const child = Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
    return { ...record, [key]: setFrom(child, path, depth + 1, value) };
  }
  throw new Error(`cannot set ${formatPath(path.slice(0, depth + 1))}: ${formatPath(here)} is a ${typeof base}, not an object`);
}
