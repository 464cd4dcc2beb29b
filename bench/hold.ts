import FlatQueue from 'flatqueue';
import { Scheduler, type HandlerId } from '../src/sim/core/scheduler';
import { Rng } from '../src/sim/core/rng';
import type { Duration, SimTime } from '../src/sim/core/time';

/**
 * The classic hold model for event-set benchmarks: keep N events queued and repeatedly remove the
 * earliest, inserting one at (its time + an exponential delay). Our Scheduler does it through
 * register/at/step, its handler scheduling the follow-up; flatqueue does a bare pop + push. Both
 * consume the same pre-drawn delays, so they hold the same multiset of times and must end at the same
 * time. Repetitions alternate between the two and continue on the same queues (steady state), so
 * slow drift on a shared machine hits both alike; each side reports its best repetition.
 */

export interface HoldResult {
  pending: number;
  holds: number;
  oursPerSecond: number;
  flatqueuePerSecond: number;
  ratio: number;
}

export interface HoldOptions {
  /** Hold operations per timed repetition. */
  holds?: number;
  repetitions?: number;
  /** Mean hold delay in µs; 1 s, a typical spread of timers in the network model. */
  meanDelayUs?: number;
  seed?: number;
  print?: (line: string) => void;
}

const DELAY_TABLE_SIZE = 1 << 16;
const DELAY_MASK = DELAY_TABLE_SIZE - 1;

interface Runner {
  /** Runs n holds and returns the elapsed wall seconds. */
  hold(n: number): number;
  /** Simulated time reached, to check both sides did the same work. */
  time(): number;
}

function ours(initial: Float64Array, delays: Float64Array): Runner {
  const s = new Scheduler();
  const counter = { k: 0 };
  const hold: HandlerId = s.register('hold', () => {
    s.after(delays[counter.k++ & DELAY_MASK] as Duration, hold);
  });
  for (let i = 0; i < initial.length; i++) s.at(initial[i] as SimTime, hold);
  return {
    hold(n) {
      const start = performance.now();
      for (let i = 0; i < n; i++) s.step();
      return (performance.now() - start) / 1000;
    },
    time: () => s.now,
  };
}

function flatqueue(initial: Float64Array, delays: Float64Array): Runner {
  const q = new FlatQueue<number>();
  for (let i = 0; i < initial.length; i++) q.push(i, initial[i]!);
  let k = 0;
  let now = 0;
  return {
    hold(n) {
      const start = performance.now();
      for (let i = 0; i < n; i++) {
        now = q.peekValue()!;
        const id = q.pop()!;
        q.push(id, now + delays[k++ & DELAY_MASK]!);
      }
      return (performance.now() - start) / 1000;
    },
    time: () => now,
  };
}

export function runHoldBench(pendingSizes: number[] = [1e3, 1e5, 1e6], options: HoldOptions = {}): HoldResult[] {
  const holds = options.holds ?? 1_000_000;
  const repetitions = options.repetitions ?? 5;
  const meanDelayUs = options.meanDelayUs ?? 1_000_000;
  const seed = options.seed ?? 1;
  const print = options.print ?? ((line: string) => console.log(line));

  print(`hold model: ${fmt(holds)} holds per repetition, mean delay ${fmt(meanDelayUs)} µs,`);
  print(`best of ${repetitions} alternating repetitions after a warm-up`);
  const header = ['pending'.padStart(10), 'Scheduler ev/s'.padStart(15), 'flatqueue ev/s'.padStart(15), 'ratio'];
  print(header.join('  '));

  const results: HoldResult[] = [];
  for (const pending of pendingSizes) {
    const rng = new Rng(seed).stream(`hold/${pending}`);
    // Integer µs, as the scheduler requires; the same draws feed both queues.
    const initial = Float64Array.from({ length: pending }, () => Math.round(rng.exponential(meanDelayUs)));
    const delays = Float64Array.from({ length: DELAY_TABLE_SIZE }, () => Math.round(rng.exponential(meanDelayUs)));
    const a = ours(initial, delays);
    const b = flatqueue(initial, delays);
    a.hold(holds);
    b.hold(holds);
    let bestOurs = Infinity;
    let bestFlat = Infinity;
    for (let r = 0; r < repetitions; r++) {
      bestOurs = Math.min(bestOurs, a.hold(holds));
      bestFlat = Math.min(bestFlat, b.hold(holds));
    }
    if (a.time() !== b.time()) throw new Error(`hold bench diverged at ${pending}: ${a.time()} vs ${b.time()}`);
    const oursPerSecond = holds / bestOurs;
    const flatqueuePerSecond = holds / bestFlat;
    const ratio = oursPerSecond / flatqueuePerSecond;
    results.push({ pending, holds, oursPerSecond, flatqueuePerSecond, ratio });
    print(`${fmt(pending).padStart(10)}  ${fmt(oursPerSecond).padStart(15)}  ` + `${fmt(flatqueuePerSecond).padStart(15)}  ${ratio.toFixed(2).padStart(6)}`);
  }
  return results;
}

function fmt(x: number): string {
  return Math.round(x).toLocaleString('en-US');
}
