import { useEffect, useState } from 'react';
import { frameStore, type FrameState } from '../../state/frame-store';
import { createPacer, type PaceOptions } from './pacer';

/** Panels that can show the latest frame a little late while the run plays re-render at most this often. */
export const PANEL_PACE: PaceOptions = { minMs: 250 };

/**
 * A value of the latest frame for a panel that need not follow every frame: re-rendered on the next animation frame
 * after it changes, at most every `pace.minMs` while the run plays. `select` must keep its identity between renders.
 */
export function usePacedFrame<T>(select: (s: FrameState) => T, pace: PaceOptions = PANEL_PACE): T {
  const [held, setHeld] = useState(() => ({ select, value: select(frameStore.getState()) }));
  let current = held;
  // A new question (another entity inspected) is answered at once, not at the next paced frame.
  if (held.select !== select) {
    current = { select, value: select(frameStore.getState()) };
    setHeld(current);
  }
  useEffect(() => {
    const pacer = createPacer(() => {
      const value = select(frameStore.getState());
      setHeld((prev) => (prev.select === select && Object.is(prev.value, value) ? prev : { select, value }));
    }, pace);
    // A frame may have landed between the render and this effect; an unchanged value renders nothing.
    pacer.now();
    const unsubscribe = frameStore.subscribe((s, prev) => {
      if (select(s) !== select(prev)) pacer.request();
    });
    return () => {
      unsubscribe();
      pacer.cancel();
    };
  }, [select, pace]);
  return current.value;
}
