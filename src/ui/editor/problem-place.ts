import { pathLocator } from '../../sim';
import { problemLine, problemPath } from '../../state/editor';

/** The offset in `text` of the start of 1-based `line`, `column`, kept inside the text and that line. */
function lineOffset(text: string, line: number, column: number): number {
  let start = 0;
  for (let n = 1; n < line; n++) {
    const end = text.indexOf('\n', start);
    if (end < 0) return text.length;
    start = end + 1;
  }
  const end = text.indexOf('\n', start);
  // The loader reads the text without a byte-order mark, so its first line's columns start one later.
  const shift = line === 1 && text.startsWith('\uFEFF') ? 1 : 0;
  return Math.min(start + Math.max(0, column - 1) + shift, end < 0 ? text.length : end);
}

/**
 * Where each of the loader's problems is in `text`: the line and column a syntax error names, otherwise the key of the
 * path it starts with (the deepest part of it the text has); the whole file's problems sit at its start.
 */
export function problemOffsets(text: string, problems: readonly string[]): number[] {
  let locate: ReturnType<typeof pathLocator> | undefined;
  return problems.map((problem) => {
    const at = problemLine(problem);
    if (at) return lineOffset(text, at.line, at.column);
    locate ??= pathLocator(text);
    return locate(problemPath(problem)).offset;
  });
}
