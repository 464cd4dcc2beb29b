import { Composer, isMap, isScalar, isSeq, LineCounter, Parser, YAMLParseError, type CST, type Document } from 'yaml';
import { MAX_NESTING, sizeProblem } from './limits';

export type ParsedText = { ok: true; value: unknown } | { ok: false; errors: string[] };

/** The text without the byte-order mark some editors on Windows put first. */
export const withoutBom = (text: string): string => (text.startsWith('\uFEFF') ? text.slice(1) : text);

/** Reads scenario text as JSON (`.json`) or YAML (`.yaml`, `.yml`), sniffing other names; never throws. */
export function parseScenarioText(text: string, fileName: string): ParsedText {
  const source = withoutBom(text);
  const size = sizeProblem(source);
  if (size !== undefined) return { ok: false, errors: [size] };
  if (source.trim() === '') return { ok: false, errors: ['(root): the file is empty'] };
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.json')) return parseJson(source);
  if (/\.ya?ml$/.test(lower)) return parseYaml(source);
  // Unknown name (pasted text, a URL): JSON when it parses as JSON, otherwise YAML, whose errors carry positions.
  const asJson = parseJson(source);
  return asJson.ok ? asJson : parseYaml(source);
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
  const tokens = [...new Parser(lines.addNewLine).parse(source)];
  const deep = tooDeep(tokens);
  if (deep !== undefined) {
    const { line, col } = lines.linePos(deep);
    return { ok: false, error: `(root): nesting deeper than ${MAX_NESTING} levels at line ${line}, column ${col}` };
  }
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
  parsed.errors.push(...duplicateKeys(parsed));
  parsed.errors.sort((a, b) => a.pos[0] - b.pos[0]);
  return { ok: true, doc: parsed, lines };
}

/** The offset of the first collection nested deeper than MAX_NESTING, walked without recursion. */
function tooDeep(tokens: readonly CST.Token[]): number | undefined {
  const stack: { token: CST.Token; depth: number }[] = tokens.map((token) => ({ token, depth: 0 }));
  while (stack.length > 0) {
    const { token, depth } = stack.pop()!;
    if (token.type === 'document') {
      if (token.value) stack.push({ token: token.value, depth });
    } else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth >= MAX_NESTING) return token.offset;
      for (const item of token.items) {
        if (item.key) stack.push({ token: item.key, depth: depth + 1 });
        if (item.value) stack.push({ token: item.value, depth: depth + 1 });
      }
    }
  }
  return undefined;
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
          if (seen.has(key.value)) errors.push(new YAMLParseError([key.range[0], key.range[0] + 1], 'DUPLICATE_KEY', 'Map keys must be unique'));
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
  try {
    return { ok: true, value: JSON.parse(source) };
  } catch (error) {
    return { ok: false, errors: [`(root): invalid JSON${jsonPosition(source, error as Error)}: ${firstLine((error as Error).message)}`] };
  }
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
