import { describe, expect, it } from 'vitest';
import { evaluateExpectations, expectationsFor } from '../../src/sim/report/expect';

const series = { 'requests.failed': { stepSeconds: 1, values: [0, 0, 5, 7, 1, 0] } };
const totals = { 'requests.failed': 13 };

describe('expectations on a run report', () => {
  it('reads totals without a window and series within one', () => {
    const [all, windowed, peak, mean] = evaluateExpectations(
      [
        { metric: 'requests.failed', agg: 'total', op: '==', value: 13 },
        { metric: 'requests.failed', agg: 'total', window: [2, 4], op: '==', value: 12 },
        { metric: 'requests.failed', agg: 'peak', op: '<', value: 7 },
        { metric: 'requests.failed', agg: 'mean', window: [0, 2], op: '==', value: 0 },
      ],
      totals,
      series,
      6,
    );
    expect(all!.held).toBe(true);
    expect(windowed!.actual).toBe(12);
    expect(windowed!.held).toBe(true);
    expect(peak!.actual).toBe(7);
    expect(peak!.held).toBe(false);
    expect(mean!.actual).toBe(0);
  });

  it('accounts for samples a ring buffer has already dropped', () => {
    const [r] = evaluateExpectations([{ metric: 'requests.failed', agg: 'total', window: [12, 14], op: '==', value: 12 }], totals, series, 16);
    expect(r!.actual).toBe(12);
  });

  it('fails an assertion on a metric that does not exist', () => {
    const [r] = evaluateExpectations([{ metric: 'nope', agg: 'peak', op: '>', value: 0 }], totals, series, 6);
    expect(r!.actual).toBeNull();
    expect(r!.held).toBe(false);
    expect(r!.missing).toBe('no metric named nope');
  });

  it('says so when the run stopped before a window ends', () => {
    const [r] = evaluateExpectations([{ metric: 'requests.failed', agg: 'total', window: [4, 10], op: '==', value: 0 }], totals, series, 6);
    expect(r!.held).toBe(false);
    expect(r!.missing).toBe('the run stopped at 6 s, before the window ends at 10 s');
  });

  it('keeps the assertions about a run with exactly its fixes, in any order, and those about every run', () => {
    const every = { metric: 'requests.failed', agg: 'total', op: '>', value: 0 } as const;
    const base = { ...every, fixes: [] };
    const one = { ...every, fixes: ['a'] };
    const two = { ...every, fixes: ['b', 'a'] };
    const all = [every, base, one, two];
    expect(expectationsFor(all, [])).toEqual([every, base]);
    expect(expectationsFor(all, ['a'])).toEqual([every, one]);
    expect(expectationsFor(all, ['a', 'b'])).toEqual([every, two]);
    expect(expectationsFor(all, ['c'])).toEqual([every]);
  });
});
