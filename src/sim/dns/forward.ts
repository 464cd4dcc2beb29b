/**
 * CoreDNS's forward plugin: max_concurrent, the per-request retry loop, connection reuse and health checks
 * (docs/sources/dns.md#forward-plugin).
 */
import type { SimContext } from '../context';
import type { Counter } from '../core/metrics';
import type { RngStream } from '../core/rng';
import type { HandlerId } from '../core/scheduler';
import { millis, seconds, US_PER_MS, type Duration } from '../core/time';
import { formatIpv4 } from '../net/ipv4';
import { newAnswer, newQuery, type DnsAnswer, type DnsQuery } from './message';
import type { DnsProto, DnsSocketReceiver, DnsTransport } from './transport';
import { SocketState, Upstream, UpstreamSocket } from './upstream';
import { bound } from '../core/snapshot';

// kubeadm's Corefile sets `forward . /etc/resolv.conf { max_concurrent 1000 }` (docs/sources/dns.md#kubeadm-corefile).
export const KUBEADM_MAX_CONCURRENT = 1000;
// Each concurrent query costs about 2 KB (docs/sources/dns.md#concurrency-limit).
export const BYTES_PER_CONCURRENT_QUERY = 2048;
// At most 15 upstreams per forward (docs/sources/dns.md#transport-and-policy).
export const MAX_UPSTREAMS = 15;

/**
 * max_concurrent: a query takes a slot on arrival; past the limit it is answered REFUSED at once, which is not a
 * health failure. Holding slots is what node-local DNS's memory grows with.
 */
export class MaxConcurrent {
  inUse = 0;
  refused = 0;

  constructor(readonly max: number) {}

  tryAcquire(): boolean {
    if (this.inUse >= this.max) {
      this.refused++;
      return false;
    }
    this.inUse++;
    return true;
  }

  release(): void {
    if (this.inUse === 0) throw new Error('max_concurrent: release without a held slot');
    this.inUse--;
  }

  get memoryBytes(): number {
    return this.inUse * BYTES_PER_CONCURRENT_QUERY;
  }
}

export interface ForwardSettings {
  upstreams: readonly number[];
  /** force_tcp: always TCP to upstreams; otherwise the client's protocol. */
  forceTcp: boolean;
  /** 0: no limit. */
  maxConcurrent: number;
  requestTimeout: Duration;
  readTimeout: Duration;
  /** Failed attempts after which a request gives up; 0: keep trying until the request deadline. */
  maxConnectAttempts: number;
  maxFails: number;
  healthCheckInterval: Duration;
  healthCheckTimeout: Duration;
  healthCheckDialTimeout: Duration;
  expire: Duration;
  /** failfast_all_unhealthy_upstreams: SERVFAIL instead of trying a random upstream when all are down. */
  failfastAllUnhealthy: boolean;
  policy: 'random' | 'round_robin' | 'sequential';
}

export const FORWARD_DEFAULTS: Omit<ForwardSettings, 'upstreams'> = {
  forceTcp: false,
  // max_concurrent is unset by default: no limit (docs/sources/dns.md#concurrency-limit).
  maxConcurrent: 0,
  // defaultTimeout 5 s: the request loop stops starting attempts after it
  // (docs/sources/dns.md#request-deadline-and-read-timeout).
  requestTimeout: seconds(5),
  // Read timeout 2 s per upstream attempt (docs/sources/dns.md#request-deadline-and-read-timeout).
  readTimeout: seconds(2),
  // Model choice: 0 keeps the behaviour of the incidents' era (retry until the deadline); CoreDNS since Aug 2026 caps
  // at 2 × upstreams (docs/sources/dns.md#connect-attempts).
  maxConnectAttempts: 0,
  // max_fails 2 (docs/sources/dns.md#health-checks).
  maxFails: 2,
  // health_check 0.5 s (docs/sources/dns.md#health-checks).
  healthCheckInterval: millis(500),
  // Health-check read/write timeout 1 s (docs/sources/dns.md#health-checks).
  healthCheckTimeout: seconds(1),
  // The health checker leaves miekg/dns's default 2 s dial timeout in place (plugin/pkg/proxy/health.go).
  healthCheckDialTimeout: seconds(2),
  // expire 10 s: cached upstream connections close after 10 s idle (docs/sources/dns.md#connection-reuse).
  expire: seconds(10),
  failfastAllUnhealthy: false,
  // policy random (docs/sources/dns.md#transport-and-policy).
  policy: 'random',
};

