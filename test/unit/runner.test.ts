import { describe, expect, it } from 'vitest';
import type { FaultRequest, LiveView, LogEvent, RunReport, SeriesSlice, Sim, TopologyView } from '../../src/sim/api';
import type { Checkpoint } from '../../src/sim/sim';
import { simTime, type SimTime } from '../../src/sim/core/time';
import type { Frame, WorkerMessage } from '../../src/worker/protocol';
import { liveView } from '../fixtures/live-view';
import { createRunner, type RunnerOptions } from '../../src/worker/runner';
import type { Kept } from '../../src/worker/checkpoints';

/** A sim with one event per `eventUs`, a sample per second, a log event per 100 ms and a topology change at 1 s. */
class FakeSim implements Sim {
  readonly scenarioId = 'fake';
  readonly seed = 7;
  readonly fixes: readonly string[] = [];
  readonly durationUs: SimTime;
  private t = 0;
  private executed = 0;
  private samples: number[] = [];
  private log: LogEvent[] = [];
  private version = 1;
  /** How often a full topology view was built; frames should only build one when the version moved. */
  topologyViews = 0;
  readonly ownConnections = new Int32Array([0, 1, 1]);
  throwAt: number | undefined;

  constructor(
    durationUs: number,
    private readonly eventUs: number,
    private readonly clock: FakeClock,
    private readonly costMsPerEvent = 0,
  ) {
    this.durationUs = simTime(durationUs);
  }

  now(): SimTime {
    return simTime(this.t);
  }
  step(): boolean {
    if (this.t >= this.durationUs) return false;
    this.runUntil(simTime(Math.floor(this.t / this.eventUs + 1) * this.eventUs));
    return true;
  }
  runUntil(target: SimTime): void {
    const end = Math.min(target, this.durationUs);
    let next = Math.floor(this.t / this.eventUs + 1) * this.eventUs;
    while (next <= end) {
      if (this.throwAt !== undefined && next >= this.throwAt) throw new Error('boom in handler');
      this.t = next;
      this.executed++;
      this.clock.ms += this.costMsPerEvent;
      if (next % 1_000_000 === 0) this.samples.push(next / 1_000_000);
      if (next % 100_000 === 0) {
        this.log.push({ seq: this.log.length, t: simTime(next), severity: 'info', entity: 'pod/a', kind: 'tick', message: `at ${next}` });
      }
      if (next === 1_000_000) this.version++;
      next += this.eventUs;
    }
    this.t = Math.max(this.t, end);
  }
  done(): boolean {
    return this.t >= this.durationUs;
  }
  eventsExecuted(): number {
    return this.executed;
  }
  /** Faults applied, with the simulated time each went in. */
  readonly appliedFaults: { t: number; target: string }[] = [];
  applyFault(request: FaultRequest): void {
    if (request.target === 'pod/missing') throw new Error('target: no pod "missing"');
    this.appliedFaults.push({ t: this.t, target: request.target });
  }
  faultCatalog() {
    return [];
  }
  topology(): TopologyView {
    this.topologyViews++;
    return { version: this.version, nodes: [], pods: [], services: [], routers: [], loadBalancers: [], externals: [], dnsTargets: {}, sites: [] };
  }
  inspect() {
    return null;
  }
  whyOf() {
    return null;
  }
  live(): LiveView {
    return liveView();
  }
  topologyVersion(): number {
    return this.version;
  }
  connections(): Int32Array {
    return this.ownConnections;
  }
  sampleCount(): number {
    return this.samples.length;
  }
  /** Every series has the same samples; a test may add names, as a sim does when a series first records. */
  seriesNames = ['requests.ok'];
  seriesSince(from: number): SeriesSlice {
    const row = this.samples.slice(from);
    const values = Float64Array.from(this.seriesNames.flatMap(() => row));
    return { names: [...this.seriesNames], stepSeconds: 1, from, count: row.length, values };
  }
  eventsSince(seq: number): LogEvent[] {
    return this.log.filter((e) => e.seq >= seq);
  }
  drops(): Record<string, number> {
    return { no_route: this.executed };
  }
  /** Wall milliseconds a checkpoint of this sim takes. */
  checkpointMs = 0;
  checkpoint(): Checkpoint {
    this.clock.ms += this.checkpointMs;
    const state = { t: this.t, executed: this.executed, samples: [...this.samples], log: [...this.log], version: this.version, appliedFaults: [...this.appliedFaults] };
    // A snapshot says what it takes in memory; the restore below copies the fake's own fields only.
    return { atUs: this.now(), events: this.executed, state: { ...state, bytes: 1_000 } as unknown as Checkpoint['state'] };
  }

