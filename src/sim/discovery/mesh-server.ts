import { bound } from '../core/snapshot';
import type { InspectSection } from '../api';
import { formatCount } from '../core/format';
import type { NerveParams } from './nerve-params';
import type { SimContext } from '../context';
import type { HandlerId } from '../core/scheduler';
import { millis, type SimTime } from '../core/time';
import type { Pod, PodApp } from '../infra/pod';
import type { Registration, ZooKeeper } from './zookeeper';

export type AnnouncerKind = 'nerve' | 'mini-announcer';

/** Whether a backend answers a new connection now, and since when that has been so. */
export type BackendState = 'serving' | 'refusing' | 'gone';

/**
 * A backend of a discovered service: the app answers requests until SIGTERM, then refuses new connections and exits
 * once its requests in flight are done. Its announcer (a sidecar) keeps its registration in ZooKeeper in step:
 * - nerve checks the app every check interval and registers after `rise` passes, deregisters after `fall` failures;
 * - the Kubernetes mini announcer polls the pod's status, registers once the pod is ready and deregisters in preStop.
 * Either one's ZooKeeper session closes when the pod is gone, which deletes a registration still left.
 */
export class MeshServer implements PodApp {
  serving = false;
  /** When the backend last started or stopped answering checks. */
  changedAt = 0 as SimTime;
  inFlight = 0;
  /** Active HAProxy processes whose configuration lists this backend: each one checks it once every `inter`. */
  checkers = 0;
  /** When each worker is next free, in simulated µs. */
  private readonly freeAt: number[];
  private exit: (() => void) | null = null;
  private session = -1;
  private registration: Registration | null = null;
  private passes = 0;
  private failures = 0;
  private announcing = false;
  /** The mini announcer's preStop hook has run: it stays deregistered. */
  private stopped = false;

  constructor(
    private readonly servers: MeshServers,
    readonly pod: Pod,
    readonly service: string,
    readonly announcer: AnnouncerKind,
  ) {
    this.freeAt = new Array<number>(servers.capacity.workers).fill(0);
  }

  /**
   * Share of each worker's time the health checks take: checkers / inter checks a second, each costing `checkCostMs`,
   * spread over the workers (docs/sources/service-discovery.md#backend-queue).
   */
  checkLoad(): number {
    const { workers, checkCostMs, checkInterMs } = this.servers.capacity;
    return ((this.checkers / (checkInterMs / 1000)) * (checkCostMs / 1000)) / workers;
  }

  /**
   * A request that arrives at `at` (µs) and needs `serviceMs` of a worker: it waits for the worker that frees first
   * (first come, first served) and runs at the speed the health checks leave it. Returns its wait and its time in
   * service, in ms; an infinite service when checks take every worker's whole time.
   */
  serve(at: number, serviceMs: number): { waitMs: number; serviceMs: number } {
    const spare = 1 - this.checkLoad();
    if (spare <= 0) return { waitMs: 0, serviceMs: Infinity };
    let k = 0;
    for (let i = 1; i < this.freeAt.length; i++) if (this.freeAt[i]! < this.freeAt[k]!) k = i;
    const start = Math.max(at, this.freeAt[k]!);
    const busyMs = serviceMs / spare;
    this.freeAt[k] = start + busyMs * 1000;
    return { waitMs: (start - at) / 1000, serviceMs: busyMs };
  }

  inspect(): InspectSection[] {
    const now = this.servers.ctx.sched.now;
    const { workers, checkInterMs } = this.servers.capacity;
    const busy = this.freeAt.filter((t) => t > now).length;
    const backlogMs = Math.max(0, Math.min(...this.freeAt) - now) / 1000;
    const rows: [string, string][] = [
      ['health checks', `${formatCount(Math.round(this.checkers / (checkInterMs / 1000)))}/s from ${formatCount(this.checkers)} HAProxy processes`],
      ['workers', `${busy} of ${workers} busy, ${Math.round(this.checkLoad() * 100)} % of their time on checks`],
      ['queue', backlogMs > 0 ? `a new request waits ${backlogMs.toFixed(1)} ms` : 'empty'],
    ];
    return [{ title: 'Backend', rows }];
  }

  get state(): BackendState {
    if (this.serving) return 'serving';
    return this.pod.phase === 'gone' ? 'gone' : 'refusing';
  }

  start(): void {
    this.setServing(true);
    if (this.session < 0) this.openSession();
    if (!this.announcing) {
      this.announcing = true;
      this.check();
    }
  }