/**
 * The max_connect_attempts default of CoreDNS since Aug 2026: 2 × the number of upstreams
 * (docs/sources/dns.md#connect-attempts).
 */
export function recentMaxConnectAttempts(upstreams: number): number {
  return 2 * upstreams;
}

export function forwardSettings(upstreams: readonly number[], overrides: Partial<ForwardSettings> = {}): ForwardSettings {
  return { ...FORWARD_DEFAULTS, ...overrides, upstreams };
}

/** Gets the outcome of `serve`; `fromUpstream` is false for the REFUSED and SERVFAIL the plugin makes up itself. */
export interface ForwardReceiver {
  onForwarded(token: number, answer: DnsAnswer, fromUpstream: boolean): void;
}

export interface ForwardInstanceSpec {
  /** Sender id for the transport: the namespace the forwarding process runs in. */
  from: number;
  /** Event-log entity of the process, e.g. 'node/a' or 'pod/coredns-0'. */
  entity: string;
  /** Metric prefix, e.g. 'dns.nodelocal': `<prefix>.refused`, `<prefix>.forward.*`. */
  metrics: string;
  settings: ForwardSettings;
}

interface ForwardInstance {
  readonly from: number;
  readonly entity: string;
  readonly settings: ForwardSettings;
  readonly limit: MaxConcurrent;
  /** Indexes into the plugin's upstream table. */
  readonly upstreams: number[];
  readonly m: {
    requests: Counter;
    refused: Counter;
    upstreamErrors: Counter;
    servfail: Counter;
    dialTimeouts: Counter;
    connHits: Counter;
    connMisses: Counter;
    healthcheckFailures: Counter;
    healthcheckBroken: Counter;
  };
  saturated: boolean;
  rrCursor: number;
}

export class ForwardRequest {
  instance = -1;
  query: DnsQuery | null = null;
  clientProto: DnsProto = 'udp';
  receiver: ForwardReceiver | null = null;
  token = 0;
  deadline = 0;
  /** Upstream indexes in the order the policy tries them. */
  readonly order: number[] = [];
  i = 0;
  /** Upstreams found down in this pass over the list. */
  fails = 0;
  attempts = 0;

  constructor(readonly slot: number) {}
}

// CoreDNS's connection manager sweeps idle connections on a 10 s ticker (defaultExpire, plugin/pkg/proxy/persistent.go).
const SWEEP_PERIOD = seconds(10);
const HEALTH_CHECK_NAME = '.';

/**
 * All forward-plugin instances of one kind of server (every node's node-local DNS, or every CoreDNS replica), with one
 * set of scheduler handlers. A request takes a max_concurrent slot, then tries upstreams in policy order while the
 * 5 s deadline has not passed: each attempt takes an idle connection or dials one (TCP dials wait up to the adaptive
 * dial timeout), sends the query with a fresh id and waits up to the read timeout. Each failed attempt starts the
 * upstream's health-check loop; an upstream is skipped once down, and if all are down a random one is used anyway.
 */
export class ForwardPlugin implements DnsSocketReceiver {
  private readonly instances: ForwardInstance[] = [];
  private readonly upstreams: Upstream[] = [];
  private readonly sockets: UpstreamSocket[] = [];
  private readonly freeSockets: number[] = [];
  private readonly requests: ForwardRequest[] = [];
  private readonly freeRequests: number[] = [];
  private readonly rng: RngStream;
  private readonly dialTimeoutH: HandlerId;
  private readonly readTimeoutH: HandlerId;
  private readonly probeH: HandlerId;
  private readonly sweepH: HandlerId;
  private sweepPending = false;

