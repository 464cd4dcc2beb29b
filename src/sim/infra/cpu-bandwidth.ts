import type { SimContext } from '../context';
import type { Counter, Histogram } from '../core/metrics';
import type { EventHandle, HandlerId } from '../core/scheduler';
import type { Duration, SimTime } from '../core/time';
import { onMember } from '../core/snapshot';

/**
 * Which kernel's CFS bandwidth control: `expiring` is 4.18 to 5.3, where a CPU's unused runtime expires at each
 * period's end (commit 512ac999d275); `fixed` is 5.4 on, where it carries over (commit de53fd7aedb1)
 * (docs/sources/linux-cfs.md#slice-expiry-bug).
 */
export type CfsKernel = 'expiring' | 'fixed';

export interface CfsSettings {
  periodUs: number;
  /** Runtime per period for the whole cgroup; Infinity when the container has no CPU limit. */
  quotaUs: number;
  sliceUs: number;
  kernel: CfsKernel;
}

// min_cfs_rq_runtime: a CPU going idle keeps 1 ms and hands the rest back (kernel/sched/fair.c,
// docs/sources/linux-cfs.md#constants).
export const MIN_RUNTIME_US = 1000;
// cfs_bandwidth_slack_period: returned runtime reaches throttled CPUs 5 ms later (kernel/sched/fair.c,
// docs/sources/linux-cfs.md#constants).
export const SLACK_US = 5000;

/** cpu.stat of one cgroup, and its usage. */
export interface CfsStat {
  periods: number;
  throttledPeriods: number;
  throttledUs: number;
  usageUs: number;
}

/** A deployment's CPU instruments, shared by its containers. */
export interface CfsInstruments {
  periods: Counter;
  throttledPeriods: Counter;
  throttledMs: Counter;
  usageMs: Counter;
  /** The quota each container was given, summed per period: beside usageMs, how much of it was used. */
  quotaMs: Counter;
  /** How long each burst of work waited beyond its own CPU time: queued behind another, or throttled. */
  delayMs: Histogram;
}

// Delay buckets in ms: from a queued burst's fraction of a millisecond to a whole period's wait.
const DELAY_BUCKETS = [0.1, 0.5, 1, 2, 5, 10, 20, 50, 100];

interface Burst {
  submittedAt: number;
  needUs: number;
  handler: HandlerId;
  a: number;
  b: number;
}

const NO_EVENT = -1;

/** Timers shared by every container's controller. */
export class CpuControllers {
  readonly segment: HandlerId;
  readonly period: HandlerId;
  readonly slack: HandlerId;
  private readonly controllers: CpuBandwidth[] = [];
  private readonly instruments = new Map<string, CfsInstruments>();

  constructor(readonly ctx: SimContext) {
    const s = ctx.sched;
    this.segment = s.register('cfs.segment', onMember(this.controllers, 'onSegment', true));
    this.period = s.register('cfs.period', onMember(this.controllers, 'onPeriod', true));
    this.slack = s.register('cfs.slack', onMember(this.controllers, 'onSlack', true));
  }

  create(entity: string, deployment: string, cpus: number, settings: CfsSettings): CpuBandwidth {
    let instruments = this.instruments.get(deployment);
    if (!instruments) {
      const m = this.ctx.metrics;
      const labels = { deployment };
      instruments = {
        periods: m.counter('cpu.periods', labels),
        throttledPeriods: m.counter('cpu.throttled_periods', labels),
        throttledMs: m.counter('cpu.throttled_ms', labels),
        usageMs: m.counter('cpu.usage_ms', labels),
        quotaMs: m.counter('cpu.quota_ms', labels),
        delayMs: m.histogram('cpu.delay_ms', DELAY_BUCKETS, labels),
      };
      this.instruments.set(deployment, instruments);
    }
    const controller = new CpuBandwidth(this, this.controllers.length, entity, cpus, settings, instruments);
    this.controllers.push(controller);
    return controller;
  }
}

/**
 * CFS bandwidth control for one container's cgroup, as docs/sources/linux-cfs.md#simplified-model describes it: each
 * period the cgroup's pool is refilled to its quota; a CPU that runs the cgroup's threads takes runtime from the pool a
 * slice at a time; a CPU that finds the pool empty is throttled until runtime comes back. A CPU going idle hands all
 * but 1 ms back at once, and the slack timer passes it on to throttled CPUs 5 ms later. On the `expiring` kernel the
 * runtime CPUs still hold expires at each period's end, so a cgroup whose threads touch many CPUs loses up to 1 ms per
 * CPU each period. Work arrives as bursts of CPU time; each wakes on the next idle CPU, as a pool of threads spreads
 * over a machine.
 */
