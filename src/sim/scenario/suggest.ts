/**
 * Edit distance between two strings (insertions, deletions, substitutions each cost 1). With `max`, it stops as soon as
 * the distance must be larger and answers `max + 1`: a row whose smallest entry is past `max` only grows from there.
 */
export function levenshtein(a: string, b: string, max = Infinity): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  if (rows[0].length <= b.length) rows = [new Uint32Array(b.length + 1), new Uint32Array(b.length + 1)];
  let [previous, current] = rows;
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let smallest = i;
    const ch = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (ch === b.charCodeAt(j - 1) ? 0 : 1);
      const value = Math.min(substitution, previous[j]! + 1, current[j - 1]! + 1);
      current[j] = value;
      if (value < smallest) smallest = value;
    }
    if (smallest > max) return max + 1;
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}

// Two rows reused by every comparison: suggestions for thousands of names would otherwise allocate two arrays each.
let rows: [Uint32Array, Uint32Array] = [new Uint32Array(64), new Uint32Array(64)];

// Model choice: longer than any name or key the format has; comparing text this long costs its length squared.
const MAX_SUGGESTED_LENGTH = 256;

let comparisonsLeft = Infinity;

/**
 * Runs `work` with at most `comparisons` candidates compared for suggestions, all of them or none for each input: past
 * the budget, problems come without "did you mean". Thousands of unknown names against thousands of candidates would
 * otherwise cost their product, for suggestions on problems nobody is shown.
 */
export function withSuggestionBudget<T>(comparisons: number, work: () => T): T {
  const saved = comparisonsLeft;
  comparisonsLeft = comparisons;
  try {
    return work();
  } finally {
    comparisonsLeft = saved;
  }
}

/**
 * The candidate closest to `input`, ignoring case, or undefined when none is close enough.
 * Ties go to the earliest candidate so the answer never depends on anything but the inputs.
 */
export function suggest(input: string, candidates: readonly string[]): string | undefined {
  if (input.length > MAX_SUGGESTED_LENGTH || comparisonsLeft < candidates.length) return undefined;
  comparisonsLeft -= candidates.length;
  const needle = input.toLowerCase();
  // Allow roughly one typo per three characters; very short names need an exact case-insensitive match or one edit.
  const limit = Math.max(1, Math.floor(needle.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === input || candidate.length > MAX_SUGGESTED_LENGTH) continue;
    // Only a candidate nearer than the best so far can win: the cap keeps hostile input (thousands of names, a key of
    // a million characters) from costing a full comparison with every candidate.
    const distance = levenshtein(needle, candidate.toLowerCase(), Math.min(limit, bestDistance - 1));
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
