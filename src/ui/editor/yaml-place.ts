import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import type { PathSegment } from '../../sim';

/** What the cursor is on, for completion: a key of the mapping at `path`, or the value at `path`. */
export interface CursorPlace {
  kind: 'key' | 'value';
  path: PathSegment[];
  /** The word being completed, [from, to) in the text; empty at a place where a word would start. */
  from: number;
  to: number;
  /** A key that a colon already follows (only the name is to be written), or one that still needs its `: `. */
  colonFollows: boolean;
  /** The mapping the key is in, or whose key's value it is, as read with the cursor's word left out; {} when none. */
  mapping: Record<string, unknown>;
  /** The whole document read the same way, so a union along the path can be told by the values above the cursor. */
  root: unknown;
}

// Stands for the word at the cursor so the text around it parses as it will once the word is written.
const MARK = 'cursor\u2063mark';
/** A character of a key or plain value that completion writes. */
export const WORD = /[\w.-]/;
const BLOCK_KEY = /^\s*(?:-\s+)*$/;
const BLOCK_VALUE = /^\s*(?:-\s+)*(?:"[^"]*"|'[^']*'|[^\s#'"{[][^#]*?)\s*:\s+$/;
const FLOW = /[{[,]\s*$/;

/**
 * Where the cursor at `offset` is in the YAML `text`, for completing keys and values; null in a comment, a quoted
 * string, after a value, or anywhere else a key or a plain value cannot be typed. The word at the cursor is replaced by
 * a mark and the text parsed again, so the mark's place in the parsed document is the path, whatever the indentation,
 * flow brackets or list dashes around it say.
 */
export function placeAt(text: string, offset: number): CursorPlace | null {
  let from = offset;
  while (from > 0 && WORD.test(text[from - 1]!)) from--;
  let to = offset;
  while (to < text.length && WORD.test(text[to]!)) to++;
  const lineStart = text.lastIndexOf('\n', from - 1) + 1;
  const before = text.slice(lineStart, from);
  const colonFollows = /^[ \t]*:/.test(text.slice(to));
  let probe: string;
  if (BLOCK_KEY.test(before)) probe = MARK + (colonFollows ? '' : ':');
  else if (BLOCK_VALUE.test(before) || FLOW.test(before)) probe = MARK;
  else return null;
  const doc = parseDocument(text.slice(0, from) + probe + text.slice(to), { prettyErrors: false });
  const found = findMark(doc.contents, []);
  if (!found) return null;
  let root: unknown = {};
  try {
    root = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch {
    // An alias past the budget: the path still holds, only the values that tell unions apart are missing.
  }
  const mapping = asRecord(valueAt(root, found.kind === 'key' ? found.path : found.path.slice(0, -1)));
  for (const [key, value] of Object.entries(mapping)) if (key === MARK || value === MARK) delete mapping[key];
  return { kind: found.kind, path: found.path, from, to, colonFollows, mapping, root };
}

function findMark(node: unknown, path: PathSegment[]): { kind: 'key' | 'value'; path: PathSegment[] } | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (isScalar(pair.key) && pair.key.value === MARK) return { kind: 'key', path };
      const key = isScalar(pair.key) ? pair.key.value : undefined;
      if (typeof key !== 'string' && typeof key !== 'number') continue;
      if (isScalar(pair.value) && pair.value.value === MARK) return { kind: 'value', path: [...path, key] };
      const inside = findMark(pair.value, [...path, key]);
      if (inside) return inside;
    }
  } else if (isSeq(node)) {
    for (const [i, item] of node.items.entries()) {
      if (isScalar(item) && item.value === MARK) return { kind: 'value', path: [...path, i] };
      const inside = findMark(item as Node, [...path, i]);
      if (inside) return inside;
    }
  }
  return undefined;
}

function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let value = root;
  for (const segment of path) value = typeof value === 'object' && value !== null && Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[String(segment)] : undefined;
  return value;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...(value as Record<string, unknown>) } : {};
}
