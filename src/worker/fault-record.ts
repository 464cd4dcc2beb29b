import type { FaultRequest } from '../sim';

/** Faults a user applied to a run, with the simulated time (µs) each went in: replaying them reproduces the run. */

export interface TimedFault {
  at: number;
  fault: FaultRequest;
}

/** The record with `fault` added at `at`, after any fault already recorded at or before that time. */
export function recordFault(record: readonly TimedFault[], at: number, fault: FaultRequest): TimedFault[] {
  const index = record.findIndex((f) => f.at > at);
  const entry = { at, fault };
  return index < 0 ? [...record, entry] : [...record.slice(0, index), entry, ...record.slice(index)];
}

/**
 * Whether reaching `target` needs a fresh sim replayed from 0: going back in time, or a record that holds a fault
 * earlier than `now` which this sim has not applied (the first `applied` entries are in).
 */
export function seekNeedsRestart(now: number, target: number, record: readonly TimedFault[], applied: number): boolean {
  if (target < now) return true;
  return record.slice(applied).some((f) => f.at < now);
}

/** How many leading entries of `record` a sim at `now` that has applied `applied` entries should have in. */
export function dueCount(record: readonly TimedFault[], applied: number, now: number): number {
  let n = applied;
  while (n < record.length && record[n]!.at <= now) n++;
  return n;
}

/** How many of the first `limit` entries of `a` and `b` are the same fault at the same time. */
export function sharedPrefix(a: readonly TimedFault[], b: readonly TimedFault[], limit: number): number {
  let n = 0;
  while (n < limit && n < a.length && n < b.length && a[n]!.at === b[n]!.at && JSON.stringify(a[n]!.fault) === JSON.stringify(b[n]!.fault)) n++;
  return n;
}

/** Checks a record received from the UI; throws an Error naming the bad field. */
export function parseFaultRecord(value: unknown, durationUs: number): TimedFault[] {
  if (!Array.isArray(value)) throw new Error('seek.faults: expected a list of {at, fault}');
  let previous = 0;
  return value.map((item: unknown, i) => {
    const entry = item as Partial<TimedFault> | null;
    const at = entry?.at;
    if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at > durationUs) {
      throw new Error(`seek.faults[${i}].at: expected whole microseconds from 0 to ${durationUs}`);
    }
    if (at < previous) throw new Error(`seek.faults[${i}].at: the record must be in time order`);
    previous = at;
    const fault = entry?.fault;
    if (typeof fault?.fault !== 'string' || typeof fault.target !== 'string') {
      throw new Error(`seek.faults[${i}].fault: expected {fault, target, params?}`);
    }
    return { at, fault };
  });
}