  constructor(
    private readonly ctx: SimContext,
    private readonly transport: DnsTransport,
    name = 'dns.forward',
  ) {
    this.rng = ctx.rng.stream(name);
    this.dialTimeoutH = ctx.sched.register(`${name}.dial-timeout`, bound(this, this.onDialTimeout));
    this.readTimeoutH = ctx.sched.register(`${name}.read-timeout`, bound(this, this.onReadTimeout));
    this.probeH = ctx.sched.register(`${name}.health-check`, bound(this, this.onProbeDue));
    this.sweepH = ctx.sched.register(`${name}.expire`, bound(this, this.sweep));
  }

  addInstance(spec: ForwardInstanceSpec): number {
    const s = spec.settings;
    if (s.upstreams.length === 0 || s.upstreams.length > MAX_UPSTREAMS) {
      throw new RangeError(`forward needs 1 to ${MAX_UPSTREAMS} upstreams, got ${s.upstreams.length}`);
    }
    const index = this.instances.length;
    const upstreams = s.upstreams.map((ip) => this.upstreams.push(new Upstream(index, ip)) - 1);
    const m = this.ctx.metrics;
    const p = spec.metrics;
    this.instances.push({
      from: spec.from,
      entity: spec.entity,
      settings: s,
      limit: new MaxConcurrent(s.maxConcurrent > 0 ? s.maxConcurrent : Infinity),
      upstreams,
      m: {
        requests: m.counter(`${p}.forward.requests`),
        refused: m.counter(`${p}.refused`),
        upstreamErrors: m.counter(`${p}.forward.upstream_errors`),
        servfail: m.counter(`${p}.forward.servfail`),
        dialTimeouts: m.counter(`${p}.forward.dial_timeouts`),
        connHits: m.counter(`${p}.forward.conn_cache_hits`),
        connMisses: m.counter(`${p}.forward.conn_cache_misses`),
        healthcheckFailures: m.counter(`${p}.forward.healthcheck_failures`),
        healthcheckBroken: m.counter(`${p}.forward.healthcheck_broken`),
      },
      saturated: false,
      rrCursor: 0,
    });
    return index;
  }

  /** Queries holding a slot of this instance (what its memory grows with). */
  inflight(instance: number): number {
    return this.instances[instance]!.limit.inUse;
  }

  /** Each upstream's address, consecutive failed health checks and whether it is down. */
  upstreamHealth(instance: number): { ip: number; fails: number; down: boolean }[] {
    const f = this.instances[instance]!;
    return f.upstreams.map((i) => {
      const u = this.upstreams[i]!;
      return { ip: u.ip, fails: u.fails, down: u.down(f.settings.maxFails) };
    });
  }

  /** Forwards a query; the answer comes to `receiver` (synchronously for a REFUSED over max_concurrent). */
  serve(instance: number, query: DnsQuery, clientProto: DnsProto, receiver: ForwardReceiver, token: number): void {
    const f = this.instances[instance]!;
    f.m.requests.inc();
    if (!f.limit.tryAcquire()) {
      f.m.refused.inc();
      this.ctx.drops.drop('dns_refused');
      this.ctx.causes.record('dns_refused', f.entity, this.ctx.sched.now);
      if (!f.saturated) {
        f.saturated = true;
        this.ctx.causes.record('dns_saturated', f.entity, this.ctx.sched.now, { maxConcurrent: f.settings.maxConcurrent });
        this.ctx.note('warn', f.entity, 'dns.forward.saturated', `forward has ${f.settings.maxConcurrent} queries in flight: answering REFUSED`, {
          reason: 'max_concurrent',
        });
      }
      receiver.onForwarded(token, newAnswer(this.transport.ids, query, 'REFUSED'), false);
      return;
    }
    const r = this.allocRequest();
    r.instance = instance;
    r.query = query;
    r.clientProto = clientProto;
    r.receiver = receiver;
    r.token = token;
    r.deadline = this.ctx.sched.now + f.settings.requestTimeout;
    r.i = 0;
    r.fails = 0;
    r.attempts = 0;
    this.fillOrder(f, r.order);
    this.attempt(r);
  }

