import { faultCatalog, FAULT_IDS, loadScenario, type LoadResult } from '../sim';
import { parseTimelineAdditions, timelineSets } from './timeline-additions';

/**
 * Loads a scenario text as the app does (seed, fixes, the catalog's checks) with `timeline` added after the timeline
 * the scenario ends up with, through the loader's overrides as `--fault` adds them; `label` names the list in errors.
 */
export function loadWithAdditions(text: string, fileName: string, options: { seed?: number; fixes?: string[]; timeline?: unknown }, label: string): LoadResult {
  const base = { seed: options.seed, fixes: options.fixes, faultIds: FAULT_IDS, faults: faultCatalog() };
  const loaded = loadScenario(text, fileName, base);
  if (!loaded.ok || options.timeline === undefined) return loaded;
  const additions = parseTimelineAdditions(options.timeline, label);
  return loadScenario(text, fileName, { ...base, sets: timelineSets(additions, loaded.scenario.timeline.length) });
}
