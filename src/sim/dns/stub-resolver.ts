/**
 * The resolver inside each pod: glibc's res_search/res_send with the resolv.conf Kubernetes writes
 * (docs/sources/dns.md#pod-resolver).
 */
import type { SimContext } from '../context';
import type { Counter, Histogram } from '../core/metrics';
import type { HandlerId } from '../core/scheduler';
import { seconds, US_PER_MS, type Duration } from '../core/time';
import { CLUSTER_DOMAIN } from './cluster-dns';
import { newNormalizedQuery, normalizeName, type DnsAnswer, type DnsQuery, type Rcode } from './message';
import type { DnsSocketReceiver, DnsTransport } from './transport';
import { bound } from '../core/snapshot';

export interface ResolvConf {
  /** Tried in order; glibc uses the first three. */
  nameservers: readonly number[];
  search: readonly string[];
  ndots: number;
  /** Wait for one answer from one nameserver. */
  timeout: Duration;
  /** Rounds over the nameserver list. */
  attempts: number;
}

// glibc resolver defaults timeout:5 and attempts:2 (unconfirmed, docs/sources/dns.md#pod-resolver).
export const GLIBC_TIMEOUT = seconds(5);
export const GLIBC_ATTEMPTS = 2;
// Kubernetes gives pods ndots:5 (docs/sources/dns.md#pod-resolver).
export const KUBERNETES_NDOTS = 5;
// glibc's MAXNS: nameservers past the third are ignored.
export const MAX_NAMESERVERS = 3;

/** The resolv.conf kubelet writes for a ClusterFirst pod: its namespace's search list, ndots:5, glibc timeouts. */
export function podResolvConf(namespace: string, nameservers: readonly number[], clusterDomain = CLUSTER_DOMAIN, hostSearch: readonly string[] = []): ResolvConf {
  return {
    nameservers: nameservers.slice(0, MAX_NAMESERVERS),
    search: [`${namespace}.svc.${clusterDomain}`, `svc.${clusterDomain}`, clusterDomain, ...hostSearch],
    ndots: KUBERNETES_NDOTS,
    timeout: GLIBC_TIMEOUT,
    attempts: GLIBC_ATTEMPTS,
  };
}

/**
 * The names res_search asks for, in order: a name ending in a dot only as is; a name with at least `ndots` dots as is
 * first, then with each search suffix; any other name with each suffix first and as is last.
 */
export function searchCandidates(name: string, conf: ResolvConf): string[] {
  const bare = normalizeName(name);
  if (name.endsWith('.')) return [bare];
  const dots = bare.split('.').length - 1;
  const searched = conf.search.map((suffix) => `${bare}.${suffix}`);
  return dots >= conf.ndots ? [bare, ...searched] : [...searched, bare];
}

/** What a lookup of one name under one resolv.conf tries, in order. */
export interface LookupPlan {
  readonly conf: ResolvConf;
  /** Normalized already, so each try's query skips it. */
  readonly candidates: readonly string[];
  /** The name as is comes first, with the search list to follow if it fails. */
  readonly asIsFirst: boolean;
}

export type LookupError = 'timeout' | 'nxdomain' | 'servfail' | 'refused';

export interface LookupReceiver {
  onResolved(token: number, addresses: readonly number[], ttl: number): void;
  onLookupFailed(token: number, error: LookupError): void;
}

export class Lookup {
  active = false;
  from = 0;
  conf!: ResolvConf;
  candidates: readonly string[] = [];
  candidate = 0;
  asIsFirst = false;
  /** The current candidate's query; every try of a candidate resends it with the same id, as res_send does. */
  query: DnsQuery | null = null;
  attempt = 0;
  server = 0;
  /** One UDP socket per nameserver for the current candidate, -1 until first used. */
  readonly sockets: number[] = new Array<number>(MAX_NAMESERVERS).fill(-1);
  timer = -1;
  gen = 0;
  /** Rcode of the last answer the current candidate got (what glibc's answer buffer holds when it gives up). */
  lastRcode: Rcode | null = null;
  sawServfail = false;
  startedAt = 0;
  receiver: LookupReceiver | null = null;
  token = 0;