  onOpen(slot: number): void {
    const k = this.sockets[slot]!;
    if (k.state !== SocketState.dialing) return;
    this.ctx.sched.cancel(k.timer);
    const u = this.upstreams[k.upstream]!;
    if (k.probe) {
      this.sendOn(k, HEALTH_CHECK_NAME, 'NS');
      return;
    }
    u.dial.observe((this.ctx.sched.now - k.openedAt) / US_PER_MS);
    const r = this.requests[k.request]!;
    this.sendOn(k, r.query!.name, r.query!.type);
  }

  onAnswer(slot: number, answer: DnsAnswer): void {
    const k = this.sockets[slot]!;
    // Out-of-order answers (to an attempt that already timed out) are dropped, as plugin/pkg/proxy does.
    if (k.state !== SocketState.busy || k.query === null || answer.queryId !== k.query.id) return;
    this.ctx.sched.cancel(k.timer);
    if (k.probe) {
      const up = k.upstream;
      this.closeSocket(k);
      this.probeSucceeded(up);
      return;
    }
    const r = this.requests[k.request]!;
    this.yieldSocket(k);
    this.finish(r, answer);
  }

  onError(slot: number): void {
    const k = this.sockets[slot]!;
    if (k.state === SocketState.free) return;
    const up = k.upstream;
    const u = this.upstreams[up]!;
    if (k.state === SocketState.idle) {
      const idle = u.idle(k.proto);
      idle.splice(idle.indexOf(slot), 1);
      this.closeSocket(k);
      return;
    }
    if (k.state === SocketState.dialing && !k.probe) u.dial.observe((this.ctx.sched.now - k.openedAt) / US_PER_MS);
    const cachedTcp = k.state === SocketState.busy && k.cached && k.proto === 'tcp';
    const probe = k.probe;
    const r = this.requests[k.request];
    this.closeSocket(k);
    if (probe) this.probeFailed(up);
    // A cached TCP connection the peer had closed: retried at once without counting an attempt (ErrCachedClosed).
    else if (cachedTcp) this.connect(r!, up);
    else this.upstreamError(r!, up);
  }

  private attempt(r: ForwardRequest): void {
    const f = this.instances[r.instance]!;
    const s = f.settings;
    for (;;) {
      if (!(this.ctx.sched.now < r.deadline) || (s.maxConnectAttempts > 0 && r.attempts >= s.maxConnectAttempts)) {
        this.finish(r, null);
        return;
      }
      if (r.i >= r.order.length) {
        r.i = 0;
        r.fails = 0;
      }
      let up = r.order[r.i++]!;
      if (this.upstreams[up]!.down(s.maxFails)) {
        r.fails++;
        if (r.fails < f.upstreams.length) continue;
        f.m.healthcheckBroken.inc();
        if (s.failfastAllUnhealthy) {
          this.finish(r, null);
          return;
        }
        up = f.upstreams[this.rng.int(f.upstreams.length)]!;
      }
      this.connect(r, up);
      return;
    }
  }

  private connect(r: ForwardRequest, up: number): void {
    const f = this.instances[r.instance]!;
    const u = this.upstreams[up]!;
    const proto: DnsProto = f.settings.forceTcp ? 'tcp' : r.clientProto;
    const cached = this.takeIdle(u, proto, f.settings.expire);
    if (cached !== null) {
      f.m.connHits.inc();
      cached.cached = true;
      cached.request = r.slot;
      this.sendOn(cached, r.query!.name, r.query!.type);
      return;
    }
    f.m.connMisses.inc();
    const k = this.openSocket(up, proto, false);
    k.request = r.slot;
    if (proto === 'udp') {
      u.dial.observe(0);
      this.sendOn(k, r.query!.name, r.query!.type);
    } else {
      k.state = SocketState.dialing;
      k.timer = this.ctx.sched.after(millis(u.dial.timeoutMs), this.dialTimeoutH, k.slot, k.gen);
    }
  }

  /** Sends on an open socket with a fresh query id, as CoreDNS rewrites the id per upstream exchange. */
  private sendOn(k: UpstreamSocket, name: string, type: DnsQuery['type']): void {
    const s = this.instances[this.upstreams[k.upstream]!.instance]!.settings;
    k.query = newQuery(this.transport.ids, name, type);
    k.state = SocketState.busy;
    k.gen++;
    this.transport.send(k.id, k.query);
    k.timer = this.ctx.sched.after(k.probe ? s.healthCheckTimeout : s.readTimeout, this.readTimeoutH, k.slot, k.gen);
  }

