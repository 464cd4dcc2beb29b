import { describe, expect, it } from 'vitest';
import {
  parseSession,
  pruneSessions,
  readSessions,
  SESSION_MAX_AGE_DAYS,
  SESSION_PREFIX,
  sessionToRestore,
  setAside,
  writeSession,
  type KeyValueStore,
  type SavedSession,
} from '../../src/state/sessions';

function memoryStore(limit = Infinity): KeyValueStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    get length() {
      return map.size;
    },
    key: (i) => [...map.keys()][i] ?? null,
    getItem: (k) => map.get(k) ?? null,
    setItem(k, v) {
      if (v.length > limit) throw new Error('QuotaExceededError: the quota has been exceeded');
      map.set(k, v);
    },
    removeItem: (k) => void map.delete(k),
  };
}

const DAY = 24 * 60 * 60 * 1000;

const session = (tab: string, savedAt: number, t = 1_000_000): SavedSession => ({
  tab,
  savedAt,
  run: { scenario: { file: 'demo.yaml' }, seed: 4, fixes: ['a'], faults: [{ at: 500_000, fault: { fault: 'delete-pod', target: 'pod/web-1' } }], t },
});

describe('saved sessions', () => {
  it('read back what was written, newest first, skipping damaged entries and other keys', () => {
    const store = memoryStore();
    writeSession(store, session('a', 1));
    writeSession(store, session('b', 3));
    store.setItem(`${SESSION_PREFIX}broken`, '{"tab":"x"');
    store.setItem(`${SESSION_PREFIX}old-format`, JSON.stringify({ tab: 'y', savedAt: 9, run: { scenario: {} } }));
    store.setItem('theme', 'dark');
    expect(readSessions(store)).toEqual([session('b', 3), session('a', 1)]);
  });

  it(`keep every session, however many, until it has been left for ${SESSION_MAX_AGE_DAYS} days, and say which went`, () => {
    const store = memoryStore();
    const now = 100 * DAY;
    for (let i = 0; i < 8; i++) writeSession(store, session(`tab-${i}`, now - i * DAY));
    writeSession(store, { ...session('old-draft', now - 20 * DAY), draft: { text: 'id: mine', fileName: 'mine.yaml', open: true } });
    writeSession(store, session('own', now - 30 * DAY));
    expect(readSessions(store)).toHaveLength(10);
    expect(pruneSessions(store, now, 'own').map((s) => s.tab)).toEqual(['old-draft']);
    expect(pruneSessions(store, now + 7 * DAY + 1, 'own').map((s) => s.tab)).toEqual(['tab-7']);
    expect(readSessions(store).map((s) => s.tab)).toEqual(['tab-0', 'tab-1', 'tab-2', 'tab-3', 'tab-4', 'tab-5', 'tab-6', 'own']);
  });

  it('never drop a draft written within the last day', () => {
    const store = memoryStore();
    const now = 100 * DAY;
    for (let i = 0; i < 20; i++) writeSession(store, session(`tab-${i}`, now - (SESSION_MAX_AGE_DAYS + 1) * DAY - i));
    writeSession(store, { ...session('draft', now - DAY + 1), draft: { text: 'id: mine', fileName: 'mine.yaml', open: false } });
    expect(pruneSessions(store, now, 'other')).toHaveLength(20);
    expect(readSessions(store).map((s) => s.tab)).toEqual(['draft']);
  });

  it('keep a draft typed where no scenario loaded, without a run', () => {
    const draftOnly = { tab: 'a', savedAt: 5, draft: { text: 'version: 1\nid: x\n', fileName: 'x.yaml', open: true } };
    expect(parseSession(JSON.stringify(draftOnly))).toEqual(draftOnly);
    expect(parseSession(JSON.stringify({ tab: 'a', savedAt: 5 }))).toBeNull();
  });

  it('read a run whose view is damaged without the view, rather than losing the run', () => {
    const damaged = { ...session('a', 1), run: { ...session('a', 1).run, view: { zoom: 5, selected: 'pod/web-1', speed: 'fast' } } };
    expect(parseSession(JSON.stringify(damaged))?.run).toEqual({ ...session('a', 1).run, view: { selected: 'pod/web-1' } });
  });

  it("keep the faults a run added to its timeline (a sweep row's), and drop a run whose additions are damaged rather than replay half of it", () => {
    const timeline = [{ at: 15, fault: 'crash-loop', target: 'deployment/web' }];
    const withTimeline = { ...session('a', 1), run: { ...session('a', 1).run!, timeline } };
    expect(parseSession(JSON.stringify(withTimeline))?.run).toEqual(withTimeline.run);
    const withSets = { ...session('a', 1), run: { ...session('a', 1).run!, sets: ['params.cpu.kernel=expiring'], timeline } };
    expect(parseSession(JSON.stringify(withSets))?.run).toEqual(withSets.run);
    const damaged = { ...session('a', 1), run: { ...session('a', 1).run!, timeline: [{ at: -1, fault: 'crash-loop', target: 'deployment/web' }] } };
    expect(parseSession(JSON.stringify(damaged))?.run).toBeUndefined();
  });

  it("set a tab's draft aside as a session of its own, which a new tab takes up", () => {
    const store = memoryStore();
    const own = { ...session('a', 7), draft: { text: 'id: mine', fileName: 'mine.yaml', open: true } };
    writeSession(store, own);
    const kept = setAside(store, own);
    expect(kept).toEqual({ ...own, tab: 'a-kept-7' });
    // The link's run then takes the tab's place.
    writeSession(store, session('a', 9));
    expect(readSessions(store)).toEqual([session('a', 9), kept]);
    expect(sessionToRestore(readSessions(store), 'new', new Set(['a']))).toEqual({ kind: 'restore', session: kept, adopted: true });
    expect(setAside(memoryStore(10), own)).toMatch(/quota/);
  });

  it('say why a save failed instead of throwing', () => {
    expect(writeSession(memoryStore(10), session('a', 1))).toMatch(/quota/);
  });

  it('accept an inline scenario and refuse one without its text', () => {
    const inline = { ...session('a', 1), run: { ...session('a', 1).run, scenario: { name: 'mine.yaml', text: 'id: x' } } };
    expect(parseSession(JSON.stringify(inline))).toEqual(inline);
    expect(parseSession(JSON.stringify({ ...inline, run: { ...inline.run, scenario: { name: 'mine.yaml' } } }))).toBeNull();
  });

  it("restore this tab's own session on a reload, even while other tabs are open", () => {
    const sessions = [session('b', 5), session('a', 2)];
    expect(sessionToRestore(sessions, 'a', new Set(['b']))).toEqual({ kind: 'restore', session: session('a', 2), adopted: false });
  });

  it('adopt the newest session of a closed tab, and leave those whose tabs are still open', () => {
    const sessions = [session('b', 5), session('a', 2)];
    expect(sessionToRestore(sessions, 'new', new Set())).toEqual({ kind: 'restore', session: session('b', 5), adopted: true });
    expect(sessionToRestore(sessions, 'new', new Set(['b']))).toEqual({ kind: 'restore', session: session('a', 2), adopted: true });
    expect(sessionToRestore(sessions, 'new', new Set(['a', 'b']))).toEqual({ kind: 'other-tab-open', session: session('b', 5) });
    expect(sessionToRestore([], 'new', new Set())).toEqual({ kind: 'nothing' });
  });
});
