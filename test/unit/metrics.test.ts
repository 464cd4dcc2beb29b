import { describe, expect, it } from 'vitest';
import { bucketQuantile, Metrics } from '../../src/sim/core/metrics';
import { RingBuffer } from '../../src/sim/core/ring-buffer';
import { millis } from '../../src/sim/core/time';

describe('RingBuffer', () => {
  it('keeps the latest values, oldest first, and counts every push', () => {
    const r = new RingBuffer(3);
    expect(r.length).toBe(0);
    expect(r.toArray()).toEqual([]);
    r.push(1);
    r.push(2);
    expect(r.toArray()).toEqual([1, 2]);
    r.push(3);
    r.push(4);
    r.push(5);
    expect(r.length).toBe(3);
    expect(r.total).toBe(5);
    expect(r.toArray()).toEqual([3, 4, 5]);
    expect([r.get(0), r.get(2), r.get(3), r.get(-1)]).toEqual([3, 5, undefined, undefined]);
    const out = new Float64Array(6).fill(-1);
    r.copyRange(1, 5, out, 1);
    expect(Array.from(out)).toEqual([-1, 0, 3, 4, 5, 0]);
    expect(() => new RingBuffer(0)).toThrow(RangeError);
  });
});

describe('Metrics instruments', () => {
  it('records a counter as its increase per step and totals it', () => {
    const m = new Metrics();
    const c = m.counter('tcp.syn.sent');
    c.inc();
    c.inc(4);
    m.sample();
    m.sample();
    c.inc(2);
    m.sample();
    expect(m.series()['tcp.syn.sent']!.values).toEqual([5, 0, 2]);
    expect(c.total).toBe(7);
    expect(m.totals()).toEqual({ 'tcp.syn.sent': 7 });
    expect(() => c.inc(-1)).toThrow(RangeError);
  });

  it('records a gauge as its value at sample time and totals its peak', () => {
    const m = new Metrics();
    const g = m.gauge('hypervisor.conntrack.used');
    g.set(10);
    g.add(5);
    m.sample();
    g.add(-12);
    m.sample();
    expect(g.value).toBe(3);
    expect(g.peak).toBe(15);
    expect(m.series()['hypervisor.conntrack.used']!.values).toEqual([15, 3]);
    expect(m.totals()).toEqual({ 'hypervisor.conntrack.used': 15 });
  });

  it('records a histogram as per-step count, p50 and p99, and 0 for a step without observations', () => {
    const m = new Metrics();
    const h = m.histogram('http.latency', [10, 20, 50, 100]);
    for (let i = 0; i < 4; i++) h.observe(5);
    m.sample();
    m.sample();
    for (let i = 0; i < 100; i++) h.observe(i < 50 ? 15 : 75);
    h.observe(1000);
    m.sample();
    const s = m.series();
    expect(s['http.latency.count']!.values).toEqual([4, 0, 101]);
    // 4 observations all in [0, 10]: the median sits halfway up the bucket.
    expect(s['http.latency.p50']!.values[0]).toBe(5);
    expect(s['http.latency.p50']!.values[1]).toBe(0);
    // Rank 50.5 of 101 falls just into the (50, 100] bucket: 50 + 50 * 0.5/50.
    expect(s['http.latency.p50']!.values[2]).toBeCloseTo(50.5, 9);
    // Rank 99.99 lands in (50, 100] too.
    expect(s['http.latency.p99']!.values[2]).toBeCloseTo(50 + (50 * (99.99 - 50)) / 50, 9);
    expect(h.count).toBe(105);
    expect(h.quantile(1)).toBe(100);
    expect(h.quantile(0)).toBe(0);
    // Cumulative buckets, as Prometheus's `le`; the one observation above every bound shows only in the count.
    expect(m.totals()).toEqual({
      'http.latency.count': 105,
      'http.latency.le_10': 4,
      'http.latency.le_20': 54,
      'http.latency.le_50': 54,
      'http.latency.le_100': 104,
    });
    expect(() => h.observe(Number.NaN)).toThrow(RangeError);
    expect(() => h.quantile(1.5)).toThrow(RangeError);
  });

  it('interpolates quantiles within buckets the way Prometheus does', () => {
    const counts = new Float64Array([0, 10, 0, 0]);
    expect(bucketQuantile(0.5, [1, 2, 4], counts, 10)).toBe(1.5);
    expect(bucketQuantile(0.5, [1, 2, 4], new Float64Array([0, 0, 0, 3]), 3)).toBe(4);
    expect(bucketQuantile(0.5, [-5, 5], new Float64Array([2, 0, 0]), 2)).toBe(-5);
    expect(bucketQuantile(0.9, [1], new Float64Array(2), 0)).toBe(0);
  });

  it('rejects invalid bucket bounds and conflicting kinds', () => {
    const m = new Metrics();
    expect(() => m.histogram('h', [1, 1])).toThrow(RangeError);
    expect(() => m.histogram('h', [1, Infinity])).toThrow(RangeError);
    m.counter('x');
    expect(() => m.gauge('x')).toThrow(/is a counter/);
    m.histogram('lat', [1, 2]);
    expect(() => m.histogram('lat', [1, 3])).toThrow(/other buckets/);
  });
});

