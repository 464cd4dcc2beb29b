import type { SharedRun } from './share-link';

/**
 * Runs saved in the browser (localStorage), one per tab, so a reload, a crash or a closed tab loses nothing, and a
 * second tab never writes over the first's work.
 */
export interface SavedSession {
  tab: string;
  /** Wall-clock ms of the save, to find the newest. */
  savedAt: number;
  run: SharedRun;
  /** The scenario editor's text when it differs from the run's, and whether the editor was open. */
  draft?: EditorDraft;
}

export interface EditorDraft {
  text: string;
  fileName: string;
  open: boolean;
}

export const SESSION_PREFIX = 'netmortem.session.';
// Model choice: enough to come back to the last few tabs without filling the origin's storage with old runs.
export const MAX_SESSIONS = 5;

/** The minimal view of Storage this needs, so tests can hand in a Map-backed one. */
export interface KeyValueStore {
  readonly length: number;
  key(index: number): string | null;
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** A saved session read back, or null when the entry is not one (damaged, or from another version of the app). */
export function parseSession(text: string | null): SavedSession | null {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const s = value as Partial<SavedSession> | null;
  const run = s?.run as Partial<SharedRun> | undefined;
  const scenario = run?.scenario as { file?: unknown; name?: unknown; text?: unknown } | undefined;
  const scenarioOk = typeof scenario?.file === 'string' || (typeof scenario?.name === 'string' && typeof scenario.text === 'string');
  if (typeof s?.tab !== 'string' || typeof s.savedAt !== 'number' || !run || !scenarioOk) return null;
  if (typeof run.seed !== 'number' || !isStrings(run.fixes) || !Array.isArray(run.faults) || typeof run.t !== 'number') return null;
  const draft = s.draft as Partial<EditorDraft> | undefined;
  if (draft !== undefined && (typeof draft.text !== 'string' || typeof draft.fileName !== 'string' || typeof draft.open !== 'boolean')) return null;
  return s as SavedSession;
}

/** Every readable saved session, newest first. */
export function readSessions(store: KeyValueStore): SavedSession[] {
  const out: SavedSession[] = [];
  for (let i = 0; i < store.length; i++) {
    const key = store.key(i);
    if (!key?.startsWith(SESSION_PREFIX)) continue;
    const session = parseSession(store.getItem(key));
    if (session) out.push(session);
  }
  return out.sort((a, b) => b.savedAt - a.savedAt);
}

/** Saves a tab's session and forgets the oldest beyond MAX_SESSIONS; returns why it could not, e.g. a full store. */
export function writeSession(store: KeyValueStore, session: SavedSession): string | null {
  const key = SESSION_PREFIX + session.tab;
  // Only a new entry can push the count past the limit; saves of an existing one skip reading every other.
  const added = store.getItem(key) === null;
  try {
    store.setItem(key, JSON.stringify(session));
  } catch (error) {
    return (error as Error).message;
  }
  if (added) for (const old of readSessions(store).slice(MAX_SESSIONS)) store.removeItem(SESSION_PREFIX + old.tab);
  return null;
}

export type RestoreChoice =
  /** This tab's own session (a reload), or one a closed tab left (adopted: this tab now owns it). */
  | { kind: 'restore'; session: SavedSession; adopted: boolean }
  /** Every saved session belongs to a tab still open: start afresh rather than share its work. */
  | { kind: 'other-tab-open'; session: SavedSession }
  | { kind: 'nothing' };

/** What a tab starting without a run in its link should come back to (`sessions` newest first). */
export function sessionToRestore(sessions: readonly SavedSession[], ownTab: string, openTabs: ReadonlySet<string>): RestoreChoice {
  const own = sessions.find((s) => s.tab === ownTab);
  if (own) return { kind: 'restore', session: own, adopted: false };
  const left = sessions.find((s) => !openTabs.has(s.tab));
  if (left) return { kind: 'restore', session: left, adopted: true };
  return sessions[0] ? { kind: 'other-tab-open', session: sessions[0] } : { kind: 'nothing' };
}
