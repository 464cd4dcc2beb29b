import { FluidPackets } from '../net/fluid-packets';
import { formatCount } from '../core/format';
import type { SimContext } from '../context';
import type { HaproxyParams } from './haproxy-params';
import type { Counter, Histogram } from '../core/metrics';
import type { EventHandle, HandlerId } from '../core/scheduler';
import type { RngStream } from '../core/rng';
import { millis, seconds, toSeconds, type SimTime } from '../core/time';
import type { MeshServer, MeshServers } from './mesh-server';
import { diffListings } from './listing';
import { tryBackend, type MeshProxy, type Outcome } from './outcome';
import type { Registration } from './zookeeper';
import type { Pod } from '../infra/pod';
import type { TcpParams } from '../net/tcp-params';
import { CheckTraffic } from './check-traffic';
import { bound, onMember } from '../core/snapshot';

const TURNAROUND_MS = 1000;
const NO_LINES: readonly Registration[] = [];
// Model choice: a server's health counter is read back over at most 8 × (rise + fall) checks
// (docs/sources/service-discovery.md#health-check-saturation).
const REPLAY_RUNS = 8;

/** One HAProxy process: the configuration it parsed, and its life from start to exit. */
export interface Process {
  pid: number;
  /** When it finished parsing and took over the listening sockets; Infinity while still parsing. */
  activeAt: number;
  /** Server lines by service, as synapse wrote them when the reload began. */
  config: Map<string, readonly Registration[]>;
  lines: number;
  memoryMb: number;
}

/**
 * Every client pod's HAProxy under synapse: the shared timers and instruments.
 *
 * A changed backend list reaches HAProxy in two ways (docs/sources/service-discovery.md#synapse): servers already in
 * the running configuration are enabled or disabled over the stats socket at once; a server it does not have yet needs
 * a new configuration and a reload, at most one per restart interval. A reload starts a new process that parses the
 * whole configuration (M services × N servers) before it takes over; the old process keeps its memory until its last
 * connection closes (docs/sources/service-discovery.md#haproxy-reloads). A new process knows nothing of its
 * predecessor's health checks: every server starts UP and is marked DOWN only after `fall` failed checks, one every
 * `inter`.
 */
export class Haproxies {
  readonly reload: HandlerId;
  readonly activate: HandlerId;
  readonly exit: HandlerId;
  readonly reloads: Counter;
  readonly reloadSeconds: Histogram;
  readonly rng: RngStream;
  private readonly instances: Haproxy[] = [];
  readonly traffic: CheckTraffic;
  /** Picks that passed over a backend which was serving, because the process's checks of it had failed. */
  readonly skippedLive: Counter;
  private readonly checkPackets: FluidPackets;
  /** Outcomes of one server's checks, the latest first, while markedDown reads them back. */
  readonly passedScratch: boolean[] = [];
  /** Server lines the active processes check, since `checkedSince`; the fractions of a packet not yet booked. */
  private checkedLines = 0;
  private checkedSince = 0;

  constructor(
    readonly ctx: SimContext,
    readonly servers: MeshServers,
    readonly settings: HaproxyParams,
    /** synapse restarts HAProxy at most this often (`params.synapse.restartIntervalS`). */
    readonly restartIntervalS: number,
    tcp: TcpParams,
  ) {
    const s = ctx.sched;
    this.reload = s.register('haproxy.reload', onMember(this.instances, 'onReload'));
    this.activate = s.register('haproxy.activate', onMember(this.instances, 'onActivate'));
    this.exit = s.register('haproxy.exit', onMember(this.instances, 'onExit'));
    this.reloads = ctx.metrics.counter('haproxy.reloads');
    this.reloadSeconds = ctx.metrics.histogram('haproxy.reload.seconds', [0.5, 1, 2, 3, 5, 10, 30]);
    this.rng = ctx.rng.stream('haproxy');
    this.checkPackets = new FluidPackets(ctx, ctx.metrics.counter('haproxy.checks.packets'), ctx.metrics.counter('haproxy.checks.packets.dropped'), 'hypervisor_pps_exceeded');
    this.skippedLive = ctx.metrics.counter('haproxy.skipped_live_servers');
    this.traffic = new CheckTraffic(ctx, settings.checkPackets, settings.checkInterMs, tcp, bound(this, this.bookChecks), REPLAY_RUNS * (settings.rise + settings.fall));
  }

