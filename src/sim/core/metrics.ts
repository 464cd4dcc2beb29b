import type { SeriesReport, SeriesSlice } from '../api';
import { RingBuffer } from './ring-buffer';
import { seconds, US_PER_S, type Duration } from './time';
import { CounterImpl, GaugeImpl, HistogramImpl, type Counter, type Gauge, type Histogram, type Instrument } from './instruments';

export type { Counter, Gauge, Histogram } from './instruments';
export { bucketQuantile } from './instruments';

export type Labels = Readonly<Record<string, string>>;

export interface MetricsOptions {
  /** Sampling step; default 1 s. */
  stepUs?: Duration;
  /** Samples kept per series; default 3600 (an hour at the default step). */
  capacity?: number;
  /** Distinct label sets per metric name before they fold into `name{_other=true}`; default 256. */
  maxLabelValues?: number;
}

const OTHER_LABELS = '{_other=true}';

interface Series {
  name: string;
  ring: RingBuffer;
  /** Global sample index at which this series recorded its first value. */
  start: number;
}

/**
 * Counters, gauges and histograms, sampled by the simulation once per fixed step into bounded rings.
 *
 * Keys: `name` without labels, `name{a=1,b=2}` with labels (keys sorted). Each metric name keeps at most
 * `maxLabelValues` distinct label sets; any further set shares the single key `name{_other=true}`, so
 * a label fed by an unbounded value (a flow id, a port) cannot grow memory without limit.
 *
 * Series recorded per sample:
 *   counter    `key`                          increase during the step
 *   gauge      `key`                          value at sample time
 *   histogram  `name.count{…}`                observations during the step
 *              `name.p50{…}`, `name.p99{…}`   quantiles of the step's observations (0 when there were none)
 *              `name.le_B{…}` per bound B     observations <= B during the step (Prometheus's cumulative `le`)
 * A series created after sampling began reads 0 for the samples before it existed.
 */
export class Metrics {
  readonly stepSeconds: number;
  private readonly capacity: number;
  private readonly maxLabelValues: number;
  private samples = 0;
  private readonly instruments = new Map<string, Instrument & (Counter | Gauge | Histogram)>();
  private readonly recorders: Instrument[] = [];
  private readonly labelSets = new Map<string, Set<string>>();
  private readonly seriesByName = new Map<string, Series>();
  private sortedSeries: Series[] | undefined;