export class CpuBandwidth {
  readonly stat: CfsStat = { periods: 0, throttledPeriods: 0, throttledUs: 0, usageUs: 0 };
  private pool: number;
  /** Runtime each CPU holds, in µs. */
  private readonly local: Float64Array;
  /** CPU time left of the burst each CPU runs; 0 when it runs none. */
  private readonly need: Float64Array;
  private readonly current: (Burst | null)[];
  private readonly queues: Burst[][];
  private readonly throttledSince: Float64Array;
  private readonly segmentTimer: EventHandle[];
  private readonly segmentStart: Float64Array;
  /** Whether each CPU ran the cgroup's threads in the current period. */
  private readonly ranThisPeriod: Uint8Array;
  private periodTimer: EventHandle = NO_EVENT;
  private slackTimer: EventHandle = NO_EVENT;
  private usedThisPeriod = 0;
  private throttledThisPeriod = false;
  private rotation = 0;
  private running = false;
  private longestDelayUs = 0;
  /** The latest finished period: runtime used, CPUs that ran, and runtime that expired at its end. */
  lastPeriod = { usedUs: 0, cpus: 0, expiredUs: 0 };

  constructor(
    private readonly shared: CpuControllers,
    private readonly index: number,
    readonly entity: string,
    readonly cpus: number,
    private settings: CfsSettings,
    private readonly instruments: CfsInstruments,
  ) {
    this.pool = settings.quotaUs;
    this.local = new Float64Array(cpus);
    this.need = new Float64Array(cpus);
    this.current = new Array<Burst | null>(cpus).fill(null);
    this.queues = Array.from({ length: cpus }, () => []);
    this.throttledSince = new Float64Array(cpus).fill(-1);
    this.segmentTimer = new Array<EventHandle>(cpus).fill(NO_EVENT);
    this.segmentStart = new Float64Array(cpus);
    this.ranThisPeriod = new Uint8Array(cpus);
  }

  get limited(): boolean {
    return Number.isFinite(this.settings.quotaUs);
  }

  get quotaUs(): number {
    return this.settings.quotaUs;
  }

  get periodUs(): number {
    return this.settings.periodUs;
  }

  get kernel(): CfsKernel {
    return this.settings.kernel;
  }

  /** Runtime left in the pool, and held by CPUs, in µs. */
  get poolUs(): number {
    return this.pool;
  }

  get heldUs(): number {
    return this.local.reduce((a, b) => a + b, 0);
  }

  get throttledCpus(): number {
    let n = 0;
    for (let cpu = 0; cpu < this.cpus; cpu++) if (this.throttledSince[cpu]! >= 0) n++;
    return n;
  }

  /** The container runs: its cgroup's period timer starts with a full pool. */
  start(): void {
    this.running = true;
    this.pool = this.settings.quotaUs;
    if (this.limited) this.periodTimer = this.sched.after(this.settings.periodUs as Duration, this.shared.period, this.index);
  }

  /** The container is gone: nothing it was running finishes. */
  stop(): void {
    this.running = false;
    this.sched.cancel(this.periodTimer);
    this.sched.cancel(this.slackTimer);
    for (let cpu = 0; cpu < this.cpus; cpu++) {
      this.sched.cancel(this.segmentTimer[cpu]!);
      this.segmentTimer[cpu] = NO_EVENT;
      this.current[cpu] = null;
      this.queues[cpu]!.length = 0;
      this.need[cpu] = 0;
    }
  }

  /** A new limit in place (an in-place resize): from the next period the pool refills to `quotaUs`. */
  setQuota(quotaUs: number): void {
    const wasLimited = this.limited;
    this.settings = { ...this.settings, quotaUs };
    if (!this.running) return;
    if (!this.limited) {
      this.sched.cancel(this.periodTimer);
      this.periodTimer = NO_EVENT;
      this.pool = Infinity;
      for (let cpu = 0; cpu < this.cpus; cpu++) if (this.throttledSince[cpu]! >= 0) this.unthrottle(cpu);
    } else if (!wasLimited) {
      this.pool = quotaUs;
      this.local.fill(0);
      this.periodTimer = this.sched.after(this.settings.periodUs as Duration, this.shared.period, this.index);
    }
  }

