import { describe, expect, it } from 'vitest';
import { compareProblem, fixesForB } from '../../src/state/fix-selection';
import { SeriesBuffer } from '../../src/state/series-buffer';
import { DEFAULT_FILTER, kindsOf, matchesFilter } from '../../src/ui/events/event-filter';
import { changeText, diffSummary, ratio } from '../../src/ui/timeline/diff-summary';
import { checkNewChart } from '../../src/ui/timeline/new-chart';
import { clockLabel, fullDomain, nudgeCursor, sampleIndexAt, timeAtPixel, toSeekUs, viewDomain, WINDOW_S, zoomFromPixels } from '../../src/ui/timeline/time-scale';
import type { FaultDescriptor, LogEvent } from '../../src/sim/api';
import type { SimTime } from '../../src/sim/core/time';

function buffer(series: Record<string, number[]>, from = 0): SeriesBuffer {
  const names = Object.keys(series);
  const count = series[names[0]!]!.length;
  const values = new Float64Array(names.flatMap((n) => series[n]!));
  const b = new SeriesBuffer();
  b.append({ names, stepSeconds: 1, from, count, values });
  return b;
}

describe('the shared time scale', () => {
  it('shows a short run whole and a long one as a trailing window', () => {
    expect(fullDomain(60, 12)).toEqual([0, 60]);
    expect(fullDomain(900, 100)).toEqual([0, WINDOW_S]);
    expect(fullDomain(900, 500)).toEqual([500 - WINDOW_S, 500]);
    expect(viewDomain(60, 12, [10, 20])).toEqual([10, 20]);
  });

  it('maps pixels to times the same way in every chart, clamped to the plot', () => {
    expect(timeAtPixel(250, 1000, [0, 60])).toBe(15);
    expect(timeAtPixel(-5, 1000, [10, 20])).toBe(10);
    expect(timeAtPixel(2000, 1000, [10, 20])).toBe(20);
  });

  it('turns a brush into a zoom inside the run, and a too-narrow one into nothing', () => {
    expect(zoomFromPixels(500, 250, 1000, [0, 60], 60)).toEqual([15, 30]);
    expect(zoomFromPixels(0, 1000, 1000, [30, 90], 60)).toEqual([30, 60]);
    expect(zoomFromPixels(100, 105, 1000, [0, 60], 60)).toBeNull();
  });

  it('jumps on the clock’s 0.1 s grid and never outside the run', () => {
    expect(toSeekUs(12.34, 60)).toBe(12_300_000);
    expect(toSeekUs(-3, 60)).toBe(0);
    expect(toSeekUs(75, 60)).toBe(60_000_000);
  });

  it('moves the crosshair sample by sample, within the view and the recorded samples', () => {
    expect(nudgeCursor(null, 1, 1, [0, 60], 30)).toBe(30);
    expect(nudgeCursor(10, 1, 1, [0, 60], 30)).toBe(11);
    expect(nudgeCursor(10.4, -1, 1, [0, 60], 30)).toBe(10);
    expect(nudgeCursor(10.4, 1, 1, [0, 60], 30)).toBe(11);
    expect(nudgeCursor(30, 1, 1, [0, 60], 30)).toBe(30);
    expect(nudgeCursor(1, -1, 1, [0, 60], 30)).toBe(1);
    expect(nudgeCursor(21, 1, 1, [10, 20], 30)).toBe(20);
  });

  it('reads the sample that ends at the crosshair', () => {
    expect(sampleIndexAt(1, 1)).toBe(0);
    expect(sampleIndexAt(21, 1)).toBe(20);
    expect(sampleIndexAt(0.2, 1)).toBe(0);
    expect(clockLabel(65.4)).toBe('1:05');
  });
});