  /** A fake sim that goes on from `checkpoint`, on this one's clock. */
  restored(checkpoint: Checkpoint): FakeSim {
    const next = new FakeSim(this.durationUs, this.eventUs, this.clock, this.costMsPerEvent);
    const fields = structuredClone(checkpoint.state) as unknown as Record<string, unknown>;
    delete fields['bytes'];
    return Object.assign(next, fields);
  }

  pcap(): Uint8Array | null {
    return null;
  }

  report(wallMs: number): RunReport {
    return {
      scenario: 'fake',
      seed: 7,
      fixes: [],
      simulatedSeconds: this.t / 1e6,
      events: this.executed,
      wallMs,
      drops: {},
      totals: {},
      series: {},
      expect: [],
      digest: '0000000000000000',
      packets: { sent: 0, delivered: 0, dropped: 0, inFlight: 0 },
      traces: [],
      requests: [],
      why: [],
    };
  }
}

class FakeClock {
  ms = 1_000;
  now(): number {
    return this.ms;
  }
}

class FakeTimer {
  private queue: { callback: () => void; delayMs: number; cancelled: boolean }[] = [];
  schedule(callback: () => void, delayMs: number): () => void {
    const entry = { callback, delayMs, cancelled: false };
    this.queue.push(entry);
    return () => {
      entry.cancelled = true;
    };
  }
  pending(): number {
    return this.queue.filter((e) => !e.cancelled).length;
  }
  lastDelay(): number | undefined {
    return this.queue.filter((e) => !e.cancelled).at(-1)?.delayMs;
  }
  /** Runs every live callback queued so far, as the event loop would. */
  fire(): void {
    const due = this.queue.filter((e) => !e.cancelled);
    this.queue = [];
    for (const e of due) e.callback();
  }
}

function setup(opts: { durationUs?: number; eventUs?: number; costMs?: number; post?: RunnerOptions['post']; onCheckpoint?: RunnerOptions['onCheckpoint'] } = {}) {
  const clock = new FakeClock();
  const timer = new FakeTimer();
  const frames: Frame[] = [];
  const transfers: ArrayBuffer[][] = [];
  const errors: unknown[] = [];
  const sim = new FakeSim(opts.durationUs ?? 10_000_000, opts.eventUs ?? 1_000, clock, opts.costMs ?? 0);
  const restores: FakeSim[] = [];
  const runner = createRunner({
    clock,
    timer,
    restore: (checkpoint) => {
      const next = sim.restored(checkpoint);
      restores.push(next);
      return next;
    },
    post:
      opts.post ??
      ((message: WorkerMessage, transfer: ArrayBuffer[]) => {
        if (message.type === 'frame') frames.push(message);
        transfers.push(transfer);
      }),
    onError: (e) => errors.push(e),
    ...(opts.onCheckpoint && { onCheckpoint: opts.onCheckpoint }),
  });
  runner.load(sim);
  const tick = (wallMs: number) => {
    clock.ms += wallMs;
    timer.fire();
  };
  const last = (): Frame => {
    const f = frames.at(-1);
    if (!f) throw new Error('no frame posted');
    return f;
  };
  return { clock, timer, frames, transfers, errors, sim, runner, tick, last, restores };
}