  constructor(opts: MetricsOptions = {}) {
    const stepUs = opts.stepUs ?? seconds(1);
    const capacity = opts.capacity ?? 3600;
    const maxLabelValues = opts.maxLabelValues ?? 256;
    if (!(stepUs > 0)) throw new RangeError(`stepUs must be positive, got ${stepUs}`);
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer`);
    if (!Number.isInteger(maxLabelValues) || maxLabelValues < 0) {
      throw new RangeError(`maxLabelValues must be a non-negative integer`);
    }
    this.stepSeconds = stepUs / US_PER_S;
    this.capacity = capacity;
    this.maxLabelValues = maxLabelValues;
  }

  counter(name: string, labels?: Labels): Counter {
    const key = this.key(name, labels);
    const existing = this.lookup(key, 'counter');
    if (existing) return existing as CounterImpl;
    const c = new CounterImpl(key, this.addSeries(key));
    this.adopt(key, c);
    return c;
  }

  gauge(name: string, labels?: Labels): Gauge {
    const key = this.key(name, labels);
    const existing = this.lookup(key, 'gauge');
    if (existing) return existing as GaugeImpl;
    const g = new GaugeImpl(key, this.addSeries(key));
    this.adopt(key, g);
    return g;
  }

  /** bucketBounds: strictly increasing upper bounds (an observation v lands in the first bucket with v <= bound). */
  histogram(name: string, bucketBounds: readonly number[], labels?: Labels): Histogram {
    const key = this.key(name, labels);
    const existing = this.lookup(key, 'histogram');
    if (existing) {
      const h = existing as HistogramImpl;
      if (!sameBounds(h.bounds, bucketBounds)) throw new Error(`histogram ${key} already exists with other buckets`);
      return h;
    }
    for (let i = 0; i < bucketBounds.length; i++) {
      const b = bucketBounds[i]!;
      if (!Number.isFinite(b) || (i > 0 && !(b > bucketBounds[i - 1]!))) {
        throw new RangeError(`histogram ${key}: bucket bounds must be finite and strictly increasing`);
      }
    }
    const labelPart = key.slice(name.length);
    const h = new HistogramImpl(
      [...bucketBounds],
      `${name}.count${labelPart}`,
      this.addSeries(`${name}.count${labelPart}`),
      this.addSeries(`${name}.p50${labelPart}`),
      this.addSeries(`${name}.p99${labelPart}`),
      bucketBounds.map((b) => this.addSeries(`${name}.le_${b}${labelPart}`)),
    );
    this.adopt(key, h);
    return h;
  }

  /** Records one sample in every series; the simulation calls it at each step boundary. */
  sample(): void {
    const recorders = this.recorders;
    for (let i = 0; i < recorders.length; i++) recorders[i]!.record();
    this.samples++;
  }

  /** Samples recorded in total; rings keep only the latest `capacity`. */
  sampleCount(): number {
    return this.samples;
  }

  seriesNames(): string[] {
    return this.sorted().map((s) => s.name);
  }

  /** Samples from index `from` (clamped to the oldest still held) to the latest, row-major by series name. */
  seriesSince(from: number): SeriesSlice {
    const oldest = Math.max(0, this.samples - this.capacity);
    const start = Math.min(Math.max(Math.floor(from) || 0, oldest), this.samples);
    const count = this.samples - start;
    const series = this.sorted();
    const values = new Float64Array(series.length * count);
    for (let i = 0; i < series.length; i++) {
      const s = series[i]!;
      s.ring.copyRange(start - s.start, count, values, i * count);
    }
    return { names: series.map((s) => s.name), stepSeconds: this.stepSeconds, from: start, count, values };
  }

  /** Every held sample of every series, keys sorted. */
  series(): Record<string, SeriesReport> {
    const held = this.seriesSince(0);
    const out: Record<string, SeriesReport> = {};
    for (let i = 0; i < held.names.length; i++) {
      const row = held.values.subarray(i * held.count, (i + 1) * held.count);
      out[held.names[i]!] = { stepSeconds: this.stepSeconds, values: Array.from(row) };
    }
    return out;
  }

  /** Counters: total; gauges: peak; histograms: `name.count{…}` total. Keys sorted. */
  totals(): Record<string, number> {
    const all: Record<string, number> = {};
    for (const r of this.recorders) r.addTotals(all);
    const out: Record<string, number> = {};
    for (const k of Object.keys(all).sort()) out[k] = all[k]!;
    return out;
  }

  private key(name: string, labels: Labels | undefined): string {
    if (!labels) return name;
    const keys = Object.keys(labels);
    if (keys.length === 0) return name;
    keys.sort();
    const labelPart = `{${keys.map((k) => `${k}=${labels[k]}`).join(',')}}`;
    let seen = this.labelSets.get(name);
    if (!seen) {
      seen = new Set();
      this.labelSets.set(name, seen);
    }
    if (!seen.has(labelPart)) {
      if (seen.size >= this.maxLabelValues) return name + OTHER_LABELS;
      seen.add(labelPart);
    }
    return name + labelPart;
  }

  private lookup(key: string, kind: Instrument['kind']): Instrument | undefined {
    const existing = this.instruments.get(key);
    if (existing && existing.kind !== kind) throw new Error(`metric ${key} is a ${existing.kind}, not a ${kind}`);
    return existing;
  }

  private adopt(key: string, instrument: Instrument & (Counter | Gauge | Histogram)): void {
    this.instruments.set(key, instrument);
    this.recorders.push(instrument);
  }

  private addSeries(name: string): RingBuffer {
    if (this.seriesByName.has(name)) throw new Error(`series ${name} already exists`);
    const ring = new RingBuffer(this.capacity);
    this.seriesByName.set(name, { name, ring, start: this.samples });
    this.sortedSeries = undefined;
    return ring;
  }

  private sorted(): Series[] {
    if (!this.sortedSeries) {
      const byName = (a: Series, b: Series) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
      this.sortedSeries = [...this.seriesByName.values()].sort(byName);
    }
    return this.sortedSeries;
  }
}

function sameBounds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
