import type { SimContext } from '../context';
import type { Gauge } from '../core/metrics';
import type { EventHandle, HandlerId } from '../core/scheduler';
import { seconds, simTime, type Duration } from '../core/time';
import { bound } from '../core/snapshot';

export interface SyncRunnerSettings {
  /** Least time between sync starts once the burst is spent. */
  minSyncPeriod: Duration;
  /** A sync runs at least this long after the previous one ended, changes or not. */
  syncPeriod: Duration;
  /** Syncs that may start back to back before minSyncPeriod applies. */
  burstSyncs: number;
}

/** What the runner drives: `startSync` begins a node's sync and says how long it takes; `finishSync` ends it. */
export interface SyncWork {
  startSync(node: number): Duration;
  finishSync(node: number): void;
}

const NONE = -1;
const BUSY_WINDOW = seconds(1);

/**
 * kube-proxy's BoundedFrequencyRunner (pkg/util/async), one per node, all on one set of handlers. `run(node)` asks
 * for a sync: it starts at once if the node's token bucket (burstSyncs tokens, one back per minSyncPeriod) has a
 * token, otherwise minSyncPeriod after the previous sync ended. A request during a sync waits for it to end. After
 * each sync a timer asks again syncPeriod later. Also keeps `kube_proxy.busy`: the largest share of the last second
 * any node spent syncing.
 */
export class BoundedFrequencyRunner {
  private readonly tokens: Float64Array;
  private readonly tokensAt: Float64Array;
  private readonly lastEnd: Float64Array;
  private readonly running: Uint8Array;
  private readonly requested: Uint8Array;
  private readonly timer: Float64Array;
  private readonly timerAt: Float64Array;
  private readonly busyUs: Float64Array;
  private readonly busySince: Float64Array;
  /** Share of the last full second each node spent syncing. */
  readonly busy: Float64Array;
  private readonly busyGauge: Gauge;
  private readonly tryHandler: HandlerId;
  private readonly endHandler: HandlerId;
  private readonly tickHandler: HandlerId;

  constructor(
    private readonly ctx: SimContext,
    nodeCount: number,
    private readonly settings: SyncRunnerSettings,
    private readonly work: SyncWork,
  ) {
    if (!(settings.burstSyncs >= 1)) throw new RangeError(`burstSyncs must be at least 1, got ${settings.burstSyncs}`);
    this.tokens = new Float64Array(nodeCount).fill(settings.burstSyncs);
    this.tokensAt = new Float64Array(nodeCount).fill(ctx.sched.now);
    this.lastEnd = new Float64Array(nodeCount).fill(-Infinity);
    this.running = new Uint8Array(nodeCount);
    this.requested = new Uint8Array(nodeCount);
    this.timer = new Float64Array(nodeCount).fill(NONE);
    this.timerAt = new Float64Array(nodeCount).fill(Infinity);
    this.busyUs = new Float64Array(nodeCount);
    this.busySince = new Float64Array(nodeCount);
    this.busy = new Float64Array(nodeCount);
    this.busyGauge = ctx.metrics.gauge('kube_proxy.busy');
    this.tryHandler = ctx.sched.register('kube-proxy.sync-due', bound(this, this.due));
    this.endHandler = ctx.sched.register('kube-proxy.sync-end', bound(this, this.end));
    this.tickHandler = ctx.sched.register('kube-proxy.busy', bound(this, this.tick));
    ctx.sched.after(BUSY_WINDOW, this.tickHandler);
  }

  /** Whether the node is in the middle of a sync. */
  syncing(node: number): boolean {
    return this.running[node] === 1;
  }

  /** Asks for a sync of the node as soon as the rate limit allows (BoundedFrequencyRunner.Run). */
  run(node: number): void {
    this.tryRun(node);
  }

  /** Starts the periodic timer of a node whose rules were programmed without a sync (start of the run). */
  synced(node: number): void {
    this.lastEnd[node] = this.ctx.sched.now;
    this.arm(node, this.ctx.sched.now + this.settings.syncPeriod);
  }

  /** A node's timer fired: it has none now, and may sync. */
  private due(node: number): void {
    this.timer[node] = NONE;
    this.timerAt[node] = Infinity;
    this.tryRun(node);
  }

  private tryRun(node: number): void {
    if (this.running[node]) {
      this.requested[node] = 1;
      return;
    }
    const now = this.ctx.sched.now;
    const period = this.settings.minSyncPeriod;
    if (period > 0) {
      this.tokens[node] = Math.min(this.settings.burstSyncs, this.tokens[node]! + (now - this.tokensAt[node]!) / period);
      this.tokensAt[node] = now;
      // The epsilon keeps a token that refilled exactly on time from reading as 0.999….
      if (this.tokens[node]! < 1 - 1e-9) {
        const tokenAt = now + Math.ceil((1 - this.tokens[node]!) * period);
        this.arm(node, Math.max(this.lastEnd[node]! + period, tokenAt));
        return;
      }
      this.tokens[node]!--;
    }
    this.start(node);
  }

  private start(node: number): void {
    const now = this.ctx.sched.now;
    this.running[node] = 1;
    this.requested[node] = 0;
    this.busySince[node] = now;
    this.ctx.sched.after(this.work.startSync(node), this.endHandler, node);
  }

  private end(node: number): void {
    const now = this.ctx.sched.now;
    this.running[node] = 0;
    this.busyUs[node]! += now - this.busySince[node]!;
    this.lastEnd[node] = now;
    this.work.finishSync(node);
    this.disarm(node);
    this.arm(node, now + this.settings.syncPeriod);
    if (this.requested[node]) this.tryRun(node);
  }

  /** Sets the node's timer to `at` unless it already fires earlier. */
  private arm(node: number, at: number): void {
    if (this.timerAt[node]! <= at) return;
    this.disarm(node);
    this.timer[node] = this.ctx.sched.at(simTime(at), this.tryHandler, node);
    this.timerAt[node] = at;
  }

  private disarm(node: number): void {
    if (this.timer[node] !== NONE) this.ctx.sched.cancel(this.timer[node] as EventHandle);
    this.timer[node] = NONE;
    this.timerAt[node] = Infinity;
  }

  private tick(): void {
    const now = this.ctx.sched.now;
    let max = 0;
    for (let node = 0; node < this.busy.length; node++) {
      if (this.running[node]) {
        this.busyUs[node]! += now - this.busySince[node]!;
        this.busySince[node] = now;
      }
      this.busy[node] = Math.min(1, this.busyUs[node]! / BUSY_WINDOW);
      this.busyUs[node] = 0;
      if (this.busy[node]! > max) max = this.busy[node]!;
    }
    this.busyGauge.set(max);
    this.ctx.sched.after(BUSY_WINDOW, this.tickHandler);
  }
}
