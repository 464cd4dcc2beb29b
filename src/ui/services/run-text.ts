import { parsePath } from '../../sim';
import type { TimedFault, TimelineAddition } from '../../worker/protocol';

/** What a run adds to its scenario's text: another seed, overrides, faults added to the timeline, faults applied by hand. */
export interface RunAdditions {
  seed?: number;
  sets?: readonly string[];
  timeline?: readonly TimelineAddition[];
  faults?: readonly TimedFault[];
}

/**
 * The scenario's text with what the run added written in: the seed, each override set at its path, the faults it added
 * to its timeline and those applied by hand, at their times, after the scenario's own entries, each with a note saying
 * where it came from. Fixes still apply before overrides when the text loads, which a fix setting the same path reverses.
 * The YAML library loads lazily: only this needs it in the page.
 */
export async function textWithRun(text: string, run: RunAdditions, origin: string): Promise<string> {
  const { parse, parseDocument } = await import('yaml');
  const doc = parseDocument(text);
  if (run.seed !== undefined) doc.set('seed', run.seed);
  for (const set of run.sets ?? []) {
    const at = set.indexOf('=');
    doc.setIn(parsePath(set.slice(0, at)), parse(set.slice(at + 1)));
  }
  for (const { at, fault, target, params } of run.timeline ?? []) doc.addIn(['timeline'], { at, fault, target, params: params ?? {}, note: `added to the timeline in ${origin}` });
  for (const { at, fault } of run.faults ?? []) {
    doc.addIn(['timeline'], { at: at / 1e6, fault: fault.fault, target: fault.target, params: fault.params ?? {}, note: `applied by hand in ${origin}` });
  }
  return doc.toString();
}
