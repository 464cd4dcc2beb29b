import { LineCounter, parseDocument } from 'yaml';

export type ParsedText = { ok: true; value: unknown } | { ok: false; errors: string[] };

/** The text without the byte-order mark some editors on Windows put first. */
export const withoutBom = (text: string): string => (text.startsWith('\uFEFF') ? text.slice(1) : text);

/** Reads scenario text as JSON (`.json`) or YAML (`.yaml`, `.yml`), sniffing other names; never throws. */
export function parseScenarioText(text: string, fileName: string): ParsedText {
  const source = withoutBom(text);
  if (source.trim() === '') return { ok: false, errors: ['(root): the file is empty'] };
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.json')) return parseJson(source);
  if (/\.ya?ml$/.test(lower)) return parseYaml(source);
  // Unknown name (pasted text, a URL): JSON when it parses as JSON, otherwise YAML, whose errors carry positions.
  const asJson = parseJson(source);
  return asJson.ok ? asJson : parseYaml(source);
}

function parseYaml(source: string): ParsedText {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
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