describe('Metrics keys and labels', () => {
  it('returns the same instrument for the same name and labels, in any key order', () => {
    const m = new Metrics();
    const a = m.counter('lb.requests.failed', { pool: 'web', reason: 'reset' });
    const b = m.counter('lb.requests.failed', { reason: 'reset', pool: 'web' });
    expect(a).toBe(b);
    expect(m.counter('lb.requests.failed')).not.toBe(a);
    expect(m.counter('plain', {})).toBe(m.counter('plain'));
    expect(m.seriesNames()).toEqual(['lb.requests.failed', 'lb.requests.failed{pool=web,reason=reset}', 'plain']);
  });

  it('puts histogram suffixes on the name, before the labels, in series and totals alike', () => {
    const m = new Metrics();
    m.histogram('dns.latency', [1, 2], { server: 'nodelocal' }).observe(0.5);
    expect(m.seriesNames()).toEqual([
      'dns.latency.count{server=nodelocal}',
      'dns.latency.le_1{server=nodelocal}',
      'dns.latency.le_2{server=nodelocal}',
      'dns.latency.p50{server=nodelocal}',
      'dns.latency.p99{server=nodelocal}',
    ]);
    expect(m.totals()).toEqual({ 'dns.latency.count{server=nodelocal}': 1, 'dns.latency.le_1{server=nodelocal}': 1 });
  });

  it('records each bucket per step, cumulative like Prometheus le, summing to the report totals', () => {
    const m = new Metrics();
    const h = m.histogram('switchover_s', [30, 60, 90]);
    for (const v of [29, 31, 58]) h.observe(v);
    m.sample();
    for (const v of [61, 95]) h.observe(v);
    m.sample();
    const series = m.series();
    expect(series['switchover_s.le_30']!.values).toEqual([1, 0]);
    expect(series['switchover_s.le_60']!.values).toEqual([3, 0]);
    expect(series['switchover_s.le_90']!.values).toEqual([3, 1]);
    expect(series['switchover_s.count']!.values).toEqual([3, 2]);
    const totals = m.totals();
    for (const b of [30, 60, 90]) {
      expect(totals[`switchover_s.le_${b}`]).toBe(series[`switchover_s.le_${b}`]!.values.reduce((x, y) => x + y, 0));
    }
  });

  it('folds label sets beyond the cap into name{_other=true}', () => {
    const m = new Metrics({ maxLabelValues: 2 });
    const a = m.counter('flows', { port: '1' });
    const b = m.counter('flows', { port: '2' });
    const c = m.counter('flows', { port: '3' });
    const d = m.counter('flows', { port: '4' });
    expect(new Set([a, b, c]).size).toBe(3);
    expect(d).toBe(c);
    expect(m.counter('flows', { port: '1' })).toBe(a);
    c.inc();
    d.inc();
    expect(m.totals()).toEqual({ 'flows{_other=true}': 2, 'flows{port=1}': 0, 'flows{port=2}': 0 });
    expect(m.counter('other.name', { port: '9' })).not.toBe(c);
  });
});

describe('Metrics series', () => {
  it('wraps rings at capacity and clamps seriesSince to the oldest held sample', () => {
    const m = new Metrics({ capacity: 3, stepUs: millis(500) });
    expect(m.stepSeconds).toBe(0.5);
    const g = m.gauge('g');
    for (let i = 1; i <= 5; i++) {
      g.set(i * 10);
      m.sample();
    }
    expect(m.sampleCount()).toBe(5);
    expect(m.series()).toEqual({ g: { stepSeconds: 0.5, values: [30, 40, 50] } });
    const w = m.seriesSince(0);
    expect([w.from, w.count, Array.from(w.values)]).toEqual([2, 3, [30, 40, 50]]);
    const tail = m.seriesSince(4);
    expect([tail.from, tail.count, Array.from(tail.values)]).toEqual([4, 1, [50]]);
    const none = m.seriesSince(9);
    expect([none.from, none.count, none.values.length]).toEqual([5, 0, 0]);
  });

  it('lays seriesSince out row-major by sorted name and pads series created late with zeros', () => {
    const m = new Metrics();
    const b = m.gauge('b');
    b.set(1);
    m.sample();
    const a = m.counter('a');
    a.inc(3);
    b.set(2);
    m.sample();
    const w = m.seriesSince(0);
    expect(w.names).toEqual(['a', 'b']);
    expect(w.count).toBe(2);
    expect(Array.from(w.values)).toEqual([0, 3, 1, 2]);
    expect(w.stepSeconds).toBe(1);
    expect(m.series()).toEqual({
      a: { stepSeconds: 1, values: [0, 3] },
      b: { stepSeconds: 1, values: [1, 2] },
    });
  });
});
