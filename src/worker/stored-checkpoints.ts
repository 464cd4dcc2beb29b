import type { Checkpoint, Portable } from '../sim';
import type { Kept } from './checkpoints';
import { codeFingerprint, portable, unportable } from './classes';
import type { TimedFault } from './fault-record';

/**
 * The newest checkpoint of each of the latest few runs, kept in IndexedDB (issue 25, part 5): a worker that replaces a
 * crashed one, a reloaded tab and a link opened again in this browser go on from it rather than replaying from 0.
 * A run is its scenario as loaded (seed, fixes and additions in it) and the code that ran it: a stored checkpoint is
 * found only by the same run of the same build.
 */

const DB_NAME = 'netmortem-checkpoints';
const STORE = 'latest';
// Model choice: runs remembered, newest first; each holds one checkpoint, at most the worker's whole budget.
const RUNS_KEPT = 4;
/**
 * A run's newest checkpoint is stored at most this often, and at least this many times a save's own cost apart (the
 * walk and the clone hold the worker): a crash or reload lands within about a second of play of where it was.
 */
const SAVE_EVERY_MS = 1_000;
const SAVE_COST_SHARE = 8;

interface Stored {
  key: string;
  savedAt: number;
  atUs: number;
  events: number;
  faults: TimedFault[];
  state: Portable<unknown>;
}

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

/** The key of a run: the scenario as loaded and the fixes applied, with the code's fingerprint. */
export async function runKey(scenario: unknown, fixes: readonly string[]): Promise<string> {
  const text = `${codeFingerprint()}\n${JSON.stringify(fixes)}\n${JSON.stringify(scenario)}`;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export class StoredCheckpoints {
  private db: Promise<IDBDatabase> | undefined;
  private saving = false;
  private nextSaveAt = 0;
  // The newest checkpoint offered and not stored yet: it waits for the save before it, or for its turn.
  private pending: { key: string; kept: Kept } | undefined;
  private pendingTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Stores `kept` as run `key`'s newest checkpoint when saves are due, in place of any offered before it and not
   * stored yet. A save that fails is dropped: the run goes on.
   */
  offer(key: string, kept: Kept): void {
    this.pending = { key, kept };
    this.flush();
  }

  /** Forgets the checkpoint offered and not stored yet: a new run is loaded. */
  withdraw(): void {
    this.pending = undefined;
  }

  /** Stores `kept` now, whenever the last save was, in place of an older one offered: another worker is about to read it. */
  async saveNow(key: string, kept: Kept): Promise<void> {
    if (this.pending && this.pending.kept.checkpoint.atUs <= kept.checkpoint.atUs) this.pending = undefined;
    await this.save(key, kept);
  }

  private flush(): void {
    if (!this.pending || this.saving || this.pendingTimer !== undefined) return;
    const wait = this.nextSaveAt - performance.now();
    if (wait > 0) {
      this.pendingTimer = setTimeout(() => {
        this.pendingTimer = undefined;
        this.flush();
      }, wait);
      return;
    }
    const { key, kept } = this.pending;
    this.pending = undefined;
    this.saving = true;
    this.save(key, kept)
      .then((ms) => (this.nextSaveAt = performance.now() + Math.max(SAVE_EVERY_MS, SAVE_COST_SHARE * ms)))
      // Storage full or refused: tried again with the next checkpoint, no sooner than a normal save.
      .catch(() => (this.nextSaveAt = performance.now() + SAVE_EVERY_MS))
      .finally(() => {
        this.saving = false;
        this.flush();
      });
  }

  private open(): Promise<IDBDatabase> {
    return (this.db ??= new Promise((resolve, reject) => {
      const r = indexedDB.open(DB_NAME, 1);
      r.onupgradeneeded = () => r.result.createObjectStore(STORE, { keyPath: 'key' }).createIndex('savedAt', 'savedAt');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error ?? new Error('IndexedDB could not be opened'));
    }));
  }

  /**
   * Stores `kept` as the run's newest checkpoint and forgets all but the newest runs. Resolves with the wall ms this
   * thread spent on it (the walk that names the classes, and IndexedDB's clone of the graph), to space saves by.
   */
  private async save(key: string, kept: Kept): Promise<number> {
    const db = await this.open();
    const t0 = performance.now();
    const { checkpoint, faults } = kept;
    const stored: Stored = { key, savedAt: Date.now(), atUs: checkpoint.atUs, events: checkpoint.events, faults: [...faults], state: portable(checkpoint.state) };
    const tx = db.transaction(STORE, 'readwrite');
    const store = tx.objectStore(STORE);
    store.put(stored);
    const ms = performance.now() - t0;
    // Newest first by key alone: the checkpoints themselves are not read to find the ones to forget.
    const cursor = store.index('savedAt').openKeyCursor(null, 'prev');
    let seen = 0;
    cursor.onsuccess = () => {
      const at = cursor.result;
      if (!at) return;
      if (++seen > RUNS_KEPT) store.delete(at.primaryKey);
      at.continue();
    };
    await done(tx);
    return ms;
  }

  /** The run's stored checkpoint, or undefined when there is none (or it no longer fits this code: then it is deleted). */
  async load(key: string): Promise<Kept | undefined> {
    const db = await this.open();
    const stored = (await request(db.transaction(STORE).objectStore(STORE).get(key))) as Stored | undefined;
    if (!stored) return undefined;
    try {
      const state = unportable(stored.state) as Checkpoint['state'];
      return { checkpoint: { atUs: stored.atUs as Checkpoint['atUs'], events: stored.events, state }, faults: stored.faults };
    } catch {
      await request(db.transaction(STORE, 'readwrite').objectStore(STORE).delete(key));
      return undefined;
    }
  }
}