  /** Runs `needUs` of CPU time on a thread, then calls `handler(a, b)`. */
  run(needUs: number, handler: HandlerId, a: number, b: number): void {
    const burst = { submittedAt: this.now, needUs, handler, a, b };
    const cpu = this.pickCpu();
    if (this.current[cpu]) this.queues[cpu]!.push(burst);
    else this.begin(cpu, burst);
  }

  onSegment(cpu: number): void {
    this.segmentTimer[cpu] = NO_EVENT;
    this.settle(cpu);
    if (this.need[cpu]! > 0) {
      this.proceed(cpu);
      return;
    }
    const done = this.current[cpu]!;
    this.current[cpu] = null;
    this.delayed(done);
    // Runtime is charged as it is used; a CPU that ran its last microsecond asks for more before its thread sleeps.
    if (this.limited && this.local[cpu]! <= 0) this.take(cpu);
    const next = this.queues[cpu]!.shift();
    if (next) this.begin(cpu, next);
    else this.goIdle(cpu);
    this.sched.after(0 as Duration, done.handler, done.a, done.b);
  }

  onPeriod(): void {
    this.periodTimer = this.sched.after(this.settings.periodUs as Duration, this.shared.period, this.index);
    let expired = 0;
    let cpus = 0;
    for (let cpu = 0; cpu < this.cpus; cpu++) {
      this.settle(cpu);
      if (this.ranThisPeriod[cpu]) cpus++;
      this.ranThisPeriod[cpu] = this.current[cpu] ? 1 : 0;
      if (this.settings.kernel === 'expiring' && this.local[cpu]! > 0) {
        expired += this.local[cpu]!;
        this.local[cpu] = 0;
      }
    }
    const active = this.usedThisPeriod > 0 || this.throttledThisPeriod;
    this.lastPeriod = { usedUs: this.usedThisPeriod, cpus, expiredUs: expired };
    this.instruments.quotaMs.inc(this.settings.quotaUs / 1000);
    // A cgroup idle for a whole period has its timer stopped in the kernel, so the period is not counted.
    if (active) {
      this.stat.periods++;
      this.instruments.periods.inc();
      this.shared.ctx.causes.record('cpu_period', this.entity, this.now);
    }
    if (this.throttledThisPeriod) {
      this.shared.ctx.causes.record('cpu_throttled', this.entity, this.now, {
        usedUs: this.usedThisPeriod,
        quotaUs: this.settings.quotaUs,
        periodUs: this.settings.periodUs,
        sliceUs: this.settings.sliceUs,
        cpus,
        expiredUs: expired,
        kernel: this.settings.kernel,
      });
    }
    this.usedThisPeriod = 0;
    this.throttledThisPeriod = false;
    this.pool = this.settings.quotaUs;
    // The refill goes first to CPUs waiting for it, then running CPUs whose runtime expired ask for theirs.
    this.distribute();
    for (let cpu = 0; cpu < this.cpus; cpu++) if (this.current[cpu] && this.segmentTimer[cpu] === NO_EVENT && this.throttledSince[cpu]! < 0) this.proceed(cpu);
  }

  onSlack(): void {
    this.slackTimer = NO_EVENT;
    // The slack timer hands runtime on only when the pool holds more than a slice (do_sched_cfs_slack_timer).
    if (this.pool > this.settings.sliceUs) this.distribute();
  }

  private get sched() {
    return this.shared.ctx.sched;
  }

  private get now(): SimTime {
    return this.sched.now;
  }

  /** Counts how long a finished burst waited; a wait of a slack period or more is throttling, a cause for the why chain. */
  private delayed(burst: Burst): void {
    const delay = this.now - burst.submittedAt - burst.needUs;
    this.instruments.delayMs.observe(delay / 1000);
    if (delay < SLACK_US) return;
    const longest = delay > this.longestDelayUs;
    if (longest) this.longestDelayUs = delay;
    this.shared.ctx.causes.record('cpu_delayed', this.entity, this.now, longest ? { longestUs: delay } : undefined);
  }

  /** The next CPU from the rotation that runs nothing; when every CPU is busy, the next one in turn. */
  private pickCpu(): number {
    for (let i = 0; i < this.cpus; i++) {
      const cpu = (this.rotation + i) % this.cpus;
      if (!this.current[cpu]) {
        this.rotation = cpu + 1;
        return cpu;
      }
    }
    const cpu = this.rotation % this.cpus;
    this.rotation = cpu + 1;
    return cpu;
  }

