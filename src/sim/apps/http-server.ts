import { formatCount } from '../core/format';
import type { CpuParams } from '../infra/cpu-params';
import { CLIENT_ADDRESS_CAUSES, CLIENT_ADDRESS_TEXT, type ClientAddressVerdict, type InspectSection } from '../api';
import type { Counter } from '../core/metrics';
import type { HandlerId } from '../core/scheduler';
import type { RngStream } from '../core/rng';
import { millis } from '../core/time';
import type { SimContext } from '../context';
import { CpuControllers, quotaFor, type CpuBandwidth } from '../infra/cpu-bandwidth';
import type { Pod } from '../infra/pod';
import { clientAddress } from '../net/forwarded';
import { formatIpv4 } from '../net/ipv4';
import { Payload, type PayloadId } from '../net/packet';
import type { Socket, Tcp } from '../net/tcp';
import { HttpListener } from './http-listener';
import type { HttpClient } from './http-client';
import { bound, shared } from '../core/snapshot';

const VERDICTS: ClientAddressVerdict[] = ['client', 'internal', 'forged'];

/** Timers shared by every server instance: one handler answers any server's request. */
/** An exit nobody waits for: a server's calls close with it. */
const NOTHING = shared('http-server.nothing', (): void => {});

export class HttpServers {
  readonly respond: HandlerId;
  readonly cpuDone: HandlerId;
  /** CPU bandwidth control of the containers with CPU work, made for the first one. */
  private cpus: CpuControllers | null = null;
  /** Requests by what the client address a server logged really was. */
  readonly logged: Record<ClientAddressVerdict, Counter>;
  private readonly servers: (HttpServer | undefined)[] = [];

  constructor(
    readonly ctx: SimContext,
    readonly tcp: Tcp,
    /** Whether an address belongs to the simulated data centre (a node, pod, load balancer or router). */
    private readonly internal: (ip: number) => boolean,
    /** Mean service time (`params.server`) and the CFS settings of CPU-limited servers (`params.cpu`). */
    readonly settings: { serviceTimeMs: number; cpu: CpuParams },
  ) {
    this.respond = ctx.sched.register('http-server.respond', bound(this, this.onRespond));
    this.cpuDone = ctx.sched.register('http-server.cpu-done', bound(this, this.onCpuDone));
    this.logged = Object.fromEntries(VERDICTS.map((v) => [v, ctx.metrics.counter('server.client_ip', { seen: v })])) as Record<ClientAddressVerdict, Counter>;
  }

  /**
   * The client address a server logs for a request that came from `peer`: the leftmost X-Forwarded-For entry, else
   * the peer. Model choice: what frameworks do when told to trust the proxies in front (Express's `trust proxy`
   * true takes the leftmost), and so what makes a client-written header matter.
   */
  logClient(entity: string, message: number, peer: number, peerPort: number, localIp: number, localPort: number): void {
    const requests = this.ctx.requests;
    const xff = requests.xff(message);
    if (!xff) return;
    const address = clientAddress(xff, peer, Infinity);
    const verdict: ClientAddressVerdict = address === requests.origin(message) ? 'client' : this.internal(address) ? 'internal' : 'forged';
    this.logged[verdict].inc();
    if (verdict !== 'client') this.ctx.causes.record(CLIENT_ADDRESS_CAUSES[verdict], entity, this.ctx.sched.now);
    if (!requests.sampled(message)) return;
    const what = `received from ${formatIpv4(peer)}; logged the client as ${formatIpv4(address)}, ${CLIENT_ADDRESS_TEXT[verdict]}`;
    requests.hop(message, this.ctx.sched.now, entity, what, `${formatIpv4(peer)}:${peerPort}`, `${formatIpv4(localIp)}:${localPort}`);
    requests.logged(message, address, verdict);
  }

  /** `calls`: a driven client per Service each request calls (catalog.ts). */
  create(pod: Pod, port: number, work: CpuWork | null, calls: readonly HttpClient[] = []): HttpServer {
    let cpu: CpuBandwidth | null = null;
    if (work) {
      this.cpus ??= new CpuControllers(this.ctx);
      const p = this.settings.cpu;
      const periodUs = millis(p.periodMs);
      const settings = { periodUs, quotaUs: quotaFor(work.limitCores, periodUs), sliceUs: millis(p.sliceMs), kernel: p.kernel };
      cpu = this.cpus.create(pod.entity, pod.deployment, pod.host.cpus, settings);
    }
    const server = new HttpServer(this, pod, port, this.ctx.rng.stream(`http-server/${pod.name}`), cpu, work?.perRequestUs ?? 0, calls);
    this.servers[pod.index] = server;
    return server;
  }

  /** A new CPU limit for a running pod's cgroup (cores; undefined lifts it). */
  setCpuLimit(pod: Pod, cores: number | undefined): void {
    const cpu = this.servers[pod.index]?.cpu;
    cpu?.setQuota(quotaFor(cores, cpu.periodUs));
  }

