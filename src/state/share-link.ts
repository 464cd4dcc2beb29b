import { compressToEncodedURIComponent } from 'lz-string';
import type { TimedFault } from '../worker/protocol';

// Model choice: links past this length get cut by some browsers, chat tools and wiki editors.
export const MAX_LINK_CHARS = 8000;

/** Everything that makes a run: the scenario, seed, fixes, the faults a person applied, and where they were. */
export interface SharedRun {
  /** A shipped scenario's file name, or the scenario itself when it was opened from disk. */
  scenario: { file: string } | { name: string; text: string };
  seed: number;
  fixes: readonly string[];
  faults: readonly TimedFault[];
  /** Simulated time, µs. */
  t: number;
}

/** The query string that replays a run to the same moment and digest (read back by parseUrlParams). */
export function shareQuery(run: SharedRun): string {
  const q = new URLSearchParams();
  if ('file' in run.scenario) q.set('scenario', run.scenario.file);
  else {
    q.set('name', run.scenario.name);
    q.set('src', compressToEncodedURIComponent(run.scenario.text));
  }
  q.set('seed', String(run.seed));
  for (const fix of run.fixes) q.append('fix', fix);
  if (run.faults.length > 0) q.set('faults', compressToEncodedURIComponent(JSON.stringify(run.faults)));
  q.set('t', String(run.t / 1e6));
  return q.toString();
}