  private begin(cpu: number, burst: Burst): void {
    this.current[cpu] = burst;
    this.need[cpu] = burst.needUs;
    this.ranThisPeriod[cpu] = 1;
    if (this.throttledSince[cpu]! < 0) this.proceed(cpu);
  }

  /** Runs the CPU's burst on the runtime it holds, asking the pool for a slice when it has none; throttles on an empty pool. */
  private proceed(cpu: number): void {
    if (!this.limited) {
      this.startSegment(cpu, this.need[cpu]!);
      return;
    }
    if (this.local[cpu]! <= 0 && !this.take(cpu)) {
      this.throttle(cpu);
      return;
    }
    this.startSegment(cpu, Math.min(this.local[cpu]!, this.need[cpu]!));
  }

  /** assign_cfs_rq_runtime: tops the CPU up to one slice, as far as the pool allows; false when the pool is empty. */
  private take(cpu: number): boolean {
    const grant = Math.min(this.settings.sliceUs - this.local[cpu]!, this.pool);
    if (grant <= 0) return false;
    this.pool -= grant;
    this.local[cpu] = this.local[cpu]! + grant;
    return true;
  }

  private startSegment(cpu: number, us: number): void {
    this.segmentStart[cpu] = this.now;
    this.segmentTimer[cpu] = this.sched.after(Math.max(1, Math.round(us)) as Duration, this.shared.segment, this.index, cpu);
  }

  /** Charges the running segment's time so far to the burst, the CPU's runtime and the usage counters. */
  private settle(cpu: number): void {
    const timer = this.segmentTimer[cpu]!;
    if (timer !== NO_EVENT) {
      this.sched.cancel(timer);
      this.segmentTimer[cpu] = NO_EVENT;
    }
    if (!this.current[cpu] || this.throttledSince[cpu]! >= 0) return;
    const ran = Math.min(this.now - this.segmentStart[cpu]!, this.need[cpu]!);
    this.segmentStart[cpu] = this.now;
    if (ran <= 0) return;
    this.need[cpu] = this.need[cpu]! - ran;
    if (this.limited) this.local[cpu] = this.local[cpu]! - ran;
    this.usedThisPeriod += ran;
    this.stat.usageUs += ran;
    this.instruments.usageMs.inc(ran / 1000);
  }

  /**
   * Model choice: a period counts as throttled when any CPU was throttled in it (the reading of nr_throttled in
   * docs/sources/linux-cfs.md#test-vectors); the kernel counts the periods that end with a CPU still throttled.
   */
  private throttle(cpu: number): void {
    this.throttledSince[cpu] = this.now;
    if (!this.throttledThisPeriod) {
      this.throttledThisPeriod = true;
      this.stat.throttledPeriods++;
      this.instruments.throttledPeriods.inc();
    }
  }

  private unthrottle(cpu: number): void {
    const waited = this.now - this.throttledSince[cpu]!;
    this.throttledSince[cpu] = -1;
    this.stat.throttledUs += waited;
    this.instruments.throttledMs.inc(waited / 1000);
    if (this.current[cpu]) this.proceed(cpu);
  }

  /** Throttled CPUs run again, in CPU order, while the pool has runtime to give. */
  private distribute(): void {
    for (let cpu = 0; cpu < this.cpus && this.pool > 0; cpu++) if (this.throttledSince[cpu]! >= 0) this.unthrottle(cpu);
  }

  /** A CPU with nothing left to run hands back all but 1 ms; throttled CPUs get it when the slack timer fires. */
  private goIdle(cpu: number): void {
    if (!this.limited) return;
    const slack = this.local[cpu]! - MIN_RUNTIME_US;
    if (slack <= 0) return;
    this.local[cpu] = MIN_RUNTIME_US;
    this.pool += slack;
    if (this.pool > this.settings.sliceUs && this.throttledCpus > 0 && this.slackTimer === NO_EVENT) {
      this.slackTimer = this.sched.after(SLACK_US as Duration, this.shared.slack, this.index);
    }
  }
}

/**
 * Kubernetes sets the quota to limits.cpu × the period (docs/sources/linux-cfs.md#kubernetes-cpu-limits); no limit is
 * no quota.
 */
export function quotaFor(limitCores: number | undefined, periodUs: number): number {
  return limitCores === undefined || limitCores <= 0 ? Infinity : limitCores * periodUs;
}
