import type { SimContext } from '../context';
import type { ClientParams } from '../apps/http-client-params';
import type { ServerParams } from '../apps/server-params';
import type { NetworkParams } from '../infra/network-params';
import type { TcpParams } from '../net/tcp-params';
import type { EnvoyParams } from './envoy-params';
import type { HaproxyParams } from './haproxy-params';
import type { MeshSectionParams } from './mesh-params';
import type { NerveParams } from './nerve-params';
import type { SynapseParams } from './synapse-params';
import type { ZookeeperParams } from './zookeeper-params';
import type { Counter, Gauge, Histogram } from '../core/metrics';
import type { HandlerId } from '../core/scheduler';
import type { RngStream } from '../core/rng';
import { micros, millis, type SimTime } from '../core/time';
import type { Pod, PodApp } from '../infra/pod';
import type { InspectSection } from '../api';
import { Envoys } from './envoy';
import { Haproxies } from './haproxy';
import type { MeshServer, MeshServers } from './mesh-server';
import type { MeshFailure, MeshProxy, Outcome } from './outcome';
import { chooseProxy, type ProxyKind } from './proxy-choice';
import { ServiceWatchers, type ServiceWatcher } from './synapse';
import type { Registration, ZooKeeper } from './zookeeper';
import { bound, onMember } from '../core/snapshot';

/** A request on its way: which client sent it, what it reached, and how it ends. */
interface InFlight {
  client: MeshClient;
  service: string;
  backend: MeshServer | null;
  failure: MeshFailure | null;
  latencyMs: number;
  gone: Registration | null;
  sentAt: SimTime;
}

/** The share of a deployment's new pods that run Envoy, and the switch that sends them all back to HAProxy. */
export interface Rollout {
  envoyPercent: number;
  killSwitch: boolean;
}

const FAILURES: MeshFailure[] = ['timeout', 'no_server', 'connect_failed'];

// Latency buckets in ms, as the HTTP clients use: sub-millisecond answers up to multi-second timeouts.
export const LATENCY_BUCKETS = [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];

/** Every client pod of the mesh: their proxies, watchers, request timers and instruments. */
/** The parameter sections service discovery reads: its own parts' and the clients' request settings. */
export interface MeshParams {
  zookeeper: ZookeeperParams;
  nerve: NerveParams;
  synapse: SynapseParams;
  haproxy: HaproxyParams;
  envoy: EnvoyParams;
  mesh: MeshSectionParams;
  client: ClientParams;
  network: NetworkParams;
  server: ServerParams;
  tcp: TcpParams;
}

export class MeshClients {
  readonly arrive: HandlerId;
  readonly begin: HandlerId;
  private readonly finish: HandlerId;
  private readonly reach: HandlerId;
  readonly watchers: ServiceWatchers;
  readonly haproxies: Haproxies;
  readonly envoys: Envoys;
  readonly rng: RngStream;
  private readonly clients: MeshClient[] = [];
  private readonly inFlight: (InFlight | null)[] = [];
  private readonly free: number[] = [];
  private readonly sent: Counter;
  private readonly ok: Counter;
  private readonly failed: Counter;
  private readonly failedBy: Record<MeshFailure, Counter>;
  private readonly byProxy: Record<ProxyKind, { ok: Counter; failed: Counter }>;
  private readonly goneAttempts: Counter;
  private readonly latency: Histogram;
  private readonly backendWait: Histogram;
  private readonly checkLoad: Gauge;
  private readonly checksPerBackend: Gauge;
  private readonly memoryMax: Gauge;
  private readonly memoryMean: Gauge;
  private readonly processes: Gauge;
  private readonly checks: Gauge;
  private readonly envoyPods: Gauge;
  private readonly failedOf = new Map<string, Counter>();
  private readonly rollouts = new Map<string, Rollout>();

