import { Composer, isMap, isScalar, isSeq, Lexer, LineCounter, Parser, YAMLParseError, type CST, type Document } from 'yaml';
import { MAX_NESTING, sizeProblem } from './limits';
import { formatPath, type PathSegment } from './path';

export type ParsedText = { ok: true; value: unknown } | { ok: false; errors: string[] };

/** The text without the byte-order mark some editors on Windows put first. */
export const withoutBom = (text: string): string => (text.startsWith('\uFEFF') ? text.slice(1) : text);

/** Reads scenario text as JSON (`.json`) or YAML (`.yaml`, `.yml`), sniffing other names; never throws. */
export function parseScenarioText(text: string, fileName: string): ParsedText {
  const source = withoutBom(text);
  const size = sizeProblem(source);
  if (size !== undefined) return { ok: false, errors: [size] };
  if (source.trim() === '') return { ok: false, errors: ['(root): the file is empty'] };
  const parsed = parseByName(source, fileName);
  if (!parsed.ok) return parsed;
  const proto = protoKeys(parsed.value, [], []);
  return proto.length > 0 ? { ok: false, errors: proto } : parsed;
}

function parseByName(source: string, fileName: string): ParsedText {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.json')) return parseJson(source);
  if (/\.ya?ml$/.test(lower)) return parseYaml(source);
  // Unknown name (pasted text, a URL): JSON when it parses as JSON, otherwise YAML, whose errors carry positions.
  const asJson = parseJson(source);
  return asJson.ok ? asJson : parseYaml(source);
}

/**
 * Keys named `__proto__`, which no field or name of a scenario may be: the schema's records leave such a key out before
 * its name is checked, so the entry would be ignored without a word (docs/limits.md#names).
 */
function protoKeys(value: unknown, path: PathSegment[], found: string[]): string[] {
  if (Array.isArray(value)) value.forEach((item, i) => protoKeys(item, [...path, i], found));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') found.push(`${formatPath([...path, key])}: "__proto__" cannot be a key or a name`);
      else protoKeys(item, [...path, key], found);
    }
  }
  return found;
}

export type ReadYaml = { ok: true; doc: Document.Parsed; lines: LineCounter } | { ok: false; error: string };

/**
 * Parses YAML text (without its byte-order mark) as everything that reads scenario text should: refused when longer
 * than a scenario may be or nested too deep to compose, and with duplicate keys among `doc.errors` as the library
 * words them, found with one set per mapping (the library's own check compares every key with every other).
 */
export function readYaml(source: string): ReadYaml {
  const size = sizeProblem(source);
  if (size !== undefined) return { ok: false, error: size };
  const lines = new LineCounter();
  const parser = new Parser(lines.addNewLine);
  const tokens: CST.Token[] = [];
  // Fed one lexeme at a time (as Parser.parse does) so that nesting too deep stops the parse where it starts.
  lines.addNewLine(0);
  for (const lexeme of new Lexer().lex(source)) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    const deep = tooDeep(parser.stack);
    if (deep !== undefined) {
      const { line, col } = lines.linePos(deep);
      return { ok: false, error: `(root): nesting deeper than ${MAX_NESTING} levels at line ${line}, column ${col}` };
    }
  }
  for (const token of parser.end()) tokens.push(token);
  let doc: Document.Parsed | undefined;
  for (const next of new Composer({ uniqueKeys: false }).compose(tokens, true, source.length)) {
    if (doc === undefined) doc = next;
    else {
      doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', 'Source contains multiple documents'));
      break;
    }
  }
  // compose(…, forceDoc) yields at least one document, even for empty text.
  const parsed = doc!;
  for (const error of duplicateKeys(parsed)) parsed.errors.push(error);
  parsed.errors.sort((a, b) => a.pos[0] - b.pos[0]);
  return { ok: true, doc: parsed, lines };
}

/** The offset of the innermost open collection when more than MAX_NESTING are open on the parser's stack. */
function tooDeep(stack: readonly CST.Token[]): number | undefined {
  if (stack.length <= MAX_NESTING) return undefined;
  const open = stack.filter((token) => token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection');
  return open.length > MAX_NESTING ? open[open.length - 1]!.offset : undefined;
}

/** Each scalar key that repeats one before it in its mapping. */
function duplicateKeys(doc: Document.Parsed): YAMLParseError[] {
  const errors: YAMLParseError[] = [];
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const { key, value } of node.items) {
        if (isScalar(key) && !Number.isNaN(key.value)) {
          const at = key.range?.[0] ?? 0;
          if (seen.has(key.value)) errors.push(new YAMLParseError([at, at + 1], 'DUPLICATE_KEY', 'Map keys must be unique'));
          seen.add(key.value);
        } else stack.push(key);
        stack.push(value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    }
  }
  return errors;
}

function parseYaml(source: string): ParsedText {
  const read = readYaml(source);
  if (!read.ok) return { ok: false, errors: [read.error] };
  const { doc, lines } = read;
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((error) => {
        const { line, col } = lines.linePos(error.pos[0]);
        return `(root): YAML syntax error at line ${line}, column ${col}: ${firstLine(error.message)}`;
      }),
    };
  }
  try {
    // A small alias budget keeps a hostile file from expanding into gigabytes.
    return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) };
  } catch (error) {
    return { ok: false, errors: [`(root): YAML error: ${firstLine((error as Error).message)}`] };
  }
}

function parseJson(source: string): ParsedText {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    return { ok: false, errors: [`(root): invalid JSON${jsonPosition(source, error as Error)}: ${firstLine((error as Error).message)}`] };
  }
  // JSON.parse takes any depth, but the checks after it and anything that copies or prints the value recurse.
  if (nestedTooDeep(value)) return { ok: false, errors: [`(root): nesting deeper than ${MAX_NESTING} levels`] };
  return { ok: true, value };
}

/** True when objects and arrays in `value` nest deeper than MAX_NESTING, walked without recursion. */
function nestedTooDeep(value: unknown): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth >= MAX_NESTING) return true;
    for (const child of Object.values(next.value)) stack.push({ value: child, depth: next.depth + 1 });
  }
  return false;
}

/** ` at line L, column C` when the engine's message gives an offset; JSON.parse messages differ between engines. */
function jsonPosition(source: string, error: Error): string {
  const match = /position (\d+)/.exec(error.message);
  if (!match) return '';
  const offset = Number(match[1]);
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const col = offset - before.lastIndexOf('\n');
  return ` at line ${line}, column ${col}`;
}

function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line || 'unreadable';
}
