import { describe, expect, it } from 'vitest';
import { Scheduler, type HandlerId } from '../../src/sim/core/scheduler';
import { mix32 } from '../../src/sim/core/rng';
import type { Duration, SimTime } from '../../src/sim/core/time';

const T = (us: number) => us as SimTime;
const D = (us: number) => us as Duration;

/** A scheduler with one handler that records (a, now) for every event it runs. */
function recording(initialCapacity?: number) {
  const s = new Scheduler(initialCapacity);
  const log: [number, number][] = [];
  const h = s.register('record', (a) => log.push([a, s.now]));
  return { s, h, log };
}

describe('Scheduler ordering', () => {
  it('runs events in time order and moves the clock to each', () => {
    const { s, h, log } = recording();
    s.at(T(30), h, 3);
    s.at(T(10), h, 1);
    s.at(T(20), h, 2);
    expect(s.pending).toBe(3);
    expect(s.runUntil(T(100))).toBe(3);
    expect(log).toEqual([
      [1, 10],
      [2, 20],
      [3, 30],
    ]);
    expect(s.now).toBe(100);
    expect(s.executed).toBe(3);
    expect(s.pending).toBe(0);
  });

  it('runs equal times in insertion order, both at now and in the future, for small and large groups', () => {
    for (const n of [2, 5, 33, 500]) {
      const { s, h, log } = recording();
      // Interleaved so the heap has to reorder; the odd ids (time 0 = now) go straight to the FIFO.
      for (let i = 0; i < n; i++) s.at(T(i % 2 === 0 ? 7 : 0), h, i);
      const ids = [...Array(n).keys()];
      const expected = [...ids.filter((i) => i % 2 === 1), ...ids.filter((i) => i % 2 === 0)];
      s.runUntil(T(7));
      expect(log.map(([a]) => a)).toEqual(expected);
    }
  });

  it('passes both arguments to the handler', () => {
    const s = new Scheduler();
    const seen: number[][] = [];
    const h = s.register('pair', (a, b) => seen.push([a, b]));
    s.at(T(1), h, 4, 2.5);
    s.at(T(2), h);
    s.runUntil(T(2));
    expect(seen).toEqual([
      [4, 2.5],
      [0, 0],
    ]);
  });

  it('runs events a handler schedules for the current time in the same pass, after those already due', () => {
    const s = new Scheduler();
    const order: string[] = [];
    const child = s.register('child', (a) => order.push(`child${a}@${s.now}`));
    const parent = s.register('parent', (a) => {
      order.push(`parent${a}@${s.now}`);
      s.after(D(0), child, a);
      s.at(s.now, child, a + 10);
    });
    const plain = s.register('plain', (a) => order.push(`plain${a}@${s.now}`));
    s.at(T(5), parent, 1);
    s.at(T(5), plain, 2);
    s.at(T(6), plain, 3);
    expect(s.runUntil(T(5))).toBe(4);
    expect(order).toEqual(['parent1@5', 'plain2@5', 'child1@5', 'child11@5']);
    expect(s.pending).toBe(1);
  });

  it('lets a handler schedule into the future, including several events, and nothing at all', () => {
    const s = new Scheduler();
    const order: number[] = [];
    const leaf = s.register('leaf', (a) => order.push(a));
    const fan = s.register('fan', () => {
      order.push(0);
      s.after(D(3), leaf, 3);
      s.after(D(1), leaf, 1);
      s.after(D(2), leaf, 2);
    });
    s.at(T(10), fan);
    s.at(T(20), leaf, 20);
    s.runUntil(T(100));
    expect(order).toEqual([0, 1, 2, 3, 20]);
  });
});