  /**
   * A process on `from` stops checking the lines of `before` and starts checking those of `after`, each once per
   * `inter`, all but those deleted by `disabledAt` (synapse disabled them); call bookChecks() first. A line on both
   * lists keeps its checks, so the cost follows what changed, not the length of the lists.
   */
  recheck(from: Pod, before: readonly Registration[], after: readonly Registration[], disabledAt: number): void {
    if (before === after) return;
    let count = 0;
    diffListings(before, after, {
      removed: (r) => {
        if (r.deletedAt <= disabledAt) return;
        count--;
        this.checkLine(r, -1);
      },
      added: (r) => {
        if (r.deletedAt <= disabledAt) return;
        count++;
        this.checkLine(r, 1);
      },
    });
    this.traffic.add(from.host, count);
    this.checkedLines += count;
  }

  /**
   * synapse hands a process on `from` the list `after` of a service whose running lines are `running`: the process
   * stops checking the running lines deleted in (since, until], which synapse disables; call bookChecks() first.
   * Returns whether `after` has a server the process lacks, which needs a reload. One walk of both lists does both.
   */
  disableDeleted(from: Pod, running: readonly Registration[], after: readonly Registration[], since: number, until: number): boolean {
    let count = 0;
    let addition = false;
    const disable = (r: Registration): void => {
      if (r.deletedAt <= since || r.deletedAt > until) return;
      count++;
      this.checkLine(r, -1);
    };
    diffListings(running, after, { removed: disable, kept: disable, added: () => (addition = true) });
    this.traffic.add(from.host, -count);
    this.checkedLines -= count;
    return addition;
  }

  /** One line's checks start (1) or stop (-1) at its backend; the checking end is counted by the caller. */
  private checkLine(r: Registration, sign: 1 | -1): void {
    const server = this.servers.of(r.pod);
    if (!server) return;
    server.checkers += sign;
    this.traffic.add(server.pod.host, sign);
  }

  /**
   * Books the checks' packets up to now as a flow, lines / inter checks a second of `checkPackets` each, rather than
   * an event per check (docs/sources/service-discovery.md#health-check-traffic); the share the nodes' allowances drop
   * (docs/sources/service-discovery.md#health-check-saturation) is booked as dropped. Whole packets only, the fractions
   * carried to the next booking.
   */
  bookChecks(): void {
    const now = this.ctx.sched.now;
    const checks = (this.checkedLines * (now - this.checkedSince)) / (this.settings.checkInterMs * 1000);
    this.checkedSince = now;
    const packets = checks * this.settings.checkPackets;
    this.checkPackets.book(packets, packets * this.traffic.lossShare);
  }

  create(pod: Pod, services: readonly string[]): Haproxy {
    const instance = new Haproxy(this, this.instances.length, pod, services);
    this.instances.push(instance);
    return instance;
  }

  /** Live processes over every client pod, and the checks a second the active ones make of their enabled servers. */
  census(): { processes: number; checksPerSecond: number } {
    this.bookChecks();
    let processes = 0;
    for (const instance of this.instances) processes += instance.processCount();
    return { processes, checksPerSecond: this.checkedLines / (this.settings.checkInterMs / 1000) };
  }
}

