import type { Checkpoint } from '../sim';
import { sharedPrefix, type TimedFault } from './fault-record';

/**
 * The checkpoints a run keeps as it plays (issue 25): copies of the whole sim at moments spread over what has been played,
 * within a memory budget, so that going back lands on the nearest one and runs forward from there rather than from 0.
 */

/** One kept checkpoint, with the user's faults its sim had applied: it stands for any record that starts with them. */
export interface Kept {
  readonly checkpoint: Checkpoint;
  /** The first `faults.length` entries of the record, all applied in the checkpoint's sim. */
  readonly faults: readonly TimedFault[];
}

// Model choice: what the worker may hold in checkpoints; the tab's own state and the live run come on top.
export const CHECKPOINT_BUDGET_BYTES = 200 * 1024 * 1024;

export class Checkpoints {
  private kept: Kept[] = [];
  private total = 0;
  private changes = 0;

  constructor(readonly budget = CHECKPOINT_BUDGET_BYTES) {}

  get bytes(): number {
    return this.total;
  }

  get count(): number {
    return this.kept.length;
  }

  /** Changes whenever a checkpoint is kept or dropped. */
  get version(): number {
    return this.changes;
  }

  /** The simulated times kept, in order. */
  times(): number[] {
    return this.kept.map((k) => k.checkpoint.atUs);
  }

  clear(): void {
    this.kept = [];
    this.total = 0;
    this.changes++;
  }

  /**
   * Keeps `checkpoint` of a sim that had applied `faults`, in time order (one at the same time and with the same faults
   * is replaced), then thins to the budget: while over it, the checkpoint whose neighbours are closest together goes,
   * which spreads those left evenly; the first and the newest stay. One alone over the budget is not kept.
   */
  add(checkpoint: Checkpoint, faults: readonly TimedFault[]): void {
    if (checkpoint.state.bytes > this.budget) return;
    const at = checkpoint.atUs;
    const same = this.kept.findIndex((k) => k.checkpoint.atUs === at && sameFaults(k.faults, faults));
    if (same >= 0) this.drop(same);
    let index = this.kept.findIndex((k) => k.checkpoint.atUs > at);
    if (index < 0) index = this.kept.length;
    this.kept.splice(index, 0, { checkpoint, faults: [...faults] });
    this.total += checkpoint.state.bytes;
    this.changes++;
    while (this.total > this.budget && this.kept.length > 2) this.drop(this.closestPair());
    if (this.total > this.budget) this.drop(0);
  }

  /**
   * The latest checkpoint at or before `target` that a sim replaying `record` would pass through: the faults it had
   * applied are the record's first entries, and no other entry of the record is due before it.
   */
  nearest(target: number, record: readonly TimedFault[]): Kept | undefined {
    for (let i = this.kept.length - 1; i >= 0; i--) {
      const k = this.kept[i]!;
      const at = k.checkpoint.atUs;
      if (at > target) continue;
      const n = k.faults.length;
      if (sharedPrefix(k.faults, record, n) < n) continue;
      if (record.slice(n).some((f) => f.at < at)) continue;
      return k;
    }
    return undefined;
  }

  private closestPair(): number {
    let best = 1;
    let gap = Infinity;
    for (let i = 1; i < this.kept.length - 1; i++) {
      const g = this.kept[i + 1]!.checkpoint.atUs - this.kept[i - 1]!.checkpoint.atUs;
      if (g < gap) {
        gap = g;
        best = i;
      }
    }
    return best;
  }

  private drop(index: number): void {
    const [gone] = this.kept.splice(index, 1);
    if (gone) this.total -= gone.checkpoint.state.bytes;
    this.changes++;
  }
}

function sameFaults(a: readonly TimedFault[], b: readonly TimedFault[]): boolean {
  return a.length === b.length && sharedPrefix(a, b, a.length) === a.length;
}