  private onDialTimeout(slot: number, gen: number): void {
    const k = this.sockets[slot]!;
    if (k.gen !== gen || k.state !== SocketState.dialing) return;
    const up = k.upstream;
    const u = this.upstreams[up]!;
    if (k.probe) {
      this.closeSocket(k);
      this.probeFailed(up);
      return;
    }
    u.dial.observe((this.ctx.sched.now - k.openedAt) / US_PER_MS);
    this.instances[u.instance]!.m.dialTimeouts.inc();
    const r = this.requests[k.request]!;
    this.closeSocket(k);
    this.upstreamError(r, up);
  }

  private onReadTimeout(slot: number, gen: number): void {
    const k = this.sockets[slot]!;
    if (k.gen !== gen || k.state !== SocketState.busy) return;
    const up = k.upstream;
    const probe = k.probe;
    const r = this.requests[k.request];
    this.closeSocket(k);
    if (probe) this.probeFailed(up);
    else this.upstreamError(r!, up);
  }

  private upstreamError(r: ForwardRequest, up: number): void {
    const f = this.instances[r.instance]!;
    const s = f.settings;
    f.m.upstreamErrors.inc();
    this.ctx.causes.record('dns_upstream_error', f.entity, this.ctx.sched.now);
    if (s.maxFails !== 0) this.startProbe(up);
    if (s.maxConnectAttempts > 0) {
      r.attempts++;
      if (r.attempts >= s.maxConnectAttempts) {
        this.finish(r, null);
        return;
      }
    }
    if (r.fails < f.upstreams.length) this.attempt(r);
    else this.finish(r, null);
  }

  private finish(r: ForwardRequest, upstreamAnswer: DnsAnswer | null): void {
    const f = this.instances[r.instance]!;
    const query = r.query!;
    const answer =
      upstreamAnswer === null ? newAnswer(this.transport.ids, query, 'SERVFAIL') : newAnswer(this.transport.ids, query, upstreamAnswer.rcode, upstreamAnswer.addresses, upstreamAnswer.ttl);
    if (upstreamAnswer === null) f.m.servfail.inc();
    f.limit.release();
    // Half the limit as the all-clear keeps the log to one line per episode rather than one per slot.
    if (f.saturated && f.limit.inUse <= f.limit.max / 2) {
      f.saturated = false;
      this.ctx.note('info', f.entity, 'dns.forward.recovered', `forward back to ${f.limit.inUse} queries in flight`);
    }
    const receiver = r.receiver!;
    const token = r.token;
    r.query = null;
    r.receiver = null;
    this.freeRequests.push(r.slot);
    receiver.onForwarded(token, answer, upstreamAnswer !== null);
  }

  private startProbe(up: number): void {
    const u = this.upstreams[up]!;
    if (u.probing) return;
    u.probing = true;
    this.probe(up);
  }

  /** One `. IN NS` check on a fresh socket (the health checker has its own client, without connection reuse). */
  private probe(up: number): void {
    const s = this.instances[this.upstreams[up]!.instance]!.settings;
    const k = this.openSocket(up, s.forceTcp ? 'tcp' : 'udp', true);
    if (k.proto === 'udp') {
      this.sendOn(k, HEALTH_CHECK_NAME, 'NS');
    } else {
      k.state = SocketState.dialing;
      k.timer = this.ctx.sched.after(s.healthCheckDialTimeout, this.dialTimeoutH, k.slot, k.gen);
    }
  }

  private onProbeDue(up: number, gen: number): void {
    const u = this.upstreams[up]!;
    if (u.probing && u.probeGen === gen) this.probe(up);
  }

  private probeFailed(up: number): void {
    const u = this.upstreams[up]!;
    const f = this.instances[u.instance]!;
    u.fails++;
    f.m.healthcheckFailures.inc();
    if (u.fails === f.settings.maxFails + 1) {
      this.ctx.note('warn', f.entity, 'dns.upstream.down', `upstream ${formatIpv4(u.ip)} down after ${u.fails} failed health checks`, {
        reason: 'health_check_failed',
      });
    }
    u.probeGen++;
    this.ctx.sched.after(f.settings.healthCheckInterval, this.probeH, up, u.probeGen);
  }