export class Haproxy implements MeshProxy {
  readonly kind = 'haproxy';
  private readonly processes: Process[] = [];
  private active: Process | null = null;
  private nextPid = 1;
  /** synapse's latest list of each service, and when it was read. */
  private readonly desired = new Map<string, readonly Registration[]>();
  private readonly readAt = new Map<string, number>();
  private lastReloadAt = -Infinity;
  private reloadTimer: EventHandle | null = null;
  private readonly cursor = new Map<string, number>();
  private stopped = false;

  constructor(
    private readonly all: Haproxies,
    private readonly index: number,
    readonly pod: Pod,
    private readonly services: readonly string[],
  ) {}

  /** The client pod, by name. */
  get owner(): string {
    return this.pod.entity;
  }

  /** The first configuration, written before the pod serves: it takes over at once. */
  startWith(lists: ReadonlyMap<string, readonly Registration[]>): void {
    for (const [service, list] of lists) {
      this.desired.set(service, list);
      this.readAt.set(service, this.all.ctx.sched.now);
    }
    const process = this.spawn();
    process.activeAt = this.all.ctx.sched.now;
    this.active = process;
    this.moveChecks(null, process);
    this.lastReloadAt = this.all.ctx.sched.now;
  }

  update(service: string, list: readonly Registration[]): void {
    if (this.stopped || this.desired.get(service) === list) return;
    this.desired.set(service, list);
    const now = this.all.ctx.sched.now;
    const running = this.active?.config.get(service);
    // Servers the running process has are enabled or disabled over the stats socket (see `disabled`): the deleted
    // ones stop being checked. A new one needs a reload.
    let addition = list.length > 0;
    if (running) {
      this.all.bookChecks();
      addition = this.all.disableDeleted(this.pod, running, list, this.readAt.get(service) ?? -Infinity, now);
    }
    this.readAt.set(service, now);
    if (addition) this.requestReload();
  }

  forward(service: string): Outcome {
    const h = this.all.settings;
    const outcome: Outcome = { backend: null, failure: null, connectMs: 0, goneAttempts: 0, gone: null };
    const first = this.pick(service, null);
    if (!first) {
      outcome.failure = 'no_server';
      return outcome;
    }
    // `retries` more attempts after the first; with `option redispatch` the last of them goes to another server.
    let target: Registration = first;
    let refused = false;
    for (let attempt = 0; attempt <= h.retries; attempt++) {
      if (attempt === h.retries && attempt > 0) {
        const other = this.pick(service, first);
        if (other) target = other;
      }
      // Before retrying after a refusal, HAProxy waits a turn-around of min(timeout connect, 1 s) (manual, `retries`).
      if (refused) outcome.connectMs += Math.min(h.connectTimeoutMs, TURNAROUND_MS);
      const tried = tryBackend(this.all.servers, target, h.connectTimeoutMs);
      refused = !tried.server && !tried.gone;
      outcome.connectMs += tried.costMs;
      if (tried.server) {
        outcome.backend = tried.server;
        return outcome;
      }
      if (tried.gone) {
        outcome.goneAttempts++;
        outcome.gone ??= target;
      }
    }
    outcome.failure = 'connect_failed';
    return outcome;
  }

  describe(): [string, string][] {
    const parsing = this.processes.filter((p) => p.activeAt === Infinity).length;
    return [
      ['HAProxy processes', `${this.processes.length}${parsing > 0 ? `, ${parsing} still parsing` : ''}`],
      ['server lines in the running configuration', formatCount(this.active?.lines ?? 0)],
      ['restarts so far', formatCount(this.nextPid - 2)],
    ];
  }

  memoryMb(): number {
    let sum = 0;
    for (const p of this.processes) sum += p.memoryMb;
    return sum;
  }

  processCount(): number {
    return this.processes.length;
  }

  activeLines(): number {
    return this.active?.lines ?? 0;
  }

  stop(): void {
    this.stopped = true;
    if (this.reloadTimer) this.all.ctx.sched.cancel(this.reloadTimer);
    if (this.active) this.moveChecks(this.active, null);
    this.processes.length = 0;
    this.active = null;
  }

