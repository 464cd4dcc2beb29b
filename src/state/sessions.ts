import { isSpeed } from '../worker/protocol';
import { parseSets, parseTimelineAdditions } from '../worker/timeline-additions';
import type { SharedRun } from './share-link';

/**
 * Runs saved in the browser (localStorage), one per tab, so a reload, a crash or a closed tab loses nothing, and a
 * second tab never writes over the first's work.
 */
export interface SavedSession {
  tab: string;
  /** Wall-clock ms of the save, to find the newest; a session is saved only when something in it changed. */
  savedAt: number;
  /** The run as it stood; absent when no scenario had loaded in the tab, and the editor's draft is all there is. */
  run?: SharedRun;
  /** The scenario editor's text when it differs from the run's, and whether the editor was open. */
  draft?: EditorDraft;
}

export interface EditorDraft {
  text: string;
  fileName: string;
  open: boolean;
}

export const SESSION_PREFIX = 'netmortem.session.';
// Model choice: a run or draft left alone for two weeks is forgotten, with a notice, so old tabs do not fill the
// origin's storage; a draft written within the last day is never dropped.
export const SESSION_MAX_AGE_DAYS = 14;
const SESSION_MAX_AGE_MS = SESSION_MAX_AGE_DAYS * 24 * 60 * 60 * 1000;

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
  if (typeof s?.tab !== 'string' || typeof s.savedAt !== 'number' || !Number.isFinite(s.savedAt)) return null;
  const draft = s.draft as Partial<EditorDraft> | undefined;
  if (draft !== undefined && (typeof draft?.text !== 'string' || typeof draft.fileName !== 'string' || typeof draft.open !== 'boolean')) return null;
  if (s.run === undefined) return s.draft === undefined ? null : { tab: s.tab, savedAt: s.savedAt, draft: s.draft };
  const run = parseRun(s.run);
  return run === null ? null : { tab: s.tab, savedAt: s.savedAt, run, ...(s.draft === undefined ? {} : { draft: s.draft }) };
}

/** A saved run as shareQuery can write it again, or null; a view that is not one is left out rather than the run. */
function parseRun(value: unknown): SharedRun | null {
  const run = value as Partial<SharedRun> | null;
  const given = run?.scenario as { file?: unknown; name?: unknown; text?: unknown } | undefined;
  let scenario: SharedRun['scenario'];
  if (typeof given?.file === 'string') scenario = { file: given.file };
  else if (typeof given?.name === 'string' && typeof given.text === 'string') scenario = { name: given.name, text: given.text };
  else return null;
  const { seed, fixes, faults, t } = run!;
  if (typeof seed !== 'number' || !isStrings(fixes) || !Array.isArray(faults) || typeof t !== 'number' || !Number.isFinite(t)) return null;
  const v = run!.view as Partial<Record<keyof NonNullable<SharedRun['view']>, unknown>> | null | undefined;
  const zoom = v?.zoom;
  const view = {
    ...(typeof v?.selected === 'string' ? { selected: v.selected } : {}),
    ...(Array.isArray(zoom) && zoom.length === 2 && zoom.every(Number.isFinite) ? { zoom: zoom as [number, number] } : {}),
    ...(isSpeed(v?.speed) ? { speed: v.speed } : {}),
  };
  let timeline: SharedRun['timeline'];
  let sets: SharedRun['sets'];
  try {
    timeline = run!.timeline === undefined ? undefined : parseTimelineAdditions(run!.timeline, 'timeline');
    sets = run!.sets === undefined ? undefined : parseSets(run!.sets, 'set');
  } catch {
    return null;
  }
  return { scenario, seed, fixes, faults: faults as SharedRun['faults'], ...(sets ? { sets } : {}), ...(timeline ? { timeline } : {}), t, ...(v === undefined ? {} : { view }) };
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

/** Saves a tab's session; returns why it could not, e.g. a full store. */
export function writeSession(store: KeyValueStore, session: SavedSession): string | null {
  try {
    store.setItem(SESSION_PREFIX + session.tab, JSON.stringify(session));
  } catch (error) {
    return (error as Error).message;
  }
  return null;
}

/** Forgets every session but `ownTab`'s not saved for SESSION_MAX_AGE_MS, and returns them so the user can be told. */
export function pruneSessions(store: KeyValueStore, now: number, ownTab: string): SavedSession[] {
  const old = readSessions(store).filter((s) => s.tab !== ownTab && now - s.savedAt > SESSION_MAX_AGE_MS);
  for (const s of old) store.removeItem(SESSION_PREFIX + s.tab);
  return old;
}

/**
 * Copies a tab's session under a key of its own, so a link opened in that tab can take the tab's place without its
 * draft; the copy is like one a closed tab left. Returns the copy, or why it could not be written.
 */
export function setAside(store: KeyValueStore, session: SavedSession): SavedSession | string {
  const kept = { ...session, tab: `${session.tab}-kept-${session.savedAt}` };
  return writeSession(store, kept) ?? kept;
}

/** What a session holds, for a notice: its scenario's file name, or `a draft of mine.yaml` without a run. */
export function sessionName({ run, draft }: SavedSession): string {
  if (run) return 'file' in run.scenario ? run.scenario.file : run.scenario.name;
  return `a draft of ${draft?.fileName ?? 'a scenario'}`;
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
