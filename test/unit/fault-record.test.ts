import { describe, expect, it } from 'vitest';
import { dueCount, parseFaultRecord, recordFault, seekNeedsRestart, sharedPrefix } from '../../src/worker/fault-record';

const f = (target: string) => ({ fault: 'delete-pod', target });

describe('fault record', () => {
  it('inserts in time order, after faults at the same time', () => {
    let r = recordFault([], 5, f('a'));
    r = recordFault(r, 2, f('b'));
    r = recordFault(r, 5, f('c'));
    expect(r.map((e) => `${e.at}:${e.fault.target}`)).toEqual(['2:b', '5:a', '5:c']);
  });

  it('needs a restart to go back, or to pick up a fault in the past it has not applied', () => {
    const r = [{ at: 10, fault: f('a') }];
    expect(seekNeedsRestart(20, 10, r, 1)).toBe(true);
    expect(seekNeedsRestart(20, 30, r, 1)).toBe(false);
    expect(seekNeedsRestart(20, 30, r, 0)).toBe(true);
    expect(seekNeedsRestart(10, 30, r, 0)).toBe(false);
    expect(seekNeedsRestart(5, 5, r, 0)).toBe(false);
  });

  it('counts the entries due at a time, inclusive', () => {
    const r = [
      { at: 10, fault: f('a') },
      { at: 20, fault: f('b') },
    ];
    expect(dueCount(r, 0, 9)).toBe(0);
    expect(dueCount(r, 0, 10)).toBe(1);
    expect(dueCount(r, 1, 25)).toBe(2);
  });

  it('compares the applied prefix of two records', () => {
    const a = [
      { at: 10, fault: f('a') },
      { at: 20, fault: f('b') },
    ];
    expect(sharedPrefix(a, [...a, { at: 30, fault: f('c') }], 2)).toBe(2);
    expect(
      sharedPrefix(
        a,
        [
          { at: 10, fault: f('a') },
          { at: 20, fault: f('x') },
        ],
        2,
      ),
    ).toBe(1);
    expect(sharedPrefix(a, [], 2)).toBe(0);
  });

  it('names the bad field of a record from outside', () => {
    expect(() => parseFaultRecord('x', 100)).toThrow('seek.faults: expected a list');
    expect(() => parseFaultRecord([{ at: -1, fault: f('a') }], 100)).toThrow('seek.faults[0].at');
    expect(() =>
      parseFaultRecord(
        [
          { at: 50, fault: f('a') },
          { at: 40, fault: f('b') },
        ],
        100,
      ),
    ).toThrow('seek.faults[1].at: the record must be in time order');
    expect(() => parseFaultRecord([{ at: 5, fault: { target: 'x' } }], 100)).toThrow('seek.faults[0].fault');
    expect(parseFaultRecord([{ at: 5, fault: f('a') }], 100)).toEqual([{ at: 5, fault: f('a') }]);
  });
});
