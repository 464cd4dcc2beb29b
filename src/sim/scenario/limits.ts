import { formatCount } from '../core/format';

/**
 * The longest scenario text the loader reads, in characters: 14 times the biggest shipped scenario (its-not-dns, 35 KB),
 * and over 30 times what the longest Share link the app writes (8,000 characters) carries at lz-string's 1.4 to 1.9 on
 * our scenarios. Text this long is still parsed and checked in well under a second; a link that unpacks to more is
 * refused by its length instead of parsed.
 */
export const MAX_SCENARIO_CHARS = 500_000;

/**
 * How deep collections may nest. The shipped scenarios nest six levels and the format's deepest place (a fix replacing
 * a deployment's params) under ten; the YAML composer recurses once per level and ran out of stack near 900 levels in
 * Node, so text nested that deep got "Maximum call stack size exceeded" instead of an answer.
 */
export const MAX_NESTING = 64;

/**
 * How much checking the fixes may cost, as fixes times characters of text: each fix is checked by validating the whole
 * scenario with it applied. its-not-dns (8 fixes, 35 KB) needs 280,000; 4 million is about 0.2 s of validation here.
 */
export const MAX_FIX_CHECK_CHARS = 4_000_000;

/**
 * How many candidates one load compares for "did you mean" suggestions in all: a few milliseconds of work, and far
 * more than a file with a screenful of typos among hundreds of names needs.
 */
export const MAX_SUGGESTION_COMPARISONS = 100_000;

/** How many problems one answer lists; the rest are counted. Enough for a screenful, and each one fixed shows the next. */
export const MAX_PROBLEMS = 50;

/** The longest problem message, path included. */
export const MAX_MESSAGE_CHARS = 400;

/** The longest part of a value a message repeats. */
export const MAX_ECHO_CHARS = 80;

/** `text` when it is at most `max` characters, otherwise its start, an ellipsis and the original length. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const suffix = `… (${formatCount(text.length)} characters)`;
  return text.slice(0, Math.max(0, max - suffix.length)) + suffix;
}

/** Control characters (a newline, an escape sequence) and line separators written as escapes: a message stays one line. */
function escapeControls(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A value as a message repeats it: quoted, on one line, and cut short with its length when it is long. */
export function echo(value: string): string {
  const head = value.length <= MAX_ECHO_CHARS ? value : `${value.slice(0, MAX_ECHO_CHARS)}…`;
  return `"${escapeControls(head.replace(/["\\]/g, '\\$&'))}"${value.length <= MAX_ECHO_CHARS ? '' : ` (${formatCount(value.length)} characters)`}`;
}

/** Text a message repeats unquoted (a flag, a fault spec, an error's first line): on one line, at most `max` characters. */
export function oneLine(text: string, max = MAX_ECHO_CHARS): string {
  return clip(escapeControls(text), max);
}

/**
 * At most MAX_PROBLEMS lines, each at most MAX_MESSAGE_CHARS: the first ones, then `and 7,990 more problems`.
 * A list already bounded comes back as it is.
 */
export function boundProblems(problems: readonly string[]): string[] {
  const shown = problems.length > MAX_PROBLEMS ? problems.slice(0, MAX_PROBLEMS - 1) : problems;
  const out = shown.map((problem) => clip(problem, MAX_MESSAGE_CHARS));
  const hidden = problems.length - shown.length;
  if (hidden > 0) out.push(`and ${formatCount(hidden)} more problems`);
  return out;
}

/** Why `fixes` fixes on text of `chars` characters are too many to check, or undefined when they are not. */
export function fixesProblem(fixes: number, chars: number): string | undefined {
  if (fixes * chars <= MAX_FIX_CHECK_CHARS) return undefined;
  const most = Math.max(1, Math.floor(MAX_FIX_CHECK_CHARS / chars));
  return `fixes: ${formatCount(fixes)} fixes, each checked against the whole scenario of ${formatCount(chars)} characters, are more than the loader checks; a scenario this long may have at most ${formatCount(most)}`;
}

/** Why text is too long to read, or undefined when it is not. */
export function sizeProblem(text: string): string | undefined {
  if (text.length <= MAX_SCENARIO_CHARS) return undefined;
  return `(root): the text is ${formatCount(text.length)} characters; a scenario may have at most ${formatCount(MAX_SCENARIO_CHARS)}`;
}
