import { appStore } from '../../state/app-store';
import { compareRuns, compareStore, describeB, type CompareState } from '../../state/compare';
import { frameStore } from '../../state/frame-store';
import { timelineStore } from '../../state/timeline';
import type { LogEvent } from '../../sim';
import type { Chapter } from '../../worker/protocol';
import type { Marker, TimelineView } from './timeline-chart';
import { createPacer } from '../services/pacer';
import { viewDomain, type Domain } from './time-scale';
import { formatClock } from '../components/format';

/** The view every timeline chart draws, built from the stores; parts that did not change keep their identity. */

let lastDomain: Domain = [0, 0];
let lastMarkers: { faults: LogEvent[]; chapters: readonly Chapter[] | undefined; branch: string; markers: Marker[] } = {
  faults: [],
  chapters: undefined,
  branch: '',
  markers: [],
};

export function faultLabel(e: LogEvent): string {
  return `${e.message} · ${e.entity}`;
}

/** Where a compare's run B parts from A, while one runs. */
function branchMarker(compare: CompareState): Marker | null {
  if (compare.branchAt === null || !compareRuns(compare)) return null;
  return { t: compare.branchAt / 1e6, kind: 'branch', label: `where run B parts from A (${describeB(compare, formatClock) ?? 'B'})` };
}

function markersOf(faults: LogEvent[], chapters: readonly Chapter[] | undefined, branch: Marker | null): Marker[] {
  const branchKey = branch ? `${branch.t}|${branch.label}` : '';
  if (lastMarkers.faults === faults && lastMarkers.chapters === chapters && lastMarkers.branch === branchKey) return lastMarkers.markers;
  const markers: Marker[] = [
    ...(chapters ?? []).map((c, i) => ({ t: c.at, kind: 'chapter' as const, label: `Chapter ${i + 1}: ${c.title}` })),
    ...faults.map((e) => ({ t: e.t / 1e6, kind: 'fault' as const, label: faultLabel(e) })),
    ...(branch ? [branch] : []),
  ];
  lastMarkers = { faults, chapters, branch: branchKey, markers };
  return markers;
}

export function currentDomain(): Domain {
  const frame = frameStore.getState();
  const { zoom } = timelineStore.getState();
  const [d0, d1] = viewDomain(frame.durationUs / 1e6, frame.series.end() * frame.series.stepSeconds, zoom);
  if (d0 !== lastDomain[0] || d1 !== lastDomain[1]) lastDomain = [d0, d1];
  return lastDomain;
}

export function currentView(): TimelineView {
  const frame = frameStore.getState();
  const compare = compareStore.getState();
  const showB = compare.status === 'following' || (compare.status === 'starting' && compare.seriesVersion > 0);
  return {
    a: frame.series,
    b: showB ? compare.series : null,
    dataVersion: `${frame.run}:${frame.seriesVersion}:${showB ? `${compare.run}:${compare.seriesVersion}` : '-'}`,
    domain: currentDomain(),
    durationS: frame.durationUs / 1e6,
    cursor: timelineStore.getState().cursor,
    markers: markersOf(frame.faultEvents, appStore.getState().summary?.chapters, branchMarker(compare)),
  };
}

/** Samples arrive every frame at max speed: the charts follow them at most ten times a second, less if drawing is slow. */
const DATA_PACE = { minMs: 100, costFactor: 5 };

const views = new Set<(view: TimelineView) => void>();
let stop: (() => void) | undefined;

function drawAll(): void {
  const view = currentView();
  for (const draw of views) draw(view);
}

/** One pacer for every chart, so they all draw the same view in the same animation frame. */
function start(): () => void {
  const pacer = createPacer(drawAll, DATA_PACE);
  const unsubscribes = [
    frameStore.subscribe((s, prev) => {
      if (s.run !== prev.run || s.durationUs !== prev.durationUs) pacer.now();
      else if (s.seriesVersion !== prev.seriesVersion || s.faultEvents !== prev.faultEvents) pacer.request();
    }),
    compareStore.subscribe((s, prev) => {
      if (s.seriesVersion !== prev.seriesVersion && s.status === prev.status && s.run === prev.run) pacer.request();
      else pacer.now();
    }),
    timelineStore.subscribe(pacer.now),
    appStore.subscribe((s, prev) => {
      if (s.summary !== prev.summary) pacer.now();
    }),
  ];
  return () => {
    pacer.cancel();
    unsubscribes.forEach((u) => u());
  };
}

/**
 * Calls `draw` with the view now, then after any store the timeline reads has changed: on the next animation frame for
 * the user's changes (crosshair, zoom, a new run), paced while playing for the run's samples.
 */
export function subscribeView(draw: (view: TimelineView) => void): () => void {
  views.add(draw);
  stop ??= start();
  draw(currentView());
  return () => {
    views.delete(draw);
    if (views.size > 0) return;
    stop?.();
    stop = undefined;
  };
}
