import { parseDocument } from 'yaml';

// Past this many line pairs the line table costs more than keeping the layout is worth; the whole text is rewritten.
const MAX_TABLE = 4_000_000;

/**
 * For each line of `b`, the line of `a` it is matched to by a longest common subsequence of whole lines, or -1.
 * Null when the files are too large to compare.
 */
export function matchLines(a: readonly string[], b: readonly string[]): Int32Array | null {
  const match = new Int32Array(b.length).fill(-1);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) match[head] = head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) {
    match[b.length - 1 - tail] = a.length - 1 - tail;
    tail++;
  }
  const n = a.length - head - tail;
  const m = b.length - head - tail;
  if (n === 0 || m === 0) return match;
  if ((n + 1) * (m + 1) > MAX_TABLE) return null;
  // lengths[i * (m + 1) + j]: the longest common subsequence of a's middle from i and b's middle from j.
  const lengths = new Int32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i * (m + 1) + j] = a[head + i] === b[head + j] ? lengths[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(lengths[(i + 1) * (m + 1) + j]!, lengths[i * (m + 1) + j + 1]!);
    }
  }
  for (let i = 0, j = 0; i < n && j < m;) {
    if (a[head + i] === b[head + j]) match[head + j++] = head + i++;
    else if (lengths[(i + 1) * (m + 1) + j]! >= lengths[i * (m + 1) + j + 1]!) i++;
    else j++;
  }
  return match;
}

/** A line without the spaces YAML writers differ on: inside flow brackets and braces, after commas, at the end. */
const spacing = (line: string): string => line.replace(/\s*([[\]{},])\s*/g, '$1').trimEnd();

const sameContent = (a: string, b: string): boolean => {
  const read = (text: string) => {
    const doc = parseDocument(text);
    return doc.errors.length > 0 ? undefined : JSON.stringify(doc.toJS({ maxAliasCount: 100 }));
  };
  const left = read(a);
  return left !== undefined && left === read(b);
};

/**
 * Writes an edit into the text a person wrote, keeping everything the edit did not touch as it was.
 *
 * `base` is the original document written out unedited and `edited` the edited one written the same way; both
 * normalise the layout (flow padding, wrapped lines). Lines the original shares with `base` that the edit left alone
 * anchor the two together; between anchors the original's lines stay unless the edit changed something there, in which
 * case that stretch comes from `edited`. The result is checked to read as `edited` does, and is `edited` itself
 * otherwise.
 */
export function keepLayout(original: string, base: string, edited: string): string {
  if (base === edited) return original;
  const a = original.split('\n');
  const b = base.split('\n');
  const c = edited.split('\n');
  const fromOriginal = matchLines(a, b);
  const toEdited = matchLines(c, b);
  if (!fromOriginal || !toEdited) return edited;
  const out: string[] = [];
  let [i0, j0, k0] = [-1, -1, -1];
  const segment = (i1: number, j1: number, k1: number): void => {
    let untouched = k1 - k0 === j1 - j0;
    for (let j = j0 + 1; untouched && j < j1; j++) untouched = toEdited[j] === k0 + (j - j0);
    if (untouched) {
      out.push(...a.slice(i0 + 1, i1));
      return;
    }
    // Near an edit, a line the edit left alone still comes from the original when only its spacing was rewritten.
    const left = new Set<number>();
    for (let j = j0 + 1; j < j1; j++) if (toEdited[j]! > k0 && toEdited[j]! < k1) left.add(toEdited[j]!);
    let from = i0 + 1;
    for (let k = k0 + 1; k < k1; k++) {
      const line = c[k]!;
      const same = left.has(k) ? a.slice(from, i1).findIndex((o) => spacing(o) === spacing(line)) : -1;
      if (same < 0) out.push(line);
      else {
        out.push(a[from + same]!);
        from += same + 1;
      }
    }
  };
  for (let j = 0; j < b.length; j++) {
    const i = fromOriginal[j]!;
    const k = toEdited[j]!;
    // A line anchors only when it keeps the order of the anchors before it in all three texts.
    if (i <= i0 || k <= k0) continue;
    segment(i, j, k);
    out.push(a[i]!);
    [i0, j0, k0] = [i, j, k];
  }
  segment(a.length, b.length, c.length);
  const kept = out.join('\n');
  return sameContent(kept, edited) ? kept : edited;
}
