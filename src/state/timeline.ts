import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { ChartSpec } from '../worker/protocol';

/** What the timeline shows: the zoomed range, the crosshair, and charts the user added (kept for the session). */
export interface TimelineState {
  /** Zoomed range in simulated seconds, or null for the whole run. */
  zoom: readonly [number, number] | null;
  /** Crosshair time in simulated seconds, or null. */
  cursor: number | null;
  /** Charts the user added, by scenario id. */
  added: Record<string, ChartSpec[]>;
}

export const timelineStore = createStore<TimelineState>(() => ({ zoom: null, cursor: null, added: {} }));

export function useTimeline<T>(selector: (s: TimelineState) => T): T {
  return useStore(timelineStore, selector);
}

export function setZoom(zoom: readonly [number, number] | null): void {
  timelineStore.setState({ zoom });
}

export function setCursor(cursor: number | null): void {
  if (timelineStore.getState().cursor !== cursor) timelineStore.setState({ cursor });
}

export function addChart(scenarioId: string, spec: ChartSpec): void {
  const { added } = timelineStore.getState();
  timelineStore.setState({ added: { ...added, [scenarioId]: [...(added[scenarioId] ?? []), spec] } });
}

export function removeChart(scenarioId: string, index: number): void {
  const { added } = timelineStore.getState();
  const list = (added[scenarioId] ?? []).filter((_, i) => i !== index);
  timelineStore.setState({ added: { ...added, [scenarioId]: list } });
}