describe('Scheduler cancel', () => {
  it('cancels pending events once and reports stale handles', () => {
    const { s, h, log } = recording();
    const a = s.at(T(1), h, 1);
    const b = s.at(T(2), h, 2);
    const c = s.at(T(3), h, 3);
    expect(s.cancel(b)).toBe(true);
    expect(s.cancel(b)).toBe(false);
    expect(s.pending).toBe(2);
    s.runUntil(T(1));
    expect(s.cancel(a)).toBe(false);
    s.runUntil(T(10));
    expect(log.map(([x]) => x)).toEqual([1, 3]);
    expect(s.cancel(c)).toBe(false);
    expect(s.cancel(-1)).toBe(false);
    expect(s.cancel(0.5)).toBe(false);
    expect(s.cancel(Number.NaN)).toBe(false);
  });

  it('does not let an old handle cancel a new event that reuses its slot', () => {
    const { s, h, log } = recording(1);
    const first = s.at(T(1), h, 1);
    s.runUntil(T(1));
    const second = s.at(T(2), h, 2);
    expect(second).not.toBe(first);
    expect(s.cancel(first)).toBe(false);
    s.runUntil(T(2));
    expect(log.map(([x]) => x)).toEqual([1, 2]);
  });

  it('lets a handler cancel a later event, and cancelling the running event is a no-op', () => {
    const s = new Scheduler();
    const order: number[] = [];
    let victim = -1;
    let self = -1;
    const leaf = s.register('leaf', (a) => order.push(a));
    const killer = s.register('killer', () => {
      order.push(0);
      expect(s.cancel(self)).toBe(false);
      expect(s.cancel(victim)).toBe(true);
    });
    self = s.at(T(1), killer);
    victim = s.at(T(1), leaf, 1);
    s.at(T(2), leaf, 2);
    s.runUntil(T(5));
    expect(order).toEqual([0, 2]);
  });

  it('skips cancelled events in nextTime and step', () => {
    const { s, h, log } = recording();
    const a = s.at(T(5), h, 5);
    s.at(T(9), h, 9);
    expect(s.nextTime()).toBe(5);
    s.cancel(a);
    expect(s.nextTime()).toBe(9);
    expect(s.step()).toBe(true);
    expect(s.step()).toBe(false);
    expect(s.nextTime()).toBeUndefined();
    expect(log).toEqual([[9, 9]]);
  });

  it('keeps the queue bounded when most events are cancelled', () => {
    const { s, h, log } = recording();
    const keep: number[] = [];
    for (let round = 0; round < 200; round++) {
      const handles: number[] = [];
      for (let i = 0; i < 100; i++) handles.push(s.at(T(1000 + round * 100 + i), h, round * 100 + i));
      handles.forEach((handle, i) => {
        if (i === 50) keep.push(round * 100 + i);
        else expect(s.cancel(handle)).toBe(true);
      });
    }
    expect(s.pending).toBe(200);
    // Heap entries are compacted once cancelled ones dominate: never far above the live count.
    expect(Reflect.get(s, 'size') as number).toBeLessThan(2 * 200 + 200);
    s.runUntil(T(1_000_000));
    expect(log.map(([a]) => a)).toEqual(keep);
  });
});

describe('Scheduler handles over long runs and large queues', () => {
  it('keeps the handles of long-pending events valid while far more events run', () => {
    const s = new Scheduler();
    const log: number[] = [];
    const far = s.register('far', (a) => log.push(a));
    const first = s.at(T(10 ** 12), far, 1);
    const second = s.at(T(10 ** 12 + 1), far, 2);
    const ticks: number[] = [];
    const tick = s.register('tick', () => {
      if (s.now < 300_000) ticks.push(s.after(D(1), tick));
    });
    ticks.push(s.at(T(0), tick));
    expect(s.runUntil(T(400_000))).toBe(300_001);
    expect(s.cancel(ticks[1_000]!)).toBe(false);
    expect(s.nextTime()).toBe(10 ** 12);
    expect(s.cancel(first)).toBe(true);
    expect(s.cancel(first)).toBe(false);
    expect(s.nextTime()).toBe(10 ** 12 + 1);
    s.runUntil(T(10 ** 13));
    expect(log).toEqual([2]);
    expect(s.cancel(second)).toBe(false);
  });

  it('skips buckets holding only cancelled events in nextTime and step', () => {
    const { s, h, log } = recording();
    const handles: number[] = [];
    for (let i = 0; i < 20_000; i++) handles.push(s.at(T(1_000 + i * 10), h, i));
    expect(Reflect.get(s, 'radix')).toBe(true);
    for (let i = 0; i < 300; i++) expect(s.cancel(handles[i]!)).toBe(true);
    expect(s.nextTime()).toBe(4_000);
    expect(s.step()).toBe(true);
    expect(log).toEqual([[300, 4_000]]);
    expect(s.pending).toBe(20_000 - 301);
  });
});

