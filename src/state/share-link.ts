// The default export: Node's ESM loader finds no named exports in lz-string's CommonJS file (the CLI builds links too).
import lz from 'lz-string';
import type { CompareLink } from './url-params';
import type { Speed, TimedFault, TimelineAddition } from '../worker/protocol';
import { DEFAULT_SPEED } from './speed';

// Model choice: links past this length get cut by some browsers, chat tools and wiki editors.
export const MAX_LINK_CHARS = 8000;

/** Everything that makes a run: the scenario, seed, fixes, the faults a person applied, and where they were. */
export interface SharedRun {
  /** A shipped scenario's file name, or the scenario itself when it was opened from disk. */
  scenario: { file: string } | { name: string; text: string };
  seed: number;
  fixes: readonly string[];
  faults: readonly TimedFault[];
  /** `path=value` overrides the run was loaded with after its fixes (a sweep variant's risky setting); none when absent. */
  sets?: readonly string[];
  /** Faults added after the scenario's own timeline when it was loaded (a sweep's variant); none when absent. */
  timeline?: readonly TimelineAddition[];
  /** Simulated time, µs. */
  t: number;
  /** What the sender was looking at: the inspected entity, the timeline's zoomed range (seconds) and the speed it played at. */
  view?: { selected?: string; zoom?: readonly [number, number]; speed?: Speed; compare?: CompareLink };
}

let packed: { text: string; value: string } | undefined;

/** The scenario's text compressed for `src=`, kept for the next call: a sweep's rows all carry the same scenario. */
function packedScenario(text: string): string {
  if (packed?.text !== text) packed = { text, value: lz.compressToEncodedURIComponent(text) };
  return packed.value;
}

/** The query string that replays a run to the same moment and digest (read back by parseUrlParams). */
export function shareQuery(run: SharedRun): string {
  const q = new URLSearchParams();
  if ('file' in run.scenario) q.set('scenario', run.scenario.file);
  else {
    q.set('name', run.scenario.name);
    q.set('src', packedScenario(run.scenario.text));
  }
  q.set('seed', String(run.seed));
  for (const fix of run.fixes) q.append('fix', fix);
  for (const set of run.sets ?? []) q.append('set', set);
  if (run.faults.length > 0) q.set('faults', lz.compressToEncodedURIComponent(JSON.stringify(run.faults)));
  if (run.timeline !== undefined && run.timeline.length > 0) q.set('timeline', lz.compressToEncodedURIComponent(JSON.stringify(run.timeline)));
  q.set('t', String(run.t / 1e6));
  // The default speed is what a link without one plays at.
  if (run.view?.speed !== undefined && run.view.speed !== DEFAULT_SPEED) q.set('speed', String(run.view.speed));
  if (run.view?.selected !== undefined) q.set('select', run.view.selected);
  if (run.view?.zoom) q.set('zoom', run.view.zoom.join(','));
  const compare = run.view?.compare;
  if (compare) {
    if ('fault' in compare) q.set('bfault', lz.compressToEncodedURIComponent(JSON.stringify(compare.fault)));
    else q.set('compare', compare.fix);
    if (compare.branchS !== undefined) q.set('branch', String(compare.branchS));
  }
  return q.toString();
}

/** How an embedded run starts: at a chapter of the story (1-based) or at the shared moment, playing or not. */
export interface EmbedStart {
  chapter?: number;
  autoplay: boolean;
}

// Smallest iframe the embed layout is designed for; below it the controls no longer fit on one line.
export const EMBED_MIN = { width: 600, height: 400 } as const;

/** The query string of the embed view of a run: the shared run, minus the moment when it starts at a chapter. */
export function embedQuery(run: SharedRun, start: EmbedStart): string {
  const q = new URLSearchParams(shareQuery(run));
  if (start.chapter !== undefined) {
    q.delete('t');
    q.set('chapter', String(start.chapter));
  }
  if (start.autoplay) q.set('autoplay', '1');
  q.set('embed', '1');
  return q.toString();
}

const escapeAttribute = (text: string): string => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

/** The HTML a wiki page needs to show the run: a sized iframe with a title for screen readers. */
export function iframeSnippet(src: string, size: { width: number; height: number }, title: string): string {
  return `<iframe src="${escapeAttribute(src)}" width="${size.width}" height="${size.height}" title="${escapeAttribute(title)}" loading="lazy" allow="fullscreen" style="border:0"></iframe>`;
}

/** A problem with an iframe size typed into the Embed dialog, naming the field, or null when both fit. */
export function embedSizeProblem(width: string, height: string): string | null {
  for (const [field, text, min] of [
    ['width', width, EMBED_MIN.width],
    ['height', height, EMBED_MIN.height],
  ] as const) {
    const n = Number(text);
    if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n)) return `${field}: expected a whole number of pixels, got "${text}"`;
    if (n < min) return `${field}: at least ${min} pixels, so the controls fit (got ${n})`;
    if (n > 4000) return `${field}: at most 4000 pixels (got ${n})`;
  }
  return null;
}
