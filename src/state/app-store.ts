import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { FaultDescriptor, RunReport } from '../sim';
import type { ScenarioSummary, Speed } from '../worker/protocol';
import type { ScenarioEntry } from './scenario-index';
import { DEFAULT_SPEED } from './speed';

/** `pausing`: the user paused and the worker has not yet confirmed; frames already on their way may still land. */
export type RunStatus = 'running' | 'pausing' | 'paused' | 'done';

export interface AppError {
  /** Shown as-is; one problem per line. */
  message: string;
  title: string;
  /** True when the worker died or hung, so the banner offers a restart. */
  restartable: boolean;
  /** Identifies the hang warning so a late pong can clear exactly it. */
  kind: 'input' | 'worker-crash' | 'worker-hang';
}

export type ThemeChoice = 'system' | 'light' | 'dark';

export interface AppState {
  scenarios: ScenarioEntry[];
  /** Value of the scenario picker: a shipped file name, or '' for a file opened from disk. */
  selectedFile: string;
  /** Name of the file currently loaded (shipped or opened). */
  loadedFile: string | null;
  summary: ScenarioSummary | null;
  catalog: FaultDescriptor[];
  seed: number | null;
  /** Fixes applied to the loaded run, in the order the scenario lists them. */
  fixes: string[];
  speed: Speed;
  status: RunStatus;
  busy: boolean;
  report: RunReport | null;
  error: AppError | null;
  theme: ThemeChoice;
  /** Entity the inspector shows, as `kind/name` (the form fault targets and log entries use), or null. */
  selected: string | null;
  /** Playing pauses by itself at each chapter of the scenario's story; on after every load. */
  pauseAtChapters: boolean;
  /** The latest request to bring an entity into view; `n` tells two requests for the same entity apart. */
  reveal: { entity: string; n: number } | null;
  /** The keyboard shortcut list is open. */
  help: boolean;
  /** The scenario gallery is open; `reason` says why a link sent the user there instead of replaying. */
  gallery: { reason?: string } | null;
  /** Something the user should know that is not a failure: a restored run, a restarted worker. */
  notice: Notice | null;
}

export interface Notice {
  message: string;
  /** One button beside the message, e.g. "Start afresh" after a restored run. */
  action?: { label: string; run: () => void };
}

export const appStore = createStore<AppState>(() => ({
  scenarios: [],
  selectedFile: '',
  loadedFile: null,
  summary: null,
  catalog: [],
  seed: null,
  fixes: [],
  speed: DEFAULT_SPEED,
  status: 'paused',
  busy: false,
  report: null,
  error: null,
  theme: 'system',
  selected: null,
  pauseAtChapters: true,
  reveal: null,
  help: false,
  gallery: null,
  notice: null,
}));

export function useApp<T>(selector: (s: AppState) => T): T {
  return useStore(appStore, selector);
}

export function showError(error: AppError): void {
  appStore.setState({ error });
}

export function dismissError(): void {
  appStore.setState({ error: null });
}

export function notify(notice: Notice | null): void {
  appStore.setState({ notice });
}