describe('Scheduler clock and bounds', () => {
  it('runUntil runs events up to and including t, then sets now to t', () => {
    const { s, h, log } = recording();
    s.at(T(10), h, 1);
    s.at(T(20), h, 2);
    s.at(T(21), h, 3);
    expect(s.runUntil(T(20))).toBe(2);
    expect(s.now).toBe(20);
    expect(log.length).toBe(2);
    expect(s.runUntil(T(20))).toBe(0);
    expect(s.runUntil(T(25))).toBe(1);
    expect(s.now).toBe(25);
    expect(s.nextTime()).toBeUndefined();
  });

  it('step runs exactly one event and sets now to its time', () => {
    const { s, h, log } = recording();
    s.at(T(4), h, 1);
    s.at(T(4), h, 2);
    s.at(T(8), h, 3);
    expect(s.step()).toBe(true);
    expect(log).toEqual([[1, 4]]);
    expect(s.step()).toBe(true);
    expect(s.now).toBe(4);
    expect(s.step()).toBe(true);
    expect(s.now).toBe(8);
    expect(s.step()).toBe(false);
    expect(s.now).toBe(8);
  });

  it('after() is relative to now', () => {
    const { s, h, log } = recording();
    s.runUntil(T(100));
    s.after(D(5), h, 1);
    s.runUntil(T(1000));
    expect(log).toEqual([[1, 105]]);
  });

  it('rejects times in the past, fractional times, unknown handlers and a clock going back', () => {
    const { s, h } = recording();
    s.runUntil(T(50));
    expect(() => s.at(T(49), h)).toThrow(RangeError);
    expect(() => s.at(T(50.5), h)).toThrow(RangeError);
    expect(() => s.at(T(Number.NaN), h)).toThrow(RangeError);
    expect(() => s.after(D(-1), h)).toThrow(RangeError);
    expect(() => s.at(T(60), 7 as HandlerId)).toThrow(RangeError);
    expect(() => s.runUntil(T(10))).toThrow(RangeError);
    expect(() => s.runUntil(T(60.5))).toThrow(RangeError);
    expect(s.pending).toBe(0);
  });

  it('refuses to be driven from inside a handler, and stays usable after a handler throws', () => {
    const s = new Scheduler();
    const seen: number[] = [];
    const nested = s.register('nested', () => {
      s.step();
    });
    const boom = s.register('boom', () => {
      throw new Error('boom');
    });
    const ok = s.register('ok', (a) => seen.push(a));
    s.at(T(1), nested);
    s.at(T(2), boom);
    s.at(T(3), ok, 3);
    expect(() => s.step()).toThrow(/inside an event handler/);
    expect(() => s.runUntil(T(10))).toThrow('boom');
    expect(s.now).toBe(2);
    expect(s.runUntil(T(10))).toBe(1);
    expect(seen).toEqual([3]);
    expect(s.executed).toBe(3);
  });

  it('accepts at most 1024 handlers', () => {
    const s = new Scheduler();
    for (let i = 0; i < 1024; i++) s.register(`h${i}`, () => {});
    expect(() => s.register('one too many', () => {})).toThrow(RangeError);
    expect(s.handlerName(1023 as HandlerId)).toBe('h1023');
  });

  it('grows far beyond its initial capacity and keeps order', () => {
    const { s, h, log } = recording(2);
    const n = 5000;
    for (let i = 0; i < n; i++) s.at(T(mix32(i) % 1000), h, i);
    expect(s.pending).toBe(n);
    s.runUntil(T(1000));
    expect(log.length).toBe(n);
    for (let k = 1; k < n; k++) {
      const [pa, pt] = log[k - 1]!;
      const [ca, ct] = log[k]!;
      expect(pt < ct || (pt === ct && pa < ca)).toBe(true);
    }
  });
});

