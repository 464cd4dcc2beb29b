import { describe, expect, it } from 'vitest';
import { SeriesBuffer } from '../../src/state/series-buffer';
import type { SeriesChunk } from '../../src/worker/protocol';

/** A chunk of `rows` (one array of samples per series) from sample `from`, with `names` when the stream sends them. */
function chunk(from: number, rows: number[][], names?: string[]): SeriesChunk {
  const count = rows[0]?.length ?? 0;
  return { ...(names && { names }), stepSeconds: 1, from, count, values: new Float64Array(rows.flat()) };
}

const read = (b: SeriesBuffer, name: string): number[] => Array.from({ length: b.end() - b.start() }, (_, i) => b.value(name, b.start() + i));

describe('the series buffer', () => {
  it('reads chunks without names by the rows of the latest names sent', () => {
    const b = new SeriesBuffer();
    b.append(
      chunk(
        0,
        [
          [1, 2],
          [10, 20],
        ],
        ['a', 'b'],
      ),
    );
    b.append(chunk(2, [[3], [30]]));
    expect(read(b, 'a')).toEqual([1, 2, 3]);
    expect(read(b, 'b')).toEqual([10, 20, 30]);
    expect(b.names()).toEqual(['a', 'b']);
  });

  it('gives a series that appears later NaN before it, and one the names leave out NaN from then on', () => {
    const b = new SeriesBuffer();
    b.append(chunk(0, [[1], [10]], ['a', 'c']));
    b.append(chunk(1, [[5], [2]], ['b', 'a']));
    b.append(chunk(2, [[6], [3]]));
    expect(read(b, 'a')).toEqual([1, 2, 3]);
    expect(read(b, 'b')).toEqual([NaN, 5, 6]);
    expect(read(b, 'c')).toEqual([10, NaN, NaN]);
    expect(b.names()).toEqual(['a', 'b', 'c']);
  });

  it('takes names that come in a frame without samples for the chunks after it', () => {
    const b = new SeriesBuffer();
    b.append(chunk(0, [], ['a']));
    b.append(chunk(0, [[4, 5]]));
    expect(read(b, 'a')).toEqual([4, 5]);
    expect(b.start()).toBe(0);
  });

  it('keeps the latest capacity samples, fills a gap with NaN and starts again after going back', () => {
    const b = new SeriesBuffer(4);
    b.append(chunk(0, [[1, 2, 3]], ['a']));
    b.append(chunk(4, [[5, 6]]));
    expect(b.start()).toBe(2);
    expect(read(b, 'a')).toEqual([3, NaN, 5, 6]);
    b.append(chunk(1, [[7]]));
    expect([b.start(), b.end()]).toEqual([1, 2]);
    expect(read(b, 'a')).toEqual([7]);
  });

  it('lists the names once until a series is added, and totals what a series holds', () => {
    const b = new SeriesBuffer();
    b.append(chunk(0, [[1, NaN, 2]], ['a']));
    const names = b.names();
    b.append(chunk(3, [[4]]));
    expect(b.names()).toBe(names);
    expect(b.total('a')).toBe(7);
    expect(b.total('missing')).toBe(0);
    b.append(chunk(4, [[1], [1]], ['a', 'z']));
    expect(b.names()).not.toBe(names);
  });

  it('forgets the rows with everything else on clear', () => {
    const b = new SeriesBuffer();
    b.append(chunk(0, [[1]], ['a']));
    b.clear();
    b.append(chunk(0, [[2]], ['b']));
    expect(b.has('a')).toBe(false);
    expect(read(b, 'b')).toEqual([2]);
  });
});