  constructor(
    readonly ctx: SimContext,
    readonly zk: ZooKeeper,
    readonly servers: MeshServers,
    private readonly params: MeshParams,
  ) {
    const m = ctx.metrics;
    this.watchers = new ServiceWatchers(ctx, zk, params.synapse);
    this.haproxies = new Haproxies(ctx, servers, params.haproxy, params.synapse.restartIntervalS, params.tcp);
    this.envoys = new Envoys(ctx, servers, params.envoy);
    this.rng = ctx.rng.stream('mesh-client');
    this.sent = m.counter('requests.sent');
    this.ok = m.counter('requests.ok');
    this.failed = m.counter('requests.failed');
    this.failedBy = Object.fromEntries(FAILURES.map((reason) => [reason, m.counter('requests.failed', { reason })])) as Record<MeshFailure, Counter>;
    this.byProxy = {
      haproxy: { ok: m.counter('mesh.requests.ok', { proxy: 'haproxy' }), failed: m.counter('mesh.requests.failed', { proxy: 'haproxy' }) },
      envoy: { ok: m.counter('mesh.requests.ok', { proxy: 'envoy' }), failed: m.counter('mesh.requests.failed', { proxy: 'envoy' }) },
    };
    this.goneAttempts = m.counter('mesh.gone_backend.attempts');
    this.latency = m.histogram('requests.latency_ms', LATENCY_BUCKETS);
    this.backendWait = m.histogram('mesh.backend.wait_ms', LATENCY_BUCKETS);
    this.checkLoad = m.gauge('mesh.backend.check_load_pct.max');
    this.checksPerBackend = m.gauge('mesh.backend.checks_per_second.max');
    this.memoryMax = m.gauge('mesh.proxy.memory_mb.max');
    this.memoryMean = m.gauge('mesh.proxy.memory_mb.mean');
    this.processes = m.gauge('haproxy.processes');
    this.checks = m.gauge('haproxy.checks_per_second');
    this.envoyPods = m.gauge('mesh.pods.envoy');
    const s = ctx.sched;
    this.arrive = s.register('mesh-client.request', onMember(this.clients, 'onArrival'));
    this.begin = s.register('mesh-client.begin', onMember(this.clients, 'onBegin'));
    this.finish = s.register('mesh-client.done', bound(this, this.onDone));
    this.reach = s.register('mesh-client.reach', bound(this, this.onReach));
  }

  /** Requests per second each client pod sends to each service it uses (`params.mesh`). */
  requestsPerSecond(): number {
    return this.params.mesh.requestsPerSecond;
  }

  /** The Envoy rollout a deployment's new pods follow: its own, once set, or params.mesh. */
  rolloutOf(deployment: string): Rollout {
    return this.rollouts.get(deployment) ?? this.params.mesh;
  }

  setRollout(deployment: string, rollout: Rollout): void {
    this.rollouts.set(deployment, rollout);
  }

  /** The app of a new client pod; its init container picks the proxy from the pod's name and the rollout settings. */
  create(pod: Pod, services: readonly string[]): MeshClient {
    const { envoyPercent, killSwitch } = this.rolloutOf(pod.deployment);
    const kind = chooseProxy(pod.name, envoyPercent, killSwitch);
    const proxy: MeshProxy = kind === 'envoy' ? this.envoys.create() : this.haproxies.create(pod, services);
    // Every used service has its failure counter from the start, so a service that never fails reads 0, not nothing.
    for (const service of services) this.failedFor(service);
    const client = new MeshClient(this, this.clients.length, pod, services, proxy);
    this.clients.push(client);
    return client;
  }

  /** Sends one request through the pod's proxy and books its end. */
  send(client: MeshClient, service: string): void {
    this.sent.inc();
    const outcome: Outcome = client.proxy.forward(service);
    this.goneAttempts.inc(outcome.goneAttempts);
    const hops = (4 * this.params.network.hopLatencyUs) / 1000;
    const { backend, failure, gone } = outcome;
    // The connection to the backend crosses both nodes' packet allowances; a lost handshake is sent again.
    const lostMs = backend ? this.haproxies.traffic.connectDelayMs(client.pod.host, backend.pod.host, this.rng) : 0;
    const connectMs = outcome.connectMs + lostMs;
    if (lostMs > 0) this.recordLostHandshake(client, service, backend!, lostMs);
    const request: InFlight = { client, service, backend, failure, latencyMs: connectMs + hops, gone, sentAt: this.ctx.sched.now };
    const slot = this.free.pop() ?? this.inFlight.length;
    this.inFlight[slot] = request;
    if (backend) backend.inFlight++;
    // A request that tried other backends first joins this one's queue when its connection is made, not before.
    if (backend && connectMs > 0 && request.latencyMs < this.params.client.requestTimeoutMs) this.ctx.sched.after(micros(connectMs * 1000), this.reach, slot);
    else this.onReach(slot);
  }

