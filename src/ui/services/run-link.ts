import { appStore } from '../../state/app-store';
import { frameStore } from '../../state/frame-store';
import { timelineStore } from '../../state/timeline';
import { compareRuns, compareStore } from '../../state/compare';
import type { SharedRun } from '../../state/share-link';
import type { CompareLink } from '../../state/url-params';
import { currentLoad } from './sim-client';

/**
 * The run as it stands (scenario, seed, fixes, overrides and faults added to its timeline at load, faults applied by hand, the moment, what is inspected, the timeline's
 * range and the speed), or null before a scenario is loaded.
 */
export function currentRun(): SharedRun | null {
  const load = currentLoad();
  const { selectedFile, seed, fixes } = appStore.getState();
  if (!load || seed === null) return null;
  const { t, faultRecord } = frameStore.getState();
  const scenario = selectedFile !== '' ? { file: selectedFile } : { name: load.fileName, text: load.text };
  const { selected, speed } = appStore.getState();
  const { zoom } = timelineStore.getState();
  const b = compareStore.getState();
  const { fix, fault, branchAt } = b;
  const running = compareRuns(b);
  let compare: CompareLink | undefined;
  if (running && fault && branchAt !== null) compare = { fault: fault.request, branchS: branchAt / 1e6 };
  else if (running && fix !== null) compare = { fix, ...(branchAt === null ? {} : { branchS: branchAt / 1e6 }) };
  const view = { ...(selected === null ? {} : { selected }), ...(zoom ? { zoom } : {}), speed, ...(compare ? { compare } : {}) };
  return { scenario, seed, fixes, faults: faultRecord, ...(load.sets ? { sets: load.sets } : {}), ...(load.timeline ? { timeline: load.timeline } : {}), t, view };
}

/** This page's address with another query string: links stay inside whatever folder the app is served from. */
export function appUrl(query: string): string {
  return `${window.location.origin}${window.location.pathname}?${query}`;
}