  constructor(readonly slot: number) {}
}

/**
 * Every pod's stub resolver, with one set of scheduler handlers. For each candidate name it makes `attempts` rounds
 * over the nameservers, waiting `timeout` for each. An address answer ends the lookup; NXDOMAIN or an empty NOERROR
 * moves to the next candidate; SERVFAIL, REFUSED, ICMP unreachable or silence move to the next nameserver or round.
 * A candidate that runs out of tries ends the lookup (timeout or refused), except after SERVFAIL, where glibc goes on
 * to the next candidate, and after a failed as-is-first try, which the search list follows.
 */
export class StubResolver implements DnsSocketReceiver {
  private readonly lookups: Lookup[] = [];
  private readonly free: number[] = [];
  private readonly timeoutH: HandlerId;
  private readonly m: { lookups: Counter; queries: Counter; duration: Histogram };
  private readonly failures = new Map<LookupError, Counter>();
  // Keyed by the conf object: the world has one resolv.conf, which lives as long as the run.
  private readonly plans = new Map<ResolvConf, Map<string, LookupPlan>>();

  constructor(
    private readonly ctx: SimContext,
    private readonly transport: DnsTransport,
  ) {
    this.timeoutH = ctx.sched.register('dns.stub.timeout', bound(this, this.onTimeout));
    const m = ctx.metrics;
    this.m = {
      lookups: m.counter('dns.client.lookups'),
      queries: m.counter('dns.client.queries'),
      duration: m.histogram('dns.client.lookup_ms', [1, 10, 100, 1_000, 2_000, 5_000, 10_000, 20_000, 40_000]),
    };
  }

  /** Resolves `name` for the pod whose sender id is `from`; the outcome goes to `receiver` with `token`. */
  lookup(from: number, conf: ResolvConf, name: string, receiver: LookupReceiver, token: number): void {
    this.lookupPlanned(from, this.plan(name, conf), receiver, token);
  }

  /** As `lookup`, for a caller that keeps the plan of a name it resolves often. */
  lookupPlanned(from: number, plan: LookupPlan, receiver: LookupReceiver, token: number): void {
    if (plan.conf.nameservers.length === 0) throw new RangeError('resolv.conf has no nameserver');
    const slot = this.free.pop() ?? this.lookups.push(new Lookup(this.lookups.length)) - 1;
    const l = this.lookups[slot]!;
    l.active = true;
    l.from = from;
    l.conf = plan.conf;
    l.candidates = plan.candidates;
    l.asIsFirst = plan.asIsFirst;
    l.candidate = 0;
    l.sawServfail = false;
    l.startedAt = this.ctx.sched.now;
    l.receiver = receiver;
    l.token = token;
    this.m.lookups.inc();
    this.startCandidate(l);
  }

  /** The names to try for `name` under `conf`, worked out once: a service resolving its dependency per query asks often. */
  plan(name: string, conf: ResolvConf): LookupPlan {
    let byName = this.plans.get(conf);
    if (!byName) this.plans.set(conf, (byName = new Map()));
    let plan = byName.get(name);
    if (!plan) {
      const candidates = searchCandidates(name, conf);
      plan = {
        conf,
        candidates: candidates.map(normalizeName),
        asIsFirst: !name.endsWith('.') && candidates[0] === normalizeName(name) && candidates.length > 1,
      };
      byName.set(name, plan);
    }
    return plan;
  }

  onOpen(): void {}

