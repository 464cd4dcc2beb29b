import { echo, oneLine } from './limits';

/** A location inside a scenario document: object keys and array indexes. */
export type PathSegment = string | number;

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** The key that reaches an object's prototype when assigned; the loader refuses it anywhere in a scenario too. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__']);

/**
 * `topology.nodes[0].podCidr`; keys that are not plain identifiers are quoted (`set["params.tcp.synRetries"]`).
 * The empty path is the whole document, written `(root)`.
 */
export function formatPath(path: readonly PathSegment[]): string {
  if (path.length === 0) return '(root)';
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** True when the two paths name the same place (a record key "2" and an index 2 are the same place). */
export function samePath(a: readonly PathSegment[], b: readonly PathSegment[]): boolean {
  return a.length === b.length && isPrefix(a, b);
}

/** A string equal for two paths exactly when samePath holds, to find paths in a Map or Set. */
export function pathKey(path: readonly PathSegment[]): string {
  return JSON.stringify(path.map(String));
}

/** True when `prefix` is `path` or an ancestor of it. */
export function isPrefix(prefix: readonly PathSegment[], path: readonly PathSegment[]): boolean {
  if (prefix.length > path.length) return false;
  return prefix.every((segment, i) => String(segment) === String(path[i]));
}

export interface ScannedPath {
  path: PathSegment[];
  /** Index of the first character after the path. */
  end: number;
}

/**
 * Reads a path such as `a.b[2].c`, `a.b.2` or `fixes.x.set["params.tcp.synRetries"]` from the start of `text`,
 * stopping at the end or at the first `=` outside a quoted key. Throws an Error that says what is wrong.
 */
export function scanPath(text: string): ScannedPath {
  const path: PathSegment[] = [];
  let i = 0;
  let needSegment = true;
  while (i < text.length && text[i] !== '=') {
    const ch = text[i];
    if (ch === '[') {
      const close = readBracket(text, i);
      path.push(close.segment);
      i = close.end;
      needSegment = false;
    } else if (ch === '.') {
      if (needSegment) throw new Error(`empty key at character ${i + 1} of ${echo(text)}`);
      needSegment = true;
      i++;
    } else if (ch === ']') {
      throw new Error(`unexpected "]" at character ${i + 1} of ${echo(text)}`);
    } else {
      if (!needSegment) throw new Error(`expected "." or "[" at character ${i + 1} of ${echo(text)}`);
      let j = i;
      while (j < text.length && !'.[]='.includes(text[j] ?? '')) j++;
      const key = text.slice(i, j);
      path.push(/^\d+$/.test(key) ? Number(key) : key);
      i = j;
      needSegment = false;
    }
  }
  if (path.length === 0) throw new Error('missing path before "="');
  if (needSegment) throw new Error(`path ${echo(text.slice(0, i))} ends with "."`);
  for (const segment of path) {
    if (typeof segment === 'string' && RESERVED_KEYS.has(segment)) throw new Error(`${echo(segment)} is not a scenario key`);
  }
  return { path, end: i };
}

/** Parses a whole string as a path; throws when anything follows it. */
export function parsePath(text: string): PathSegment[] {
  const { path, end } = scanPath(text);
  if (end !== text.length) throw new Error(`unexpected "=" in path ${echo(text)}`);
  return path;
}

function readBracket(text: string, open: number): { segment: PathSegment; end: number } {
  const start = open + 1;
  if (text[start] === '"') {
    let j = start + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    if (j >= text.length) throw new Error(`unterminated quoted key in ${echo(text)}`);
    let key: unknown;
    try {
      key = JSON.parse(text.slice(start, j + 1));
    } catch {
      throw new Error(`bad quoted key ${oneLine(text.slice(start, j + 1))}`);
    }
    if (text[j + 1] !== ']') throw new Error(`expected "]" after quoted key in ${echo(text)}`);
    return { segment: String(key), end: j + 2 };
  }
  const close = text.indexOf(']', start);
  if (close < 0) throw new Error(`missing "]" in ${echo(text)}`);
  const inside = text.slice(start, close);
  if (!/^\d+$/.test(inside)) throw new Error(`${echo(`[${inside}]`)} is not an index; use [0], [1], … or ["key"]`);
  return { segment: Number(inside), end: close + 1 };
}