  private probeSucceeded(up: number): void {
    const u = this.upstreams[up]!;
    const f = this.instances[u.instance]!;
    const wasDown = u.down(f.settings.maxFails);
    u.fails = 0;
    u.probing = false;
    if (wasDown) this.ctx.note('info', f.entity, 'dns.upstream.up', `upstream ${formatIpv4(u.ip)} answers health checks again`);
  }

  private fillOrder(f: ForwardInstance, order: number[]): void {
    const n = f.upstreams.length;
    const start = f.settings.policy === 'round_robin' ? f.rrCursor++ % n : 0;
    order.length = n;
    for (let i = 0; i < n; i++) order[i] = f.upstreams[(start + i) % n]!;
    if (f.settings.policy !== 'random') return;
    for (let i = n - 1; i > 0; i--) {
      const j = this.rng.int(i + 1);
      const t = order[i]!;
      order[i] = order[j]!;
      order[j] = t;
    }
  }

  /**
   * The most recently used idle socket, if fresh (the connection manager of the incidents' era took the last used one,
   * and dropped the whole stack once that one had expired); null when a new one must be dialed.
   */
  private takeIdle(u: Upstream, proto: DnsProto, expire: Duration): UpstreamSocket | null {
    const idle = u.idle(proto);
    const slot = idle.pop();
    if (slot === undefined) return null;
    const k = this.sockets[slot]!;
    if (this.ctx.sched.now - k.lastUsed < expire) return k;
    this.closeSocket(k);
    for (const stale of idle) this.closeSocket(this.sockets[stale]!);
    idle.length = 0;
    return null;
  }

  private yieldSocket(k: UpstreamSocket): void {
    k.state = SocketState.idle;
    k.request = -1;
    k.query = null;
    k.gen++;
    k.lastUsed = this.ctx.sched.now;
    this.upstreams[k.upstream]!.idle(k.proto).push(k.slot);
    if (!this.sweepPending) {
      this.sweepPending = true;
      this.ctx.sched.after(SWEEP_PERIOD, this.sweepH);
    }
  }

  private sweep(): void {
    this.sweepPending = false;
    const now = this.ctx.sched.now;
    let left = 0;
    for (const u of this.upstreams) {
      const expire = this.instances[u.instance]!.settings.expire;
      for (const idle of [u.idleUdp, u.idleTcp]) {
        let stale = 0;
        while (stale < idle.length && now - this.sockets[idle[stale]!]!.lastUsed >= expire) stale++;
        for (let i = 0; i < stale; i++) this.closeSocket(this.sockets[idle[i]!]!);
        idle.splice(0, stale);
        left += idle.length;
      }
    }
    if (left > 0) {
      this.sweepPending = true;
      this.ctx.sched.after(SWEEP_PERIOD, this.sweepH);
    }
  }

  private openSocket(up: number, proto: DnsProto, probe: boolean): UpstreamSocket {
    const u = this.upstreams[up]!;
    const slot = this.freeSockets.pop() ?? this.sockets.push(new UpstreamSocket(this.sockets.length)) - 1;
    const k = this.sockets[slot]!;
    k.upstream = up;
    k.proto = proto;
    k.probe = probe;
    k.cached = false;
    k.request = -1;
    k.query = null;
    k.openedAt = this.ctx.sched.now;
    k.gen++;
    k.state = SocketState.dialing;
    k.id = this.transport.open(this.instances[u.instance]!.from, u.ip, proto, this, slot);
    return k;
  }

  private closeSocket(k: UpstreamSocket): void {
    this.ctx.sched.cancel(k.timer);
    this.transport.close(k.id);
    k.state = SocketState.free;
    k.request = -1;
    k.query = null;
    k.timer = -1;
    k.gen++;
    this.freeSockets.push(k.slot);
  }

  private allocRequest(): ForwardRequest {
    const slot = this.freeRequests.pop() ?? this.requests.push(new ForwardRequest(this.requests.length)) - 1;
    return this.requests[slot]!;
  }
}
