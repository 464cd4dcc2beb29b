import { faultCatalog, FAULT_IDS, loadScenario, type LoadResult } from '../sim';
import { parseSets, parseTimelineAdditions, timelineSets } from './timeline-additions';

/**
 * Loads a scenario text as the app does (seed, fixes, the catalog's checks), then `sets` (`path=value` overrides, as
 * `--set` gives them, a risky setting's among them), then `timeline` added after the timeline the scenario ends up with,
 * through the loader's overrides as `--fault` adds them; `label` names the lists in errors (`load.timeline[0].at`).
 */
export function loadWithAdditions(text: string, fileName: string, options: { seed?: number; fixes?: string[]; sets?: unknown; timeline?: unknown }, label: string): LoadResult {
  const sets = options.sets === undefined ? [] : parseSets(options.sets, `${label.replace(/timeline$/, '')}sets`);
  const base = { seed: options.seed, fixes: options.fixes, faultIds: FAULT_IDS, faults: faultCatalog(), sets };
  const loaded = loadScenario(text, fileName, base);
  if (!loaded.ok || options.timeline === undefined) return loaded;
  const additions = parseTimelineAdditions(options.timeline, label);
  return loadScenario(text, fileName, { ...base, sets: [...sets, ...timelineSets(additions, loaded.scenario.timeline.length)] });
}