/** The oracle: live events kept sorted by (time, seq) with binary-search insertion. */
class ReferenceQueue {
  now = 0;
  private sorted: { time: number; seq: number; id: number; live: boolean }[] = [];
  private all: { time: number; seq: number; id: number; live: boolean }[] = [];

  constructor(private readonly onRun: (id: number) => void) {}

  at(time: number, id: number): number {
    const e = { time, seq: this.all.length, id, live: true };
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = this.sorted[mid]!;
      if (m.time < time || (m.time === time && m.seq < e.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.sorted.splice(lo, 0, e);
    this.all.push(e);
    return this.all.length - 1;
  }

  cancel(handle: number): boolean {
    const e = this.all[handle];
    if (!e || !e.live) return false;
    e.live = false;
    return true;
  }

  runUntil(t: number): void {
    for (;;) {
      const first = this.sorted[0];
      if (!first || first.time > t) break;
      this.sorted.shift();
      if (!first.live) continue;
      first.live = false;
      this.now = first.time;
      this.onRun(first.id);
    }
    this.now = t;
  }

  step(): boolean {
    for (let first = this.sorted.shift(); first; first = this.sorted.shift()) {
      if (!first.live) continue;
      first.live = false;
      this.now = first.time;
      this.onRun(first.id);
      return true;
    }
    return false;
  }

  nextTime(): number | undefined {
    return this.sorted.find((e) => e.live)?.time;
  }
}

interface Engine {
  at(time: number, id: number): number;
  cancel(handle: number): boolean;
  runUntil(t: number): void;
  step(): boolean;
  nextTime(): number | undefined;
  readonly now: number;
}

/**
 * A deterministic program: every event, when run, schedules children and cancels earlier events as
 * dictated by a hash of (seed, id). Run against any engine, it yields the trace of (id, time).
 */
function runProgram(seed: number, makeEngine: (onRun: (id: number) => void) => Engine, initial = 200, maxEvents = 3000): string[] {
  const trace: string[] = [];
  const handles: number[] = [];
  let nextId = 0;
  let rnd = mix32(seed);
  const draw = (n: number) => {
    rnd = mix32(rnd + 0x9e3779b9);
    return rnd % n;
  };
  const delays = [0, 0, 1, 1, 2, 5, 13, 40];
  const schedule = (time: number) => {
    const id = nextId++;
    handles[id] = engine.at(time, id);
  };
  const engine = makeEngine((id) => {
    trace.push(`${id}@${engine.now}`);
    if (nextId < maxEvents) {
      const children = draw(4);
      for (let c = 0; c < children; c++) schedule(engine.now + delays[draw(delays.length)]!);
    }
    if (draw(3) === 0 && nextId > 0) trace.push(`cancel ${engine.cancel(handles[draw(nextId)]!)}`);
  });
  for (let i = 0; i < initial; i++) schedule(draw(60 * Math.ceil(initial / 200)));
  let t = 0;
  while (t < 10_000) {
    t += draw(25);
    engine.runUntil(t);
    if (draw(4) === 0) schedule(t + draw(30));
  }
  return trace;
}

function ours(onRun: (id: number) => void): Engine {
  const s = new Scheduler(4);
  const h = s.register('program', (a) => onRun(a));
  return {
    at: (time, id) => s.at(T(time), h, id),
    cancel: (handle) => s.cancel(handle),
    runUntil: (t) => {
      s.runUntil(T(t));
    },
    step: () => s.step(),
    nextTime: () => s.nextTime(),
    get now() {
      return s.now;
    },
  };
}

/**
 * A program for queues large enough to use radix buckets: bulk loads that cross the switch both ways,
 * times around 2^32 and up to 2^53 - 1, ties, delays from 0 to 2^52, cancellation of most of the
 * queue, and runUntil, step and nextTime interleaved. Returns the trace of runs and answers.
 */
function runLarge(seed: number, makeEngine: (onRun: (id: number) => void) => Engine): string[] {
  const trace: string[] = [];
  const handles: number[] = [];
  let rnd = mix32(seed);
  const draw = (n: number) => {
    rnd = mix32(rnd + 0x9e3779b9);
    return rnd % n;
  };
  const delay = () => Math.min(anyDelay(), Number.MAX_SAFE_INTEGER - engine.now);
  const anyDelay = () => {
    switch (draw(8)) {
      case 0:
        return 0;
      case 1:
        return draw(4);
      case 2:
        return draw(300);
      case 3:
        return draw(70_000);
      case 4:
        return draw(1 << 24);
      case 5:
        return draw(1 << 20) * 2 ** 20 + draw(1 << 20);
      case 6:
        return draw(1 << 26) * 2 ** 26;
      default:
        return draw(5_000);
    }
  };
  const schedule = (time: number) => {
    const id = handles.length;
    handles.push(engine.at(time, id));
  };
  const engine = makeEngine((id) => {
    trace.push(`${id}@${engine.now}`);
    if (draw(3) === 0) schedule(engine.now + delay());
    if (draw(6) === 0) trace.push(`cancel ${engine.cancel(handles[draw(handles.length)]!)}`);
  });
  engine.runUntil(2 ** 32 - 20_000);
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 18_000; i++) schedule(engine.now + delay());
    if (round === 1) {
      // Most of the queue goes, which compacts the buckets.
      for (let i = 0; i < handles.length; i++) if (draw(10) !== 0) engine.cancel(handles[i]!);
    }
    for (let k = 0; k < 60; k++) {
      const pick = draw(4);
      if (pick === 0) for (let i = draw(50); i >= 0; i--) trace.push(`step ${engine.step()}`);
      else if (pick === 1) trace.push(`next ${engine.nextTime()}`);
      else engine.runUntil(engine.now + [draw(40), draw(3_000), draw(1 << 22)][draw(3)]!);
    }
  }
  engine.runUntil(Number.MAX_SAFE_INTEGER);
  trace.push(`next ${engine.nextTime()} now ${engine.now}`);
  return trace;
}

describe('Scheduler against a reference queue', () => {
  it('produces the same trace for randomized programs with ties, children and cancellations', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const trace = runProgram(seed, ours);
      expect(trace.length).toBeGreaterThan(500);
      expect(trace).toEqual(runProgram(seed, (onRun) => new ReferenceQueue(onRun)));
    }
  });

  it('also with over 8192 pending, in radix buckets, and across switches back to the heap', () => {
    for (let seed = 1; seed <= 2; seed++) {
      const trace = runLarge(seed, ours);
      expect(trace.length).toBeGreaterThan(30_000);
      expect(trace).toEqual(runLarge(seed, (onRun) => new ReferenceQueue(onRun)));
    }
  });

  it('also when the heap is large enough to pop before running (over 8192 pending)', () => {
    for (let seed = 1; seed <= 3; seed++) {
      const trace = runProgram(seed, ours, 12_000, 30_000);
      expect(trace.length).toBeGreaterThan(12_000);
      expect(trace).toEqual(runProgram(seed, (onRun) => new ReferenceQueue(onRun), 12_000, 30_000));
    }
  });
});
