import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { FaultRequest } from '../sim';
import { SeriesBuffer } from './series-buffer';

/**
 * The A/B comparison: a second worker runs the loaded scenario with one fix toggled, or the main run with a fix rolled
 * out or a fault applied from a moment on, and follows the main run's clock.
 * Its series land here; the timeline draws them dashed over the main run's.
 */
export interface CompareState {
  /** Whether the Compare panel is open. */
  open: boolean;
  /** The fix toggled in run B, or null before one is picked. */
  fix: string | null;
  /** Whether run B has `fix` on (true) or off (the main run has it on). */
  fixOn: boolean;
  /** The simulated µs where run B, the main run until then, rolls `fix` out or takes `fault`; null when B has `fix` toggled from the start. */
  branchAt: number | null;
  /** The fault run B alone takes at `branchAt` (a branch from the fault palette), with its label; null for a fix. */
  fault: { request: FaultRequest; label: string } | null;
  status: 'off' | 'starting' | 'following' | 'error';
  message: string;
  /** Simulated time (µs) run B has reached. */
  t: number;
  series: SeriesBuffer;
  seriesVersion: number;
  run: number;
}

const initial = (): CompareState => ({
  open: false,
  fix: null,
  fixOn: true,
  branchAt: null,
  fault: null,
  status: 'off',
  message: '',
  t: 0,
  series: new SeriesBuffer(),
  seriesVersion: 0,
  run: -1,
});

export const compareStore = createStore<CompareState>(initial);

export function useCompare<T>(selector: (s: CompareState) => T): T {
  return useStore(compareStore, selector);
}

/** Whether run B is on its way or following: what a link carries and the timeline marks. */
export function compareRuns(s: Pick<CompareState, 'status'>): boolean {
  return s.status === 'starting' || s.status === 'following';
}

/** Run B in a few words, as the legend names it; null before a fix or fault is picked. `clock` writes a simulated µs. */
export function describeB(s: Pick<CompareState, 'fix' | 'fixOn' | 'branchAt' | 'fault'>, clock: (us: number) => string): string | null {
  if (s.fault && s.branchAt !== null) return `B: ${s.fault.label} (${s.fault.request.target}) at ${clock(s.branchAt)}`;
  if (s.fix === null) return null;
  return s.branchAt === null ? `B: ${s.fixOn ? 'with' : 'without'} ${s.fix}` : `B: ${s.fix} rolled out at ${clock(s.branchAt)}`;
}

export function resetCompare(open: boolean): void {
  compareStore.setState({ ...initial(), open });
}