  /** The request reaches its backend's queue, or has none: its end is known. */
  private onReach(slot: number): void {
    const request = this.inFlight[slot]!;
    const deadline = this.params.client.requestTimeoutMs;
    if (request.backend && request.latencyMs < deadline) {
      const served = request.backend.serve(this.ctx.sched.now, this.rng.exponential(this.params.server.serviceTimeMs));
      this.backendWait.observe(served.waitMs);
      request.latencyMs += served.waitMs + served.serviceMs;
    }
    if (request.latencyMs >= deadline) {
      request.latencyMs = deadline;
      request.failure = 'timeout';
    }
    this.ctx.sched.at((request.sentAt + Math.round(request.latencyMs * 1000)) as SimTime, this.finish, slot);
  }

  private onDone(slot: number): void {
    const request = this.inFlight[slot]!;
    this.inFlight[slot] = null;
    this.free.push(slot);
    request.backend?.answered();
    const kind = request.client.proxy.kind;
    if (request.failure === null) {
      this.ok.inc();
      this.byProxy[kind].ok.inc();
      this.latency.observe(request.latencyMs);
      return;
    }
    this.failed.inc();
    this.failedBy[request.failure].inc();
    this.byProxy[kind].failed.inc();
    this.failedFor(request.service).inc();
    this.latency.observe(request.latencyMs);
    if (request.gone) this.recordStale(request);
  }

  private failedFor(service: string): Counter {
    let c = this.failedOf.get(service);
    if (!c) this.failedOf.set(service, (c = this.ctx.metrics.counter('mesh.requests.failed', { service })));
    return c;
  }

  /** A request's SYN or SYN-ACK was lost at a node's packet allowance and sent again after a timeout. */
  private recordLostHandshake(client: MeshClient, service: string, backend: MeshServer, lostMs: number): void {
    const [a, b] = [client.pod.host, backend.pod.host];
    const traffic = this.haproxies.traffic;
    const now = this.ctx.sched.now;
    const lossier = traffic.lossAt(a, now) >= traffic.lossAt(b, now) ? a : b;
    const instance = lossier.hypervisor?.entity ?? lossier.name;
    this.ctx.causes.record('handshake_lost', client.pod.entity, this.ctx.sched.now, {
      service,
      backend: backend.pod.entity,
      instance,
      lostMs,
      deadlineMs: this.params.client.requestTimeoutMs,
    });
  }

  /** A request failed at a backend that was gone while the client's proxy still listed it. */
  private recordStale(request: InFlight): void {
    const { client, gone } = request;
    const now = this.ctx.sched.now;
    const server = this.servers.of(gone!.pod);
    const watcher = client.watcherOf(request.service);
    this.ctx.causes.record('stale_backend', client.pod.entity, now, {
      service: request.service,
      backend: server?.pod.entity ?? `pod #${gone!.pod}`,
      goneForMs: server ? Math.round((now - server.changedAt) / 1000) : 0,
      listAgeMs: watcher ? Math.round((now - watcher.readAt) / 1000) : 0,
      proxy: client.proxy.kind,
      connectTimeoutMs: client.proxy.kind === 'envoy' ? this.envoys.settings.connectTimeoutMs : this.haproxies.settings.connectTimeoutMs,
      deadlineMs: this.params.client.requestTimeoutMs,
    });
  }

