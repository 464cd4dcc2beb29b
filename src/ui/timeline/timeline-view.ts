import { appStore } from '../../state/app-store';
import { compareStore } from '../../state/compare';
import { frameStore } from '../../state/frame-store';
import { timelineStore } from '../../state/timeline';
import type { LogEvent } from '../../sim/api';
import type { Chapter } from '../../worker/protocol';
import type { Marker, TimelineView } from './timeline-chart';
import { viewDomain, type Domain } from './time-scale';

/** The view every timeline chart draws, built from the stores; parts that did not change keep their identity. */

let lastDomain: Domain = [0, 0];
let lastMarkers: { faults: LogEvent[]; chapters: readonly Chapter[] | undefined; markers: Marker[] } = {
  faults: [],
  chapters: undefined,
  markers: [],
};

export function faultLabel(e: LogEvent): string {
  return `${e.message} · ${e.entity}`;
}

function markersOf(faults: LogEvent[], chapters: readonly Chapter[] | undefined): Marker[] {
  if (lastMarkers.faults === faults && lastMarkers.chapters === chapters) return lastMarkers.markers;
  const markers: Marker[] = [
    ...(chapters ?? []).map((c, i) => ({ t: c.at, kind: 'chapter' as const, label: `Chapter ${i + 1}: ${c.title}` })),
    ...faults.map((e) => ({ t: e.t / 1e6, kind: 'fault' as const, label: faultLabel(e) })),
  ];
  lastMarkers = { faults, chapters, markers };
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
    markers: markersOf(frame.faultEvents, appStore.getState().summary?.chapters),
  };
}

/** Calls `draw` once per animation frame after any store the timeline reads has changed. */
export function subscribeView(draw: (view: TimelineView) => void): () => void {
  let pending = 0;
  const schedule = (): void => {
    if (pending) return;
    pending = requestAnimationFrame(() => {
      pending = 0;
      draw(currentView());
    });
  };
  const unsubscribes = [
    frameStore.subscribe((s, prev) => {
      if (s.seriesVersion !== prev.seriesVersion || s.run !== prev.run || s.faultEvents !== prev.faultEvents || s.durationUs !== prev.durationUs) schedule();
    }),
    compareStore.subscribe(schedule),
    timelineStore.subscribe(schedule),
    appStore.subscribe((s, prev) => {
      if (s.summary !== prev.summary) schedule();
    }),
  ];
  draw(currentView());
  return () => {
    cancelAnimationFrame(pending);
    unsubscribes.forEach((u) => u());
  };
}
