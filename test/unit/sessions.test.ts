import { describe, expect, it } from 'vitest';
import { MAX_SESSIONS, parseSession, readSessions, SESSION_PREFIX, sessionToRestore, writeSession, type KeyValueStore, type SavedSession } from '../../src/state/sessions';

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

  it(`keep the newest ${MAX_SESSIONS}`, () => {
    const store = memoryStore();
    for (let i = 0; i < MAX_SESSIONS + 3; i++) writeSession(store, session(`tab-${i}`, i));
    expect(readSessions(store).map((s) => s.tab)).toEqual(['tab-7', 'tab-6', 'tab-5', 'tab-4', 'tab-3']);
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