  /** Round robin over the servers the active process has UP, skipping `except`. */
  private pick(service: string, except: Registration | null): Registration | null {
    const process = this.active;
    const list = process?.config.get(service);
    if (!process || !list || list.length === 0) return null;
    const start = this.cursor.get(service) ?? 0;
    for (let i = 0; i < list.length; i++) {
      const r = list[(start + i) % list.length]!;
      if (r === except || this.disabled(r) || this.markedDown(r, process)) continue;
      this.cursor.set(service, (start + i + 1) % list.length);
      return r;
    }
    return null;
  }

  /**
   * The checks move from process `from` to process `to` (null: none before the first, none after the last), for every
   * server line but those synapse has disabled: HAProxy does not check a server in maintenance. A process that
   * soft-stops after a reload stops its checks (docs/sources/service-discovery.md#haproxy-health-checks). A service
   * whose list the reload left as it was costs nothing.
   */
  private moveChecks(from: Process | null, to: Process | null): void {
    this.all.bookChecks();
    for (const service of this.services) {
      this.all.recheck(this.pod, from?.config.get(service) ?? NO_LINES, to?.config.get(service) ?? NO_LINES, this.readAt.get(service) ?? -Infinity);
    }
  }

  /**
   * Whether synapse has disabled the server over the stats socket: it is gone from the latest list of its service. A
   * server on that list was never deleted, or only after the read that produced it.
   */
  private disabled(r: Registration): boolean {
    return r.deletedAt <= (this.readAt.get(r.service) ?? -Infinity);
  }

  /**
   * Whether the process's health checks have marked a server DOWN by now (docs/sources/service-discovery.md#haproxy-health-checks).
   * A process checks each server every `inter`, its first checks spread over one interval. A server starts UP with
   * health `rise`, so its first failed check marks it DOWN; once a check has passed it takes `fall` failures in a row,
   * and a DOWN server comes back after `rise` passes in a row. A check fails at once at a backend that refuses, and
   * after its timeout (`inter`, as no `timeout check` is set) at an address nobody holds or when the nodes' packet
   * allowances drop its handshake (docs/sources/service-discovery.md#health-check-saturation).
   */
  private markedDown(r: Registration, process: Process): boolean {
    const all = this.all;
    const server = all.servers.of(r.pod);
    const now = all.ctx.sched.now;
    const inter = millis(all.settings.checkInterMs);
    // Model choice: a server's place in the spread follows its pod's number, a fixed fraction of the interval.
    const first = process.activeAt + Math.floor(((r.pod * 0.6180339887) % 1) * inter);
    if (now < first) return false;
    const serving = server?.state === 'serving';
    if (serving && !all.traffic.lossSince(this.pod.host, server.pod.host, first)) return false;
    const { rise, fall } = all.settings;
    // Health stays within [0, rise + fall - 1]: `rise` passes in a row leave it at the top and `fall` failures in a row
    // at 0, whatever it was before, so the checks are read back to the latest such run and replayed from there. The
    // loss is kept for 8 × (rise + fall) checks, in which such a run is all but certain; a server without one there is
    // replayed from the oldest check kept, with the health a new server starts at.
    const passed = all.passedScratch;
    const last = Math.floor((now - first) / inter);
    const oldest = Math.max(0, Math.ceil((all.traffic.heldSince - first) / inter));
    let end = last;
    let health = rise;
    let from = oldest;
    for (let k = last, passes = 0, failures = 0; k >= oldest; k--) {
      const t = first + k * inter;
      const failure = this.checkFailure(server, process, k, t);
      // The latest check may still wait for its answer: it has not ended.
      if (failure === 'timeout' && t + inter > now) {
        end = k - 1;
        continue;
      }
      passed[last - k] = failure === null;
      passes = failure === null ? passes + 1 : 0;
      failures = failure === null ? 0 : failures + 1;
      if (passes === rise || failures === fall) {
        health = passes === rise ? rise + fall - 1 : 0;
        from = k + (passes === rise ? rise : fall);
        break;
      }
    }
    for (let k = from; k <= end; k++) health = passed[last - k] ? (health + 1 >= rise ? rise + fall - 1 : health + 1) : health - 1 < rise ? 0 : health - 1;
    const down = health < rise;
    if (down && serving) all.skippedLive.inc();
    return down;
  }

