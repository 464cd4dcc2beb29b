/** Edit distance between two strings (insertions, deletions, substitutions each cost 1). */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let previous = new Array<number>(b.length + 1);
  let current = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      const deletion = (previous[j] ?? 0) + 1;
      const insertion = (current[j - 1] ?? 0) + 1;
      current[j] = Math.min(substitution, deletion, insertion);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length] ?? 0;
}

/**
 * The candidate closest to `input`, ignoring case, or undefined when none is close enough.
 * Ties go to the earliest candidate so the answer never depends on anything but the inputs.
 */
export function suggest(input: string, candidates: readonly string[]): string | undefined {
  const needle = input.toLowerCase();
  // Allow roughly one typo per three characters; very short names need an exact case-insensitive match or one edit.
  const limit = Math.max(1, Math.floor(needle.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === input) continue;
    const distance = levenshtein(needle, candidate.toLowerCase());
    // A candidate that shares nothing with the input (every character replaced) is a guess, not a correction.
    const related = distance < Math.max(needle.length, candidate.length);
    if (related && distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** ` (did you mean "x"?)` when a close candidate exists, otherwise the empty string. */
export function didYouMean(input: string, candidates: readonly string[]): string {
  const match = suggest(input, candidates);
  return match === undefined ? '' : ` (did you mean ${JSON.stringify(match)}?)`;
}