  /** Once a metrics step: the proxies' memory and HAProxy's processes over all client pods. */
  sample(): void {
    let max = 0;
    let sum = 0;
    let live = 0;
    let envoys = 0;
    for (const client of this.clients) {
      if (!client.running) continue;
      const mb = client.proxy.memoryMb();
      max = Math.max(max, mb);
      sum += mb;
      live++;
      if (client.proxy.kind === 'envoy') envoys++;
    }
    this.memoryMax.set(Math.round(max));
    this.memoryMean.set(live === 0 ? 0 : Math.round(sum / live));
    let checkers = 0;
    let load = 0;
    for (const server of this.servers.all()) {
      checkers = Math.max(checkers, server.checkers);
      load = Math.max(load, server.checkLoad());
    }
    this.checksPerBackend.set(Math.round(checkers / (this.params.haproxy.checkInterMs / 1000)));
    // In per cent of the workers' time, so the gauge's whole numbers keep the detail.
    this.checkLoad.set(Math.round(load * 100));
    const census = this.haproxies.census();
    this.processes.set(census.processes);
    this.checks.set(Math.round(census.checksPerSecond));
    this.envoyPods.set(envoys);
  }
}

/**
 * A client pod of the mesh: an app sending requests at a Poisson rate to each service it uses, through its local
 * proxy, and the watchers that keep the proxy's backend lists. The app starts sending once the proxy has a list for
 * every service.
 */
export class MeshClient implements PodApp {
  running = false;
  private session = -1;
  private readonly watchers: ServiceWatcher[];
  private readonly initial = new Map<string, readonly Registration[]>();
  private configured = false;
  private next = 0;
  private steady = false;

  constructor(
    private readonly all: MeshClients,
    readonly index: number,
    readonly pod: Pod,
    readonly services: readonly string[],
    readonly proxy: MeshProxy,
  ) {
    this.watchers = services.map((service) => all.watchers.create(pod.entity, service, bound(this, this.onList)));
  }

  watcherOf(service: string): ServiceWatcher | undefined {
    return this.watchers.find((w) => w.service === service);
  }

  start(): void {
    // Pods running when the run begins already know their backends: their first read happened before it.
    this.steady = this.all.ctx.sched.now === 0;
    this.running = true;
    this.session = this.openSession();
    // After every backend that starts at the same moment has registered.
    this.all.ctx.sched.after(micros(0), this.all.begin, this.index);
  }

  onBegin(): void {
    if (!this.running) return;
    for (const watcher of this.watchers) watcher.begin(this.session, this.steady);
  }

  terminate(exit: () => void): void {
    this.stop();
    exit();
  }

  killed(): void {
    this.stop();
  }

  inspect(): InspectSection[] {
    const now = this.all.ctx.sched.now;
    const rows: [string, string][] = [
      ['proxy', this.proxy.kind === 'envoy' ? 'Envoy (membership over xDS)' : 'HAProxy (configured by synapse)'],
      ['proxy memory', `${Math.round(this.proxy.memoryMb())} MB`],
      ...this.proxy.describe(),
      ...this.watchers.map((w): [string, string] => [
        `list of ${w.service}`,
        `${w.list.length} backends, read ${((now - w.readAt) / 1e6).toFixed(1)} s ago${w.busy ? ', reading again' : ''}`,
      ]),
    ];
    return [{ title: 'Service discovery', rows }];
  }

  onArrival(): void {
    if (!this.running) return;
    const service = this.services[this.next++ % this.services.length]!;
    this.all.send(this, service);
    this.scheduleArrival();
  }

  private openSession(): number {
    return this.all.zk.openSession(this.pod.entity, bound(this, this.sessionExpired));
  }

  private sessionExpired(): void {
    if (!this.running) return;
    // A new session starts with no watches: every service is read again.
    this.session = this.openSession();
    for (const watcher of this.watchers) watcher.begin(this.session, false);
  }

  private onList(service: string, list: readonly Registration[]): void {
    if (this.configured) {
      this.proxy.update(service, list);
      return;
    }
    this.initial.set(service, list);
    if (this.initial.size < this.services.length) return;
    this.configured = true;
    this.proxy.startWith(this.initial);
    this.scheduleArrival();
  }

  private scheduleArrival(): void {
    const rate = this.all.requestsPerSecond() * this.services.length;
    const gap = this.all.rng.exponential(1000 / rate);
    this.all.ctx.sched.after(millis(gap), this.all.arrive, this.index);
  }

  private stop(): void {
    if (!this.running) return;
    this.running = false;
    for (const watcher of this.watchers) watcher.end();
    this.all.zk.closeSession(this.session);
    this.proxy.stop();
  }
}