  private onRespond(socketId: number, message: number): void {
    const socket = this.tcp.sockets.get(socketId);
    if (!socket) return;
    this.servers[socket.stack.ns]?.finish(socket, message);
  }

  private onCpuDone(socketId: number, message: number): void {
    const socket = this.tcp.sockets.get(socketId);
    if (!socket) return;
    this.servers[socket.stack.ns]?.serve(socket.id, message);
  }
}

/** A deployment's CPU time per request and its pod template's limit (cores; undefined: none). */
export interface CpuWork {
  perRequestUs: number;
  limitCores: number | undefined;
}

/**
 * A request/response server: each request takes its CPU time on a thread (under the container's CPU limit, if any),
 * then calls the Services it depends on, all at once, then an exponential service time (waiting on I/O), then gets its
 * answer: the worst status its calls returned.
 */
export class HttpServer extends HttpListener {
  constructor(
    private readonly shared: HttpServers,
    pod: Pod,
    port: number,
    private readonly rng: RngStream,
    readonly cpu: CpuBandwidth | null,
    private readonly cpuPerRequestUs: number,
    private readonly calls: readonly HttpClient[],
  ) {
    super(shared.ctx, pod, port);
  }

  override start(): void {
    super.start();
    this.cpu?.start();
    for (const call of this.calls) call.start();
  }

  killed(): void {
    this.cpu?.stop();
    for (const call of this.calls) call.killed();
  }

  onData(socket: Socket, payload: PayloadId, message: number): void {
    if (payload !== Payload.request) return;
    this.shared.logClient(this.pod.entity, message, socket.remoteIp, socket.remotePort, this.pod.ip, this.port);
    this.began(socket);
    if (this.cpu) this.cpu.run(this.cpuPerRequestUs, this.shared.cpuDone, socket.id, message);
    else this.serve(socket.id, message);
  }

  /** The request's CPU work is done: it makes its calls, if any, then waits its service time and is answered. */
  serve(socketId: number, message: number): void {
    if (this.calls.length === 0) {
      this.afterCalls(socketId, message);
      return;
    }
    const requests = this.shared.ctx.requests;
    let left = this.calls.length;
    let worst = requests.status(message);
    for (const call of this.calls) {
      call.forward(message, (status) => {
        worst = Math.max(worst, status);
        if (--left > 0) return;
        requests.setStatus(message, worst);
        this.afterCalls(socketId, message);
      });
    }
  }

  private afterCalls(socketId: number, message: number): void {
    const mean = this.shared.settings.serviceTimeMs;
    this.shared.ctx.sched.after(millis(mean > 0 ? this.rng.exponential(mean) : 0), this.shared.respond, socketId, message);
  }

  finish(socket: Socket, message: number): void {
    this.answer(socket, message);
  }

  inspect(): InspectSection[] {
    const sections = this.cpu ? [cpuSection(this.cpu)] : [];
    if (this.calls.length > 0) sections.push({ title: 'Calls', rows: this.calls.map((call): [string, string] => [call.target.name, `${formatIpv4(call.target.ip)}:${call.target.port}`]) });
    return sections;
  }

  protected override drained(exit: () => void): void {
    this.cpu?.stop();
    // Every request, its calls included, has been answered: the connections to the called Services close with it.
    for (const call of this.calls) call.terminate(NOTHING);
    exit();
  }
}

const ms = (us: number): string => `${(us / 1000).toFixed(1)} ms`;

function cpuSection(cpu: CpuBandwidth): InspectSection {
  const st = cpu.stat;
  const last = cpu.lastPeriod;
  const rows: [string, string][] = [];
  if (!cpu.limited) rows.push(['limit', 'none: no quota, never throttled'], ['CPU used', ms(st.usageUs)]);
  else {
    const share = st.periods > 0 ? ` (${Math.round((100 * st.throttledPeriods) / st.periods)} %)` : '';
    rows.push(
      ['quota', `${ms(cpu.quotaUs)} per ${ms(cpu.periodUs)} period`],
      ['kernel', cpu.kernel === 'expiring' ? 'unused runtime expires each period (4.18–5.3)' : 'unused runtime carries over (5.4 on)'],
      ['periods', formatCount(st.periods)],
      ['throttled periods', `${st.throttledPeriods}${share}`],
      ['throttled time, all CPUs', st.throttledUs >= 10_000_000 ? `${(st.throttledUs / 1e6).toFixed(1)} s` : ms(st.throttledUs)],
      ['last period', `used ${ms(last.usedUs)} of ${ms(cpu.quotaUs)} on ${last.cpus} CPUs${last.expiredUs > 0 ? `; ${ms(last.expiredUs)} expired` : ''}`],
      ['CPUs throttled now', formatCount(cpu.throttledCpus)],
      ['runtime left', `${ms(cpu.poolUs)} in the pool, ${ms(cpu.heldUs)} held by CPUs`],
    );
  }
  return { title: 'CPU (CFS bandwidth)', rows };
}
