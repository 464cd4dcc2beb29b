import { describe, expect, it } from 'vitest';
import { seriesCsv } from '../../src/sim/report/csv';

describe('seriesCsv', () => {
  it('writes one column per series in name order and one row per step, quoting names with commas', () => {
    const csv = seriesCsv({
      series: {
        'requests.ok': { stepSeconds: 1, values: [10, 12, 9] },
        'drops{reason=a,site=b}': { stepSeconds: 1, values: [0, 1, 0] },
        'a.gauge': { stepSeconds: 1, values: [0.5, 0.25, 1] },
      },
    });
    expect(csv).toBe(['t_s,a.gauge,"drops{reason=a,site=b}",requests.ok', '1,0.5,0,10', '2,0.25,1,12', '3,1,0,9', ''].join('\r\n'));
  });

  it('leaves a cell empty where a series has no sample', () => {
    const csv = seriesCsv({ series: { a: { stepSeconds: 0.5, values: [1, 2] }, b: { stepSeconds: 0.5, values: [3] } } });
    expect(csv.split('\r\n')).toEqual(['t_s,a,b', '0.5,1,3', '1,2,', '']);
  });
});