describe('the A/B summary', () => {
  const charts = [
    { title: 'SYNs', kind: 'rate' as const, series: [{ metric: 'tcp.syn.sent', label: 'SYNs sent' }] },
    { title: 'Tracked', kind: 'level' as const, series: [{ metric: 'conntrack{instance=*}', label: 'instance' }] },
    { title: 'Latency', kind: 'histogram' as const, series: [{ metric: 'lat', label: 'lat' }] },
  ];

  it('totals rates and takes peaks of levels over the samples both runs have', () => {
    const a = buffer({ 'tcp.syn.sent': [10, 20, 30, 40], 'conntrack{instance=a}': [1, 5, 2, 9], 'conntrack{instance=b}': [7, 0, 0, 0] });
    const b = buffer({ 'tcp.syn.sent': [1, 2, 3], 'conntrack{instance=a}': [1, 1, 1], 'conntrack{instance=b}': [2, 2, 2] });
    const summary = diffSummary(charts, a, b);
    expect(summary).toMatchObject({ from: 0, to: 3 });
    expect(summary.rows).toEqual([
      { label: 'SYNs sent', agg: 'total', a: 60, b: 6 },
      { label: 'Tracked: instance (any)', agg: 'peak', a: 7, b: 2 },
    ]);
  });

  it('has no rows while either run has no samples', () => {
    expect(diffSummary(charts, buffer({ 'tcp.syn.sent': [1] }), new SeriesBuffer()).rows).toEqual([]);
  });

  it('says the change in words and numbers', () => {
    expect(changeText(100, 3)).toBe('−97 %');
    expect(changeText(100, 105)).toBe('+5.0 %');
    expect(changeText(0, 0)).toBe('same');
    expect(changeText(0, 4)).toBe('none in A');
    expect(ratio(200, 50)).toBe(0.25);
    expect(ratio(0, 50)).toBeNull();
  });

  it('toggles the chosen fix for run B', () => {
    const fixes = [
      { name: 'x', description: '', rollout: null },
      { name: 'y', description: '', rollout: null },
    ];
    expect(fixesForB(fixes, [], 'y')).toEqual({ fixes: ['y'], on: true });
    expect(fixesForB(fixes, ['x', 'y'], 'x')).toEqual({ fixes: ['y'], on: false });
  });

  it("names what keeps a link's compare from starting: an unknown fix, a branch past the end, one A has, one a rollout cannot take", () => {
    const summary = {
      id: 'its-not-dns',
      title: '',
      description: '',
      seed: 7,
      durationSeconds: 210,
      chapters: [],
      charts: [],
      fixes: [
        { name: 'default-backoff', description: '', rollout: null },
        { name: 'bigger-instance', description: '', rollout: 'params.instance.conntrackAllowance is not a gRPC client’s pod template' },
      ],
    };
    const catalog = [{ id: 'delete-pod', label: 'Delete pod' }] as FaultDescriptor[];
    expect(compareProblem(summary, catalog, [], { fix: 'default-backoff', branchS: 60 })).toBeNull();
    expect(compareProblem(summary, catalog, [], { fix: 'bigger-instance' })).toBeNull();
    expect(compareProblem(summary, catalog, [], { fix: 'nope' })).toBe('compare: unknown fix "nope" for scenario its-not-dns (available: default-backoff, bigger-instance)');
    expect(compareProblem(summary, catalog, [], { fix: 'default-backoff', branchS: 300 })).toBe('branch: its-not-dns runs 210 s; the link asks for run B to part at 300 s');
    expect(compareProblem(summary, catalog, ['default-backoff'], { fix: 'default-backoff', branchS: 60 })).toBe('branch: run A has fix default-backoff already, so B cannot roll it out');
    expect(compareProblem(summary, catalog, [], { fix: 'bigger-instance', branchS: 60 })).toBe(
      'branch: fix bigger-instance cannot be rolled out while the run goes on: params.instance.conntrackAllowance is not a gRPC client’s pod template',
    );
    const deletePod = { fault: 'delete-pod', target: 'pod/web-1', params: {} };
    expect(compareProblem(summary, catalog, [], { fault: deletePod, branchS: 60 })).toBeNull();
    expect(compareProblem(summary, catalog, [], { fault: { ...deletePod, fault: 'melt-pod' }, branchS: 60 })).toBe('bfault: unknown fault "melt-pod" (known: delete-pod)');
    expect(compareProblem(summary, catalog, [], { fault: deletePod, branchS: 211 })).toBe('branch: its-not-dns runs 210 s; the link asks for run B to part at 211 s');
  });
});

describe('added charts and the event filter', () => {
  it('accepts only recorded series, naming the field', () => {
    expect(checkNewChart(' ', 'rate', ['a'])).toEqual({ ok: false, message: 'metric: pick a series the run has recorded' });
    expect(checkNewChart('b', 'rate', ['a'])).toEqual({ ok: false, message: 'metric: "b" is not a series this run has recorded' });
    expect(checkNewChart('a', 'histogram', ['a'])).toEqual({ ok: false, message: 'kind: expected rate or level' });
    expect(checkNewChart('a', 'level', ['a'])).toEqual({ ok: true, spec: { title: 'a', kind: 'level', series: [{ metric: 'a', label: 'a' }] } });
  });

  it('filters by entity text, kind and least severity', () => {
    const e = (entity: string, kind: string, severity: LogEvent['severity']): LogEvent => ({ seq: 0, t: 0 as SimTime, entity, kind, severity, message: '' });
    const events = [e('pod/web-0', 'pod.deleted', 'warn'), e('node/node-a', 'drop', 'debug'), e('pod/client-1', 'tcp.reset', 'error')];
    expect(events.filter((x) => matchesFilter(x, DEFAULT_FILTER)).map((x) => x.entity)).toEqual(['pod/web-0', 'pod/client-1']);
    expect(events.filter((x) => matchesFilter(x, { ...DEFAULT_FILTER, entity: 'WEB' })).map((x) => x.entity)).toEqual(['pod/web-0']);
    expect(events.filter((x) => matchesFilter(x, { ...DEFAULT_FILTER, minSeverity: 'debug', kind: 'drop' }))).toHaveLength(1);
    expect(events.filter((x) => matchesFilter(x, { ...DEFAULT_FILTER, minSeverity: 'error' })).map((x) => x.kind)).toEqual(['tcp.reset']);
    expect(kindsOf(events)).toEqual(['drop', 'pod.deleted', 'tcp.reset']);
  });
});