describe('runner pacing', () => {
  it('publishes a full paused frame on load', () => {
    const { frames, last } = setup();
    expect(frames).toHaveLength(1);
    expect(last()).toMatchObject({ t: 0, running: false, done: false, speed: 1, durationUs: 10_000_000 });
    expect(last().topology?.version).toBe(1);
  });

  it('advances simulated time by wall time × speed', () => {
    const { runner, sim, tick, last } = setup();
    runner.play();
    expect(last().running).toBe(true);
    tick(16);
    expect(sim.now()).toBe(16_000);
    runner.setSpeed(10);
    tick(20);
    // setSpeed restarts the wall reference, so only the 20 ms after it count, at 10×.
    expect(sim.now()).toBe(16_000 + 200_000);
    runner.setSpeed(0.25);
    tick(40);
    expect(sim.now()).toBe(216_000 + 10_000);
    expect(last()).toMatchObject({ t: 226_000, speed: 0.25, running: true });
  });

  it('pauses by itself exactly at each stop ahead, and plays on past it when asked', () => {
    const { runner, sim, tick, last } = setup();
    runner.setStops([3_000_000, 1_000_000, 0]);
    runner.setSpeed(20);
    runner.play();
    tick(100);
    expect(sim.now()).toBe(1_000_000);
    expect(last()).toMatchObject({ t: 1_000_000, running: false });
    tick(100);
    expect(sim.now()).toBe(1_000_000);
    runner.play();
    tick(100);
    tick(100);
    expect(sim.now()).toBe(3_000_000);
    expect(last().running).toBe(false);
    runner.setStops([]);
    runner.play();
    tick(100);
    expect(sim.now()).toBe(5_000_000);
    expect(last().running).toBe(true);
  });

  it('counts at most maxElapsedMs of a long wall gap', () => {
    const { runner, sim, tick } = setup();
    runner.play();
    tick(10_000);
    expect(sim.now()).toBe(250_000);
  });

  it('runs max speed in budget-sized slices and stops at the end of the run', () => {
    const { runner, sim, tick, timer, last, frames } = setup({ durationUs: 2_000_000, eventUs: 1_000, costMs: 0.1 });
    runner.setSpeed('max');
    runner.play();
    tick(16);
    // 12 ms of budget at 0.1 ms per event: the tick stops near 120 events, well short of the 2000 in the run.
    expect(sim.eventsExecuted()).toBeGreaterThan(60);
    expect(sim.eventsExecuted()).toBeLessThan(400);
    expect(timer.pending()).toBe(1);
    expect(timer.lastDelay()).toBeLessThanOrEqual(16);
    let ticks = 1;
    while (timer.pending() > 0 && ticks < 1_000) {
      tick(0);
      ticks++;
    }
    expect(sim.done()).toBe(true);
    expect(ticks).toBeGreaterThan(5);
    expect(last()).toMatchObject({ done: true, running: false, t: 2_000_000 });
    expect(runner.running()).toBe(false);
    expect(timer.pending()).toBe(0);
    const before = frames.length;
    runner.play();
    expect(frames.length).toBe(before);
  });

  it('does nothing while paused and resumes from the pause point', () => {
    const { runner, sim, tick, timer, last } = setup();
    runner.play();
    tick(100);
    runner.pause();
    expect(last().running).toBe(false);
    expect(timer.pending()).toBe(0);
    tick(5_000);
    expect(sim.now()).toBe(100_000);
    runner.play();
    tick(50);
    expect(sim.now()).toBe(150_000);
  });

  it('steps 100 ms of simulated time, pausing a running sim, and never past the end', () => {
    const { runner, sim, tick, timer, last } = setup({ durationUs: 250_000 });
    runner.play();
    tick(30);
    runner.step();
    expect(sim.now()).toBe(130_000);
    expect(runner.running()).toBe(false);
    expect(timer.pending()).toBe(0);
    expect(last()).toMatchObject({ t: 130_000, running: false });
    runner.step();
    runner.step();
    expect(sim.now()).toBe(250_000);
    expect(last().done).toBe(true);
    runner.step();
    expect(sim.now()).toBe(250_000);
  });

  it('reports wall time spent in the sim', () => {
    const { runner, tick } = setup({ eventUs: 10_000, costMs: 1 });
    runner.play();
    tick(16);
    expect(runner.wallMs()).toBe(1);
  });
});

