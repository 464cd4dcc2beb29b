import type { RingBuffer } from './ring-buffer';

export interface Counter {
  inc(n?: number): void;
  readonly total: number;
}

export interface Gauge {
  set(v: number): void;
  add(d: number): void;
  readonly value: number;
  /** Highest value held so far (gauges start at 0). */
  readonly peak: number;
}

export interface Histogram {
  observe(v: number): void;
  readonly count: number;
  /** Quantile over every observation so far, interpolated within buckets; 0 when empty. */
  quantile(q: number): number;
}

/** What Metrics needs from every instrument: record one sample into its series, report its total. */
export interface Instrument {
  readonly kind: 'counter' | 'gauge' | 'histogram';
  record(): void;
  addTotals(into: Record<string, number>): void;
}

export class CounterImpl implements Counter, Instrument {
  readonly kind = 'counter';
  total = 0;
  private atLastSample = 0;

  constructor(
    private readonly key: string,
    private readonly ring: RingBuffer,
  ) {}

  inc(n = 1): void {
    if (!(n >= 0)) throw new RangeError(`counter ${this.key} cannot increase by ${n}`);
    this.total += n;
  }

  record(): void {
    this.ring.push(this.total - this.atLastSample);
    this.atLastSample = this.total;
  }

  addTotals(into: Record<string, number>): void {
    into[this.key] = this.total;
  }
}

export class GaugeImpl implements Gauge, Instrument {
  readonly kind = 'gauge';
  value = 0;
  peak = 0;

  constructor(
    private readonly key: string,
    private readonly ring: RingBuffer,
  ) {}

  set(v: number): void {
    this.value = v;
    if (v > this.peak) this.peak = v;
  }

  add(d: number): void {
    this.set(this.value + d);
  }

  record(): void {
    this.ring.push(this.value);
  }

  addTotals(into: Record<string, number>): void {
    into[this.key] = this.peak;
  }
}

export class HistogramImpl implements Histogram, Instrument {
  readonly kind = 'histogram';
  count = 0;
  /** Per bucket: observations <= bounds[i]; the last bucket holds those above every bound. */
  private readonly all: Float64Array;
  private readonly step: Float64Array;
  private stepCount = 0;

  constructor(
    readonly bounds: readonly number[],
    private readonly countKey: string,
    private readonly countRing: RingBuffer,
    private readonly p50Ring: RingBuffer,
    private readonly p99Ring: RingBuffer,
    /** Per bound, observations <= it during each step: what a live histogram chart sums. */
    private readonly bucketRings: readonly RingBuffer[],
  ) {
    this.all = new Float64Array(bounds.length + 1);
    this.step = new Float64Array(bounds.length + 1);
  }

  observe(v: number): void {
    if (v !== v) throw new RangeError(`histogram ${this.countKey} cannot observe NaN`);
    const bounds = this.bounds;
    let lo = 0;
    let hi = bounds.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (v <= bounds[mid]!) hi = mid;
      else lo = mid + 1;
    }
    this.all[lo]!++;
    this.step[lo]!++;
    this.count++;
    this.stepCount++;
  }

  quantile(q: number): number {
    return bucketQuantile(q, this.bounds, this.all, this.count);
  }

  record(): void {
    this.countRing.push(this.stepCount);
    this.p50Ring.push(bucketQuantile(0.5, this.bounds, this.step, this.stepCount));
    this.p99Ring.push(bucketQuantile(0.99, this.bounds, this.step, this.stepCount));
    let cumulative = 0;
    for (let i = 0; i < this.bucketRings.length; i++) {
      cumulative += this.step[i]!;
      this.bucketRings[i]!.push(cumulative);
    }
    this.step.fill(0);
    this.stepCount = 0;
  }

  /** The count, and cumulative buckets as Prometheus's `le` (`name.le_30`: observations <= 30) up to the last one used. */
  addTotals(into: Record<string, number>): void {
    into[this.countKey] = this.count;
    if (this.count === 0) return;
    // `name.count{labels}`: the bucket keys put their suffix before the labels too, as the series keys do.
    const brace = this.countKey.indexOf('{');
    const labels = brace < 0 ? '' : this.countKey.slice(brace);
    const base = this.countKey.slice(0, brace < 0 ? undefined : brace).slice(0, -'.count'.length);
    let cumulative = 0;
    for (let i = 0; i < this.bounds.length && cumulative < this.count; i++) {
      cumulative += this.all[i]!;
      into[`${base}.le_${this.bounds[i]}${labels}`] = cumulative;
    }
  }
}

/**
 * Linear interpolation inside the bucket holding the q-th observation, with 0 as the lower edge of
 * the first bucket and the highest finite bound for the overflow bucket, as Prometheus's
 * histogram_quantile does (prometheus/promql/quantile.go, bucketQuantile).
 */
export function bucketQuantile(q: number, bounds: readonly number[], counts: Float64Array, total: number): number {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile must be in [0, 1], got ${q}`);
  if (total === 0 || bounds.length === 0) return 0;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < bounds.length; i++) {
    const inBucket = counts[i]!;
    if (inBucket > 0 && below + inBucket >= rank) {
      const upper = bounds[i]!;
      const lower = i === 0 ? Math.min(0, upper) : bounds[i - 1]!;
      return lower + ((upper - lower) * (rank - below)) / inBucket;
    }
    below += inBucket;
  }
  return bounds[bounds.length - 1]!;
}