  onAnswer(token: number, answer: DnsAnswer): void {
    const l = this.lookups[(token / MAX_NAMESERVERS) | 0]!;
    if (!l.active || l.timer < 0 || token % MAX_NAMESERVERS !== l.server || answer.queryId !== l.query!.id) return;
    this.stopTimer(l);
    if (answer.rcode === 'NOERROR' && answer.addresses.length > 0) {
      this.closeSockets(l);
      this.finish(l, null, answer.addresses, answer.ttl);
    } else if (answer.rcode === 'NXDOMAIN' || answer.rcode === 'NOERROR') {
      this.closeSockets(l);
      l.candidate++;
      this.startCandidate(l);
    } else {
      l.lastRcode = answer.rcode;
      this.nextTry(l);
    }
  }

  /** ICMP port unreachable: glibc moves on to the next nameserver at once. */
  onError(token: number): void {
    const l = this.lookups[(token / MAX_NAMESERVERS) | 0]!;
    if (!l.active || l.timer < 0 || token % MAX_NAMESERVERS !== l.server) return;
    this.stopTimer(l);
    this.nextTry(l);
  }

  private startCandidate(l: Lookup): void {
    if (l.candidate >= l.candidates.length) {
      this.finish(l, l.sawServfail ? 'servfail' : 'nxdomain');
      return;
    }
    l.query = newNormalizedQuery(this.transport.ids, l.candidates[l.candidate]!);
    l.attempt = 0;
    l.server = 0;
    l.lastRcode = null;
    this.sendTry(l);
  }

  private sendTry(l: Lookup): void {
    let socket = l.sockets[l.server]!;
    if (socket < 0) {
      const ip = l.conf.nameservers[l.server]!;
      socket = this.transport.open(l.from, ip, 'udp', this, l.slot * MAX_NAMESERVERS + l.server);
      l.sockets[l.server] = socket;
    }
    this.transport.send(socket, l.query!);
    this.m.queries.inc();
    l.timer = this.ctx.sched.after(l.conf.timeout, this.timeoutH, l.slot, l.gen);
  }

  private onTimeout(slot: number, gen: number): void {
    const l = this.lookups[slot]!;
    if (!l.active || l.gen !== gen) return;
    l.timer = -1;
    l.gen++;
    this.nextTry(l);
  }

  private nextTry(l: Lookup): void {
    const servers = Math.min(l.conf.nameservers.length, MAX_NAMESERVERS);
    l.server++;
    if (l.server >= servers) {
      l.server = 0;
      l.attempt++;
    }
    if (l.attempt < l.conf.attempts) {
      this.sendTry(l);
      return;
    }
    this.closeSockets(l);
    if (l.lastRcode === 'SERVFAIL') {
      l.sawServfail = true;
      l.candidate++;
      this.startCandidate(l);
    } else if (l.asIsFirst && l.candidate === 0) {
      l.candidate++;
      this.startCandidate(l);
    } else {
      this.finish(l, l.lastRcode === 'REFUSED' ? 'refused' : 'timeout');
    }
  }

  private finish(l: Lookup, error: LookupError | null, addresses: readonly number[] = [], ttl = 0): void {
    this.m.duration.observe((this.ctx.sched.now - l.startedAt) / US_PER_MS);
    const receiver = l.receiver!;
    const token = l.token;
    l.active = false;
    l.receiver = null;
    l.query = null;
    this.free.push(l.slot);
    if (error === null) {
      receiver.onResolved(token, addresses, ttl);
      return;
    }
    this.failureCounter(error).inc();
    receiver.onLookupFailed(token, error);
  }

  private stopTimer(l: Lookup): void {
    this.ctx.sched.cancel(l.timer);
    l.timer = -1;
    l.gen++;
  }

  private closeSockets(l: Lookup): void {
    for (let i = 0; i < MAX_NAMESERVERS; i++) {
      if (l.sockets[i]! >= 0) this.transport.close(l.sockets[i]!);
      l.sockets[i] = -1;
    }
  }

  private failureCounter(reason: LookupError): Counter {
    let c = this.failures.get(reason);
    if (c === undefined) {
      c = this.ctx.metrics.counter('dns.client.failures', { reason });
      this.failures.set(reason, c);
    }
    return c;
  }
}