describe('runner frames', () => {
  it('sends contiguous series and event deltas and topology only when its version changes', () => {
    const { runner, sim, tick, frames } = setup({ eventUs: 50_000 });
    runner.setSpeed(100);
    runner.play();
    for (let i = 0; i < 40; i++) tick(16);
    let cursor = 0;
    let seq = 0;
    const samples: number[] = [];
    // The names come in the run's first frame and are left out while they stay the same.
    expect(frames[0]!.series.names).toEqual(['requests.ok']);
    expect(frames.slice(1).every((f) => f.series.names === undefined)).toBe(true);
    for (const f of frames) {
      expect(f.series.from).toBe(cursor);
      expect(f.series.values.length).toBe(f.series.count);
      cursor += f.series.count;
      samples.push(...f.series.values);
      for (const e of f.events) expect(e.seq).toBe(seq++);
    }
    expect(cursor).toBeGreaterThanOrEqual(6);
    expect(samples).toEqual(samples.map((_, i) => i + 1));
    expect(seq).toBe(Math.floor(frames.at(-1)!.t / 100_000));
    expect(frames.filter((f) => f.topology).map((f) => f.topology!.version)).toEqual([1, 2]);
    expect(sim.topologyViews).toBe(2);
  });

  it('sends the series names in a run’s first frame and then only when they change', () => {
    const { runner, sim, tick, frames, clock } = setup({ eventUs: 50_000 });
    runner.setSpeed(100);
    runner.play();
    tick(16);
    expect(frames[0]!.series.names).toEqual(['requests.ok']);
    expect(frames.slice(1).map((f) => f.series.names)).toEqual(frames.slice(1).map(() => undefined));
    sim.seriesNames = ['requests.failed', 'requests.ok'];
    tick(16);
    expect(frames.at(-1)!.series.names).toEqual(['requests.failed', 'requests.ok']);
    tick(16);
    expect(frames.at(-1)!.series.names).toBeUndefined();
    runner.load(new FakeSim(1_000_000, 1_000, clock));
    expect(frames.at(-1)!.series.names).toEqual(['requests.ok']);
  });

  it('keeps only the newest events of a long frame', () => {
    const clock = new FakeClock();
    const timer = new FakeTimer();
    const frames: Frame[] = [];
    const runner = createRunner({
      clock,
      timer,
      maxEventsPerFrame: 3,
      post: (m) => {
        if (m.type === 'frame') frames.push(m);
      },
      onError: () => {},
    });
    const sim = new FakeSim(5_000_000, 100_000, clock);
    runner.load(sim);
    sim.runUntil(simTime(1_000_000));
    runner.publish();
    expect(frames.at(-1)!.events.map((e) => e.seq)).toEqual([7, 8, 9]);
    sim.runUntil(simTime(1_200_000));
    runner.publish();
    expect(frames.at(-1)!.events.map((e) => e.seq)).toEqual([10, 11]);
  });

  it('transfers copies, never the sim’s own buffers', () => {
    const { sim, runner, transfers, last } = setup();
    runner.publish();
    const frame = last();
    expect(frame.connections).toEqual(new Int32Array([0, 1, 1]));
    expect(frame.connections.buffer).not.toBe(sim.ownConnections.buffer);
    const { conntrackUsed, instanceTracked, dnsInFlight, traffic, drops } = frame.live;
    const liveBuffers = [conntrackUsed, instanceTracked, dnsInFlight, traffic, drops].map((a) => a.buffer);
    expect(new Set(liveBuffers).size).toBe(5);
    expect(transfers.at(-1)).toEqual([frame.series.values.buffer, frame.connections.buffer, ...liveBuffers]);
  });

  it('holds frames while one is in flight and then sends the accumulated delta', async () => {
    const frames: Frame[] = [];
    let release: (() => void) | undefined;
    const { runner, tick } = setup({
      eventUs: 100_000,
      post: (m) => {
        if (m.type === 'frame') frames.push(m);
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    });
    expect(frames).toHaveLength(1);
    runner.setSpeed(100);
    runner.play();
    tick(16);
    tick(16);
    tick(16);
    expect(frames).toHaveLength(1);
    release?.();
    await Promise.resolve();
    await Promise.resolve();
    expect(frames).toHaveLength(2);
    expect(frames[1]).toMatchObject({ t: 4_800_000, running: true });
    expect(frames[1]!.series).toMatchObject({ from: 0, count: 4 });
    expect(frames[1]!.events).toHaveLength(48);
  });

  it('sends the first frame of a newly loaded sim even while an old frame is unacknowledged', () => {
    const frames: Frame[] = [];
    const { runner, tick, clock } = setup({
      eventUs: 100_000,
      post: (m) => {
        if (m.type === 'frame') frames.push(m);
        return new Promise<void>(() => {});
      },
    });
    runner.play();
    tick(16);
    expect(frames).toHaveLength(1);
    runner.load(new FakeSim(1_000_000, 1_000, clock));
    expect(frames).toHaveLength(2);
    expect(frames[1]).toMatchObject({ t: 0, running: false, run: frames[0]!.run + 1 });
    expect(frames[1]!.topology).toBeDefined();
  });
});

describe('runner errors', () => {
  it('pauses and reports when the sim throws during a tick', () => {
    const { runner, sim, tick, errors, timer, last } = setup();
    sim.throwAt = 20_000;
    runner.play();
    tick(16);
    expect(errors).toHaveLength(0);
    tick(16);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('boom in handler');
    expect(runner.running()).toBe(false);
    expect(timer.pending()).toBe(0);
    expect(last().running).toBe(false);
  });

  it('starts a newly loaded sim paused with fresh cursors', () => {
    const { runner, tick, clock, frames } = setup({ eventUs: 100_000 });
    runner.setSpeed(100);
    runner.play();
    tick(30);
    const fresh = new FakeSim(1_000_000, 1_000, clock);
    runner.load(fresh);
    expect(runner.running()).toBe(false);
    const f = frames.at(-1)!;
    expect(f).toMatchObject({ t: 0, running: false });
    expect(f.series.from).toBe(0);
    expect(f.topology?.version).toBe(1);
  });
});

describe('runner seek and fault replay', () => {
  const fault = (target: string): FaultRequest => ({ fault: 'delete-pod', target });

  it('seeks forward in budget-sized slices, reporting the target until it is reached, then stays paused', () => {
    const { runner, sim, tick, last, clock } = setup({ durationUs: 60_000_000, costMs: 0.01 });
    const fresh = () => new FakeSim(60_000_000, 1_000, clock, 0.01);
    runner.seek(30_000_000, fresh);
    expect(last().seekTarget).toBe(30_000_000);
    tick(0);
    expect(sim.now()).toBeGreaterThan(0);
    expect(sim.now()).toBeLessThan(30_000_000);
    expect(last().seekTarget).toBe(30_000_000);
    for (let i = 0; i < 200 && runner.seeking(); i++) tick(0);
    expect(sim.now()).toBe(30_000_000);
    expect(last()).toMatchObject({ t: 30_000_000, running: false });
    expect(last().seekTarget).toBeUndefined();
  });

  it('records applied faults with their time and replays them at that time after a seek back', () => {
    const { runner, sim, tick, last, clock, frames, restores } = setup({ durationUs: 10_000_000 });
    runner.seek(2_000_000, () => sim);
    while (runner.seeking()) tick(0);
    runner.applyFault(fault('pod/a'));
    expect(last().faults).toEqual([{ at: 2_000_000, fault: fault('pod/a') }]);
    runner.seek(5_000_000, () => sim);
    while (runner.seeking()) tick(0);
    runner.applyFault(fault('pod/b'));
    const runBefore = last().run;
    const fresh: FakeSim[] = [];
    // Nothing cost wall time, so the one checkpoint is the run's start, taken on load: the replay goes on from it.
    runner.seek(3_000_000, () => {
      const next = new FakeSim(10_000_000, 1_000, clock);
      fresh.push(next);
      return next;
    });
    expect(fresh).toHaveLength(0);
    expect(restores).toHaveLength(1);
    expect(last().run).toBe(runBefore + 1);
    while (runner.seeking()) tick(0);
    const replay = restores[0]!;
    expect(replay.now()).toBe(3_000_000);
    expect(replay.appliedFaults).toEqual([{ t: 2_000_000, target: 'pod/a' }]);
    // The later fault stays in the record and goes in again when the clock passes its time.
    runner.seek(6_000_000, () => new FakeSim(10_000_000, 1_000, clock));
    while (runner.seeking()) tick(0);
    expect(replay.appliedFaults).toEqual([
      { t: 2_000_000, target: 'pod/a' },
      { t: 5_000_000, target: 'pod/b' },
    ]);
    expect(frames.some((f) => f.faults?.length === 2)).toBe(true);
  });

  it('takes over another run’s record: applied entries kept, a changed past entry forces a replay', () => {
    const { runner, sim, tick, clock, restores } = setup({ durationUs: 10_000_000 });
    const record = [{ at: 1_000_000, fault: fault('pod/a') }];
    const fresh: FakeSim[] = [];
    const make = () => {
      const next = new FakeSim(10_000_000, 1_000, clock);
      fresh.push(next);
      return next;
    };
    runner.seek(2_000_000, make, record);
    while (runner.seeking()) tick(0);
    expect(fresh).toHaveLength(0);
    expect(sim.appliedFaults).toEqual([{ t: 1_000_000, target: 'pod/a' }]);
    runner.seek(3_000_000, make, [...record, { at: 3_000_000, fault: fault('pod/b') }]);
    while (runner.seeking()) tick(0);
    expect(fresh).toHaveLength(0);
    expect(sim.appliedFaults.map((f) => f.target)).toEqual(['pod/a', 'pod/b']);
    runner.seek(4_000_000, make, [{ at: 1_500_000, fault: fault('pod/c') }]);
    expect(fresh).toHaveLength(0);
    expect(restores).toHaveLength(1);
    while (runner.seeking()) tick(0);
    expect(restores[0]!.appliedFaults).toEqual([{ t: 1_500_000, target: 'pod/c' }]);
  });

  it('keeps checkpoints as it plays and goes back to the nearest one before the target, not to the start', () => {
    // Each event costs wall time, so the runner knows its rate and spaces checkpoints about 300 wall ms apart.
    const { runner, sim, tick, restores } = setup({ durationUs: 60_000_000, eventUs: 1_000, costMs: 0.1 });
    runner.seek(40_000_000, () => sim);
    while (runner.seeking()) tick(0);
    const times = runner.checkpoints().times();
    expect(times[0]).toBe(0);
    expect(times.length).toBeGreaterThan(5);
    const before = Math.max(...times.filter((t) => t <= 25_000_000));
    expect(before).toBeGreaterThan(15_000_000);
    runner.seek(25_000_000, () => {
      throw new Error('a checkpoint was there to restore');
    });
    expect(restores).toHaveLength(1);
    expect(restores[0]!.now()).toBe(before);
    while (runner.seeking()) tick(0);
    expect(restores[0]!.now()).toBe(25_000_000);
    // Forward again past the present, a later checkpoint is a shortcut.
    runner.seek(39_000_000, () => sim);
    expect(restores).toHaveLength(2);
    expect(restores[1]!.now()).toBeGreaterThan(25_000_000);
  });

  it('drops a checkpoint that held the worker over 250 ms and takes no more in that run', () => {
    const { runner, sim, tick } = setup({ durationUs: 60_000_000, eventUs: 1_000, costMs: 0.1 });
    runner.seek(10_000_000, () => sim);
    while (runner.seeking()) tick(0);
    const before = runner.checkpoints().count;
    expect(before).toBeGreaterThan(2);
    sim.checkpointMs = 300;
    runner.seek(40_000_000, () => sim);
    while (runner.seeking()) tick(0);
    expect(runner.checkpoints().count).toBe(before);
  });

  it('never lands on a checkpoint whose faults the record no longer has, nor one past a fault it has not applied', () => {
    const { runner, sim, tick, restores } = setup({ durationUs: 60_000_000, eventUs: 1_000, costMs: 0.1 });
    runner.seek(10_000_000, () => sim);
    while (runner.seeking()) tick(0);
    runner.applyFault(fault('pod/a'));
    runner.seek(30_000_000, () => sim);
    while (runner.seeking()) tick(0);
    // Without the fault at 10 s, only checkpoints up to 10 s fit.
    runner.seek(20_000_000, () => sim, []);
    expect(restores.at(-1)!.now()).toBeLessThanOrEqual(10_000_000);
    expect(restores.at(-1)!.appliedFaults).toEqual([]);
    while (runner.seeking()) tick(0);
    expect(restores.at(-1)!.appliedFaults).toEqual([]);
    // With a fault at 5 s added, only checkpoints up to 5 s fit, and the replay applies it there.
    runner.seek(8_000_000, () => sim, [{ at: 5_000_000, fault: fault('pod/b') }]);
    const replay = restores.at(-1)!;
    expect(replay.now()).toBeLessThanOrEqual(5_000_000);
    while (runner.seeking()) tick(0);
    expect(replay.appliedFaults).toEqual([{ t: 5_000_000, target: 'pod/b' }]);
  });

  it('tells of each checkpoint after the start and takes one where the run pauses; a new runner given it lands there', () => {
    const told: Kept[] = [];
    const first = setup({ durationUs: 60_000_000, eventUs: 1_000, costMs: 0.1, onCheckpoint: (kept) => told.push(kept) });
    first.runner.applyFault(fault('pod/a'));
    first.runner.setSpeed('max');
    first.runner.play();
    for (let i = 0; i < 100; i++) first.tick(16);
    expect(told.length).toBeGreaterThan(1);
    expect(told.every((k) => k.checkpoint.atUs > 0)).toBe(true);
    first.runner.pause();
    const rest = told.at(-1)!;
    expect(rest.checkpoint.atUs).toBe(first.sim.now());
    expect(rest.faults).toEqual(first.runner.faults());

    // As a worker replacing a crashed one: the run loaded afresh, the stored checkpoint adopted, then the replay.
    const second = setup({ durationUs: 60_000_000, eventUs: 1_000, costMs: 0.1 });
    second.runner.adopt(rest);
    const record = [...first.runner.faults()];
    expect(second.runner.seek(rest.checkpoint.atUs + 500_000, () => second.sim, record)).toBe(rest.checkpoint.atUs);
    expect(second.restores).toHaveLength(1);
    while (second.runner.seeking()) second.tick(0);
    expect(second.restores[0]!.now()).toBe(rest.checkpoint.atUs + 500_000);
    expect(second.restores[0]!.appliedFaults).toEqual([{ t: 0, target: 'pod/a' }]);
    // Where a seek lands is no resting place: a compare's run B would copy itself after every step it follows.
    const before = second.runner.checkpoints().count;
    second.runner.seek(rest.checkpoint.atUs + 900_000, () => second.sim, record);
    while (second.runner.seeking()) second.tick(0);
    expect(second.runner.checkpoints().count).toBe(before);
    // A record it does not fit (the fault gone) replays from the start instead.
    expect(second.runner.seek(rest.checkpoint.atUs, () => second.sim, [])).toBe(0);
  });

  it('marks the frames that follow a seek with its id, the settled one last, so a follower knows the seek ended', () => {
    const { runner, sim, tick, frames } = setup({ durationUs: 60_000_000 });
    expect(frames.at(-1)!.seekId).toBeUndefined();
    runner.seek(2_000_000, () => sim, undefined, 7);
    while (runner.seeking()) tick(0);
    const ofSeek = frames.filter((f) => f.seekId === 7);
    expect(ofSeek.length).toBeGreaterThan(1);
    expect(ofSeek.slice(0, -1).every((f) => f.seekTarget === 2_000_000)).toBe(true);
    expect(ofSeek.at(-1)!.t).toBe(2_000_000);
    expect(ofSeek.at(-1)!.seekTarget).toBeUndefined();
  });

  it('previews another moment from a side copy of the nearest checkpoint, going on from it, and leaves the run where it is', () => {
    const { runner, sim, tick, restores, frames } = setup({ durationUs: 60_000_000, eventUs: 1_000, costMs: 0.1 });
    runner.seek(40_000_000, () => sim);
    while (runner.seeking()) tick(0);
    runner.applyFault(fault('pod/a'));
    const times = runner.checkpoints().times();
    expect(frames.filter((f) => f.checkpoints).at(-1)!.checkpoints).toEqual(times);
    const before = Math.max(...times.filter((t) => t <= 20_000_000));
    // 40 wall ms at 0.1 ms an event is 0.4 s of this sim: a preview 0.2 s past a checkpoint gets there in one call.
    const target = before + 200_000;

    const first = runner.preview(target)!;
    expect(restores).toHaveLength(1);
    expect(first).toMatchObject({ fromUs: before, target, t: target, drops: { no_route: restores[0]!.eventsExecuted() } });
    expect(first.topology.version).toBe(2);
    // A little later is on the way: the same copy runs on rather than a new restore.
    expect(runner.preview(target + 100_000)!.t).toBe(target + 100_000);
    expect(restores).toHaveLength(1);
    // Back before the copy is not: a restore of the nearest checkpoint there.
    expect(runner.preview(100_000)!).toMatchObject({ fromUs: 0, t: 100_000 });
    expect(restores).toHaveLength(2);
    // Past the fault, the copy applies it at its time, as the run did.
    while (runner.preview(40_000_000)!.t < 40_000_000);
    expect(restores.at(-1)!.appliedFaults).toEqual([{ t: 40_000_000, target: 'pod/a' }]);
    expect(sim.now()).toBe(40_000_000);
    expect(runner.seeking()).toBe(false);
    expect(runner.preview(null)).toBeNull();
  });

  it('runs a preview copy at most 40 wall ms a call, and refuses one when the run keeps no checkpoints', () => {
    const { runner, sim, tick, clock } = setup({ durationUs: 60_000_000, eventUs: 1_000, costMs: 0.1 });
    runner.seek(30_000_000, () => sim);
    while (runner.seeking()) tick(0);
    const started = clock.ms;
    const far = runner.preview(29_999_000)!;
    expect(far.t).toBeLessThan(29_999_000);
    expect(clock.ms - started).toBeLessThan(50);
    // Asked again, the copy goes on from where it stopped.
    expect(runner.preview(29_999_000)!.t).toBeGreaterThan(far.t);

    const slow = setup({ durationUs: 60_000_000, eventUs: 1_000, costMs: 0.1 });
    slow.sim.checkpointMs = 300;
    slow.runner.load(slow.sim);
    expect(() => slow.runner.preview(1_000_000)).toThrow(/^preview: this run keeps no checkpoints: its state takes too long to copy$/);
  });

  it('keeps playing after a seek if it was playing, and pause during a seek does not stop the seek', () => {
    const { runner, sim, tick, last } = setup({ durationUs: 60_000_000 });
    runner.play();
    runner.seek(20_000_000, () => sim);
    runner.pause();
    while (runner.seeking()) tick(0);
    expect(sim.now()).toBe(20_000_000);
    expect(last().running).toBe(false);
    runner.play();
    runner.seek(25_000_000, () => sim);
    while (runner.seeking()) tick(0);
    expect(last().running).toBe(true);
    tick(16);
    expect(sim.now()).toBe(25_016_000);
  });

  it('rejects an invalid fault without recording it', () => {
    const { runner, last } = setup();
    expect(() => runner.applyFault(fault('pod/missing'))).toThrow('target: no pod "missing"');
    expect(runner.faults()).toEqual([]);
    expect(last().faults).toEqual([]);
  });
});
