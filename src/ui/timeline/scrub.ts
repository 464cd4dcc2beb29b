import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import { endPreview, frameStore, showPreview } from '../../state/frame-store';
import { preview, seek } from '../services/sim-client';

/**
 * Scrubbing the time lane (issue 25, part 4): while the pointer drags (or the keys move) over it, the picture, gauges
 * and inspector show the run at that moment, from a copy of the nearest checkpoint that the worker runs on towards it;
 * the run itself stays where it is until the scrub ends with a jump there, or goes back to it.
 */

export interface ScrubState {
  /** The simulated µs asked for while a scrub is on, else null. */
  at: number | null;
  /** Why there is no preview (the run keeps no checkpoints), or null. */
  refused: string | null;
}

export const scrubStore = createStore<ScrubState>(() => ({ at: null, refused: null }));

export function useScrub<T>(selector: (s: ScrubState) => T): T {
  return useStore(scrubStore, selector);
}

let asking = false;

/** Asks for the preview of the time asked, one request at a time, and again while the copy is on its way or the time moved. */
async function ask(): Promise<void> {
  const at = scrubStore.getState().at;
  if (asking || at === null) return;
  asking = true;
  const reply = await preview(at);
  asking = false;
  const now = scrubStore.getState().at;
  if (now === null || !reply) return;
  if (!reply.ok) {
    scrubStore.setState({ refused: reply.message });
    return;
  }
  if (reply.value) showPreview(reply.value);
  if (now !== at || (reply.value && reply.value.t < reply.value.target)) void ask();
}

/** Starts or moves a scrub to `us`. */
export function scrubTo(us: number): void {
  const clamped = Math.min(Math.max(0, Math.round(us)), frameStore.getState().durationUs);
  if (scrubStore.getState().at === clamped) return;
  scrubStore.setState({ at: clamped });
  void ask();
}

/** Ends a scrub: with `jump`, the run goes to the time scrubbed to (the preview shows until it lands), else it shows the run as it is. */
export async function endScrub(jump: boolean): Promise<void> {
  const { at } = scrubStore.getState();
  if (at === null) return;
  scrubStore.setState({ at: null, refused: null });
  void preview(null);
  if (jump) await seek(at);
  endPreview();
}