  /** How check number `k` of a server, made at `t`, ends: passed (null), refused, or timed out. */
  private checkFailure(server: MeshServer | undefined, process: Process, k: number, t: number): 'refused' | 'timeout' | null {
    if (!server) return 'timeout';
    if (!server.serving && t >= server.changedAt) return server.state === 'gone' ? 'timeout' : 'refused';
    const traffic = this.all.traffic;
    const fails = traffic.checkFailsAt(this.pod.host, server.pod.host, t);
    if (fails > 0 && traffic.draw(this.index * 65_536 + process.pid, server.pod.index, k) < fails) return 'timeout';
    return null;
  }

  private requestReload(): void {
    if (this.reloadTimer) return;
    const h = this.all.ctx;
    const earliest = this.lastReloadAt + seconds(this.all.restartIntervalS);
    const at = Math.max(h.sched.now, earliest) as SimTime;
    this.reloadTimer = h.sched.at(at, this.all.reload, this.index);
  }

  /** synapse writes the configuration from its latest lists and starts a new process with it. */
  onReload(): void {
    this.reloadTimer = null;
    if (this.stopped) return;
    const ctx = this.all.ctx;
    this.lastReloadAt = ctx.sched.now;
    const process = this.spawn();
    const h = this.all.settings;
    const parse = millis(h.reloadBaseMs + h.reloadPerServerMs * process.lines);
    this.all.reloads.inc();
    this.all.reloadSeconds.observe(toSeconds(parse));
    ctx.sched.after(parse, this.all.activate, this.index, process.pid);
  }

  /** The new process has parsed its configuration and takes the listening sockets; the old one starts to drain. */
  onActivate(pid: number): void {
    const process = this.processes.find((p) => p.pid === pid);
    if (!process || this.stopped) return;
    const ctx = this.all.ctx;
    const old = this.active;
    process.activeAt = ctx.sched.now;
    this.active = process;
    this.moveChecks(old, process);
    if (old) this.retire(old);
  }

  onExit(pid: number): void {
    const at = this.processes.findIndex((p) => p.pid === pid);
    if (at >= 0) this.processes.splice(at, 1);
  }

  /**
   * An old process stops listening but lives, with its memory, until the last of the app's connections to it closes;
   * each is recycled after an exponentially distributed time, so the process lasts the longest of them, unless
   * hard-stop-after ends it first.
   */
  private retire(process: Process): void {
    const ctx = this.all.ctx;
    const h = this.all.settings;
    let longest = 0;
    for (let i = 0; i < h.clientConnections; i++) longest = Math.max(longest, this.all.rng.exponential(h.connectionLifetimeS));
    if (h.hardStopAfterS > 0) longest = Math.min(longest, h.hardStopAfterS);
    ctx.sched.after(seconds(longest), this.all.exit, this.index, process.pid);
  }

  /** A process for synapse's current lists: its memory grows with its server lines from the moment it starts. */
  private spawn(): Process {
    const h = this.all.settings;
    const config = new Map<string, readonly Registration[]>();
    let lines = 0;
    for (const service of this.services) {
      const list = this.desired.get(service) ?? [];
      config.set(service, list);
      lines += list.length;
    }
    const process: Process = {
      pid: this.nextPid++,
      activeAt: Infinity,
      config,
      lines,
      memoryMb: h.memoryBaseMb + (h.memoryPerServerKb * lines) / 1024,
    };
    this.processes.push(process);
    return process;
  }
}
