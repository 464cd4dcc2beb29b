import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';

/** Whether the sweep dialog is open: all the page's first bundle knows of the sweep, whose code loads when it opens. */
export const sweepOpenStore = createStore<{ open: boolean }>(() => ({ open: false }));

export function useSweepOpen(): boolean {
  return useStore(sweepOpenStore, (s) => s.open);
}

export function toggleSweep(): void {
  sweepOpenStore.setState((s) => ({ open: !s.open }));
}

export function closeSweep(): void {
  sweepOpenStore.setState({ open: false });
}
