import type { SynapseParams } from './synapse-params';
import type { SimContext } from '../context';
import type { HandlerId } from '../core/scheduler';
import type { RngStream } from '../core/rng';
import { millis, type SimTime } from '../core/time';
import type { Registration, ZkReader, ZkWatcher, ZooKeeper } from './zookeeper';
import { onMember } from '../core/snapshot';

/** Where a watcher sends the lists it reads: the pod's HAProxy (through synapse) or Envoy (through the xDS shim). */
export type ListSink = (service: string, list: readonly Registration[]) => void;

/**
 * synapse's ZooKeeper watcher for one service in one client pod (docs/sources/service-discovery.md#zookeeper-reads): it
 * reads the service's children and their data, which also sets a new one-shot watch, and reads again whenever the watch
 * fires. Notifications that arrive during a read are handled after it, as one more read. The talk's fix adds a random
 * delay before each read and a minimum interval between reads.
 */
export class ServiceWatcher implements ZkReader, ZkWatcher {
  private reading = false;
  private scheduled = false;
  private pending = false;
  private lastStart = -Infinity;
  private session = -1;
  /** When the list the proxy has was read, and when the change it missed happened, for "stale" in the why chain. */
  readAt = 0 as SimTime;
  list: readonly Registration[] = [];

  constructor(
    private readonly watchers: ServiceWatchers,
    readonly index: number,
    readonly owner: string,
    readonly service: string,
    private readonly sink: ListSink,
  ) {}

  /** Starts watching with a session: reads now, or takes the list the pod already had at the start of the run. */
  begin(session: number, steady: boolean): void {
    this.session = session;
    this.reading = false;
    this.scheduled = false;
    this.pending = false;
    if (steady) {
      this.watchers.zk.prime(session, this.service, this);
      this.list = this.watchers.zk.children(this.service);
      this.readAt = this.watchers.ctx.sched.now;
      this.sink(this.service, this.list);
    } else this.schedule();
  }

  /** A read is running or waiting to start. */
  get busy(): boolean {
    return this.reading || this.scheduled;
  }

  /** The pod is gone: timers still set are ignored. */
  end(): void {
    this.session = -1;
    this.scheduled = false;
  }

  onChildrenChanged(): void {
    if (this.session < 0) return;
    if (this.reading) this.pending = true;
    else if (!this.scheduled) this.schedule();
  }

  onRead(children: readonly Registration[]): void {
    this.reading = false;
    this.list = children;
    this.readAt = this.watchers.ctx.sched.now;
    this.sink(this.service, children);
    if (this.pending) {
      this.pending = false;
      this.schedule();
    }
  }

  /** The read starts after the jitter, and no sooner than the minimum interval after the last one. */
  private schedule(): void {
    const ctx = this.watchers.ctx;
    const s = this.watchers.settings;
    const jitter = s.readJitterMs > 0 ? this.watchers.rng.range(0, s.readJitterMs) : 0;
    const at = Math.max(ctx.sched.now + millis(jitter), this.lastStart + millis(s.minReadIntervalMs));
    this.scheduled = true;
    ctx.sched.at(at as SimTime, this.watchers.start, this.index, this.session);
  }

  /** Called by the shared timer; a timer set under a session that has since expired is stale and ignored. */
  startRead(session: number): void {
    if (session !== this.session || !this.scheduled) return;
    this.scheduled = false;
    this.reading = true;
    this.lastStart = this.watchers.ctx.sched.now;
    this.watchers.zk.read(this.session, this.service, this, this);
  }
}

/** Every watcher of the run, with their shared timer and random stream. */
export class ServiceWatchers {
  readonly start: HandlerId;
  readonly rng: RngStream;
  private readonly all: ServiceWatcher[] = [];

  constructor(
    readonly ctx: SimContext,
    readonly zk: ZooKeeper,
    /** How often synapse may read a watched list (`params.synapse`). */
    readonly settings: SynapseParams,
  ) {
    this.start = ctx.sched.register('synapse.read', onMember(this.all, 'startRead'));
    this.rng = ctx.rng.stream('synapse');
  }

  create(owner: string, service: string, sink: ListSink): ServiceWatcher {
    const watcher = new ServiceWatcher(this, this.all.length, owner, service, sink);
    this.all.push(watcher);
    return watcher;
  }

  /** Watchers of a service, for the "why" chain. */
  of(service: string): ServiceWatcher[] {
    return this.all.filter((w) => w.service === service);
  }
}
