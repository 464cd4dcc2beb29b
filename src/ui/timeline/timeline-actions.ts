import { frameStore } from '../../state/frame-store';
import { setCursor, setZoom, timelineStore } from '../../state/timeline';
import { seek } from '../services/sim-client';
import type { TimelineHandlers } from './timeline-chart';
import { toSeekUs } from './time-scale';

/** What the charts' hover, brush, click and double-click do: crosshair, zoom, jump, whole run. */
export const handlers: TimelineHandlers = {
  hover: (t) => setCursor(t),
  zoom: (domain) => setZoom(domain),
  jump: (t) => {
    setCursor(t);
    void seek(toSeekUs(t, frameStore.getState().durationUs / 1e6));
  },
  reset: () => setZoom(null),
};

/** Jumps the run to the crosshair's time; the keyboard's way to do what a click on a chart does. */
export function jumpToCursor(): void {
  const { cursor } = timelineStore.getState();
  if (cursor !== null) handlers.jump(cursor);
}