  preStop(): void {
    if (this.announcer !== 'mini-announcer') return;
    this.stopped = true;
    this.deregister();
  }

  terminate(exit: () => void): void {
    this.setServing(false);
    this.exit = exit;
    if (this.inFlight === 0) this.done();
  }

  killed(): void {
    this.setServing(false);
    if (this.pod.phase !== 'gone') return;
    this.announcing = false;
    if (this.session >= 0) this.servers.zk.closeSession(this.session);
    this.registration = null;
  }

  /** A request the backend accepted has been answered. */
  answered(): void {
    this.inFlight--;
    if (this.exit && this.inFlight === 0) this.done();
  }

  /** One round of the announcer: a health check (nerve) or a look at the pod's status (mini announcer). */
  check(): void {
    if (!this.announcing) return;
    const s = this.servers.nerve;
    if (this.announcer === 'nerve') {
      if (this.serving) {
        this.failures = 0;
        this.passes++;
      } else {
        this.passes = 0;
        this.failures++;
      }
      if (this.passes >= s.rise) this.register();
      else if (this.failures >= s.fall) this.deregister();
    } else if (!this.stopped) {
      if (this.pod.phase === 'running' && this.pod.ready && this.serving) this.register();
      else this.deregister();
    }
    const period = this.announcer === 'nerve' ? s.checkIntervalMs : s.announcerPollMs;
    this.servers.ctx.sched.after(millis(period), this.servers.checkHandler, this.pod.index);
  }

  private openSession(): void {
    this.session = this.servers.zk.openSession(this.pod.entity, bound(this, this.sessionExpired));
  }

  /** The session expired with the registration in it; a new session registers again at the next check. */
  private sessionExpired(): void {
    this.registration = null;
    this.openSession();
  }

  private register(): void {
    if (this.registration) return;
    this.registration = this.servers.zk.register(this.session, this.service, this.pod.index, this.pod.name);
    if (this.registration) this.servers.ctx.note('info', this.pod.entity, 'zk.registered', `registered in ZooKeeper under /services/${this.service} by ${this.announcer}`);
  }

  private deregister(): void {
    if (!this.registration) return;
    if (!this.servers.zk.deregister(this.registration)) return;
    this.registration = null;
    const ctx = this.servers.ctx;
    ctx.note('info', this.pod.entity, 'zk.deregistered', `deregistered from /services/${this.service} by ${this.announcer}`);
    ctx.causes.record('zk_deregistered', this.pod.entity, ctx.sched.now, { service: this.service, by: this.announcer });
  }

  private setServing(serving: boolean): void {
    if (this.serving === serving) return;
    this.serving = serving;
    this.changedAt = this.servers.ctx.sched.now;
  }

  private done(): void {
    const exit = this.exit!;
    this.exit = null;
    exit();
  }
}

/** A backend's workers (`params.mesh.backendWorkers`) and the health checks that share them (`params.haproxy`). */
export interface BackendCapacity {
  workers: number;
  checkCostMs: number;
  checkInterMs: number;
}

/** Every mesh backend of the run, by pod index, with the announcers' shared timer. */
export class MeshServers {
  readonly checkHandler: HandlerId;
  private readonly byPod = new Map<number, MeshServer>();

  constructor(
    readonly ctx: SimContext,
    readonly zk: ZooKeeper,
    /** How nerve checks and announces (`params.nerve`). */
    readonly nerve: NerveParams,
    /** What each backend can serve, and what one HAProxy health check of it costs. */
    readonly capacity: BackendCapacity,
  ) {
    this.checkHandler = ctx.sched.register('announcer.check', bound(this, this.checkPod));
  }

  /** The app of a new pod; a restarted container gets its pod's app back, as the announcer sidecar never stopped. */
  create(pod: Pod, service: string, announcer: AnnouncerKind): MeshServer {
    let server = this.byPod.get(pod.index);
    if (!server) this.byPod.set(pod.index, (server = new MeshServer(this, pod, service, announcer)));
    return server;
  }

  /** Every backend app the run has made, gone pods' included. */
  all(): IterableIterator<MeshServer> {
    return this.byPod.values();
  }

  private checkPod(pod: number): void {
    this.byPod.get(pod)?.check();
  }

  /** The backend app of a pod; undefined for a pod that runs none (or no longer: a crashed container). */
  of(pod: number): MeshServer | undefined {
    return this.byPod.get(pod);
  }
}
