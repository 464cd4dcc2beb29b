import { FluidPackets } from '../net/fluid-packets';
import { formatCount } from '../core/format';
import type { ZookeeperParams } from './zookeeper-params';
import type { InspectSection } from '../api';
import type { SimContext } from '../context';
import type { Counter, Gauge, Histogram } from '../core/metrics';
import type { HandlerId } from '../core/scheduler';
import type { RngStream } from '../core/rng';
import { hashString } from '../core/rng';
import { micros, millis, seconds, toSeconds, type Duration, type SimTime } from '../core/time';
import { precedes } from './listing';
import { PpsAllowance } from '../infra/pps-allowance';
import { bound, withMember } from '../core/snapshot';

/** One registration under a service's path: an ephemeral node its announcer's session owns. */
export interface Registration {
  name: string;
  /** Where the child falls in a listing: ZooKeeper keeps children in a hash set, so a list comes in no useful order. */
  order: number;
  service: string;
  /** The registered pod's index. */
  pod: number;
  session: number;
  /** When it was deleted from the ensemble (Infinity while it exists); a deleted registration never comes back. */
  deletedAt: number;
}

/** Told when a read finishes; a read abandoned with its session is not reported (the session's owner starts over). */
export interface ZkReader {
  /** The read finished: the children it listed whose data still existed when it was read. */
  onRead(children: readonly Registration[]): void;
}

export interface ZkWatcher {
  /** The one-shot child watch fired: the service's children changed since the read that set it. */
  onChildrenChanged(): void;
}

interface ZNode {
  service: string;
  children: Map<string, Registration>;
  /** The same children in listing order; replaced, never changed in place, so a read may keep it as its answer. */
  listing: readonly Registration[];
  /** Watches set by reads and not yet fired, with the server each watcher's session is on. */
  watches: Map<ZkWatcher, number>;
  sequence: number;
  /** Changes to the children since the start, for "reads per change". */
  changes: number;
}

interface Session {
  id: number;
  owner: string;
  server: number;
  lastHeard: SimTime;
  expired: boolean;
  /** Whether the owner has been told of the expiry (it learns when it can reach the ensemble again). */
  told: boolean;
  /** Its process is gone without closing it: no pings come any more. */
  silent: boolean;
  ephemerals: Set<Registration>;
  onExpired: () => void;
}

interface ReadJob {
  session: Session;
  node: ZNode;
  reader: ZkReader;
  watcher: ZkWatcher;
  startedAt: SimTime;
  /** Set when the server handles the first request: the child list, and the cost that follows from its length. */
  snapshot: readonly Registration[] | null;
  /** Server work in request units, done and total; requests and packets the read takes in all. */
  units: number;
  done: number;
  requests: number;
  packetsPerUnit: number;
  /** A single-roundtrip read: one long answer rather than many short ones. */
  bulk: boolean;
}

// A 1500-byte MTU less 52 bytes of IPv4 and TCP headers with timestamps.
const MSS = 1448;
// Model choice: one accounting step of the servers' capacity and packet budget.
const TICK = millis(50);
const TICKS_PER_SECOND = 20;
// A ZooKeeper client pings after a third of the session timeout without traffic (ClientCnxn: readTimeout / 2, with
// readTimeout two thirds of the timeout).
const PINGS_PER_TIMEOUT = 3;
// A lost ping is sent again after Linux's minimum retransmission timeout of 200 ms, doubling each time (TCP_RTO_MIN):
// at 0.2, 0.6, 1.4 and 3.0 s, so five tries fit before the next ping of a 10 s session is due.
const PING_TRIES = 5;
// Model choice: TCP senders of long answers settle a few per cent above a policed rate, and keep a trickle going even
// when short answers take the whole allowance.
const BULK_OVERSHOOT = 0.05;
const BULK_FLOOR = 0.05;

/** Packets of one request and its answer: the request, the answer's segments, and one ACK per two segments (RFC 1122 delayed ACKs). */
export function packetsOf(answerBytes: number): number {
  const segments = Math.max(1, Math.ceil(answerBytes / MSS));
  return 1 + segments + Math.ceil(segments / 2);
}

/** Where a child goes in a listing, by binary search. */
function listingIndex(listing: readonly Registration[], registration: Registration): number {
  let lo = 0;
  let hi = listing.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (precedes(listing[mid]!, registration)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function remove(node: ZNode, registration: Registration, now: number): void {
  registration.deletedAt = now;
  node.children.delete(registration.name);
  node.listing = withChange(node.listing, listingIndex(node.listing, registration), null);
}

/** A copy of a listing with a child inserted at `at`, or (null) with the child at `at` removed. */
function withChange(listing: readonly Registration[], at: number, inserted: Registration | null): Registration[] {
  const next = listing.slice();
  if (inserted) next.splice(at, 0, inserted);
  else next.splice(at, 1);
  return next;
}

/**
 * The ZooKeeper ensemble service discovery uses: paths per service with ephemeral children owned by sessions, one-shot
 * child watches that a read sets again, and servers with a read capacity and a packet allowance. A reading client
 * makes its round trips one after another, so each read is bounded by the round-trip time when the servers are idle
 * and shares their capacity with every other read when they are not. Packets beyond a server's allowance are dropped
 * and sent again, so they slow every read and every session's pings on that server.
 */
export class ZooKeeper {
  readonly entity = 'zookeeper/ensemble';
  readonly serverNames: string[];
  private readonly nodes = new Map<string, ZNode>();
  private readonly sessions: Session[] = [];
  private readonly jobs: ReadJob[][];
  /** Packets each server must handle this tick besides reads: pings, notifications, writes. */
  private readonly extraPackets: number[];
  /** Share of each server's packets dropped in the last tick. */
  private readonly loss: number[];
  /** Each server's host's packet allowance, the token bucket of every cloud instance (docs/sources/service-discovery.md#load-formulas). */
  private readonly allowances: PpsAllowance[];
  private readonly windowPackets: number[];
  private tickCount = 0;
  private alarming = 0;
  private busiestRate = 0;
  private slowFactor = 1;
  private slowUntil = 0;
  private partitionedUntil = 0;
  private readonly pending = new Set<ZkWatcher>();
  /** The session each watcher's watches belong to. */
  private readonly owners = new Map<ZkWatcher, Session>();
  private readonly rng: RngStream;
  private readonly tick: HandlerId;
  private readonly ping: HandlerId;
  private readonly heal: HandlerId;
  private readonly settings: ZookeeperParams;
  private readonly reads: Counter;
  private readonly readTotals = new Map<string, number>();
  private readonly packets: FluidPackets;
  private readonly notifications: Counter;
  private readonly writes: Counter;
  private readonly expiries: Counter;
  private readonly alarm: Gauge;
  private readonly busiest: Gauge;
  private readonly activeReads: Gauge;
  private readonly readSeconds: Histogram;

  constructor(
    private readonly ctx: SimContext,
    servers: number,
    settings: ZookeeperParams,
  ) {
    this.settings = settings;
    this.serverNames = Array.from({ length: servers }, (_, i) => `zk-${i + 1}`);
    this.jobs = this.serverNames.map(() => []);
    this.extraPackets = this.serverNames.map(() => 0);
    this.loss = this.serverNames.map(() => 0);
    this.allowances = this.serverNames.map(() => new PpsAllowance(settings.ppsAllowance));
    this.windowPackets = this.serverNames.map(() => 0);
    this.rng = ctx.rng.stream('zookeeper');
    const m = ctx.metrics;
    this.reads = m.counter('zk.reads');
    this.packets = new FluidPackets(ctx, m.counter('zk.packets'), m.counter('zk.packets.dropped'), 'hypervisor_pps_exceeded');
    this.notifications = m.counter('zk.watch.notifications');
    this.writes = m.counter('zk.writes');
    this.expiries = m.counter('zk.sessions.expired');
    this.alarm = m.gauge('zk.alarm.firing');
    this.busiest = m.gauge('zk.busiest_server.pps');
    this.activeReads = m.gauge('zk.reads.active');
    this.readSeconds = m.histogram('zk.read.seconds', [0.01, 0.1, 0.5, 1, 2, 5, 10, 30, 60]);
    const s = ctx.sched;
    this.tick = s.register('zookeeper.tick', bound(this, this.ticked));
    s.after(TICK, this.tick);
    this.ping = s.register('zookeeper.ping', withMember(this, this.onPing, this.sessions));
    this.heal = s.register('zookeeper.heal', bound(this, this.onHeal));
  }

  /** The path of a service, created on first use. */
  private node(service: string): ZNode {
    let node = this.nodes.get(service);
    if (!node) this.nodes.set(service, (node = { service, children: new Map(), listing: [], watches: new Map(), sequence: 0, changes: 0 }));
    return node;
  }

  /** Registrations under a service now, as the ensemble holds them. */
  children(service: string): readonly Registration[] {
    return this.node(service).listing;
  }

  /** Changes to a service's children so far. */
  changes(service: string): number {
    return this.nodes.get(service)?.changes ?? 0;
  }

  /** Reads served for a service so far. */
  readsFor(service: string): number {
    return this.readTotals.get(service) ?? 0;
  }

  /** Opens a session for `owner` on the server its name hashes to; `onExpired` runs once the owner learns it is gone. */
  openSession(owner: string, onExpired: () => void): number {
    const id = this.sessions.length;
    const server = hashString(owner, 0x2c) % this.serverNames.length;
    this.sessions.push({ id, owner, server, lastHeard: this.ctx.sched.now, expired: false, told: false, silent: false, ephemerals: new Set(), onExpired });
    this.schedulePing(id);
    return id;
  }

  /**
   * Closes a session as its process exits: its ephemeral nodes go at once. A close that cannot reach the ensemble does
   * nothing there; the session, no longer pinged, expires after its timeout, as a crashed host's does.
   */
  closeSession(id: number): void {
    const session = this.sessions[id]!;
    if (session.expired) return;
    session.told = true;
    this.cancelJobs(session);
    if (!this.reachable) {
      session.silent = true;
      return;
    }
    session.expired = true;
    this.dropEphemerals(session);
  }

  /** Whether clients can reach the ensemble now. */
  get reachable(): boolean {
    return this.ctx.sched.now >= this.partitionedUntil;
  }

  /** Creates an ephemeral sequential node for a pod under its service; false when the ensemble cannot be reached. */
  register(sessionId: number, service: string, pod: number, podName: string): Registration | null {
    const session = this.sessions[sessionId]!;
    if (session.expired || !this.reachable) return null;
    const node = this.node(service);
    const name = `${podName}_${String(node.sequence++).padStart(10, '0')}`;
    const registration = { name, order: hashString(name, 0x11), service, pod, session: sessionId, deletedAt: Infinity };
    node.children.set(name, registration);
    node.listing = withChange(node.listing, listingIndex(node.listing, registration), registration);
    session.ephemerals.add(registration);
    this.wrote(session);
    this.changed(node);
    return registration;
  }

  /** Deletes a registration; false when the ensemble cannot be reached (the node stays until the session expires). */
  deregister(registration: Registration): boolean {
    const session = this.sessions[registration.session]!;
    if (!this.reachable) return false;
    const node = this.node(registration.service);
    if (node.children.get(registration.name) !== registration) return true;
    remove(node, registration, this.ctx.sched.now);
    session.ephemerals.delete(registration);
    this.wrote(session);
    this.changed(node);
    return true;
  }

  /** Starts a read of a service: getChildren with a watch, then the data of each child (or all of it in one request). */
  read(sessionId: number, service: string, reader: ZkReader, watcher: ZkWatcher): void {
    const session = this.sessions[sessionId]!;
    const job: ReadJob = {
      session,
      node: this.node(service),
      reader,
      watcher,
      startedAt: this.ctx.sched.now,
      snapshot: null,
      units: 1,
      done: 0,
      requests: 1,
      packetsPerUnit: 2,
      bulk: false,
    };
    this.jobs[session.server]!.push(job);
  }

  /** A read made before the run began: the watch is set, and nothing is counted. */
  prime(sessionId: number, service: string, watcher: ZkWatcher): void {
    const session = this.sessions[sessionId]!;
    this.node(service).watches.set(watcher, session.server);
    this.owners.set(watcher, session);
  }

  /** The inspector's rows: the servers' load now and each service's registrations, watches and reads. */
  inspect(): InspectSection[] {
    const live = this.sessions.filter((x) => !x.expired).length;
    const reading = this.jobs.reduce((n, jobs) => n + jobs.length, 0);
    const s = this.settings;
    const state = !this.reachable ? 'cut off from its clients' : this.slowFactor !== 1 ? `${Math.round(1 / this.slowFactor)}× slower` : 'serving';
    return [
      {
        title: 'ZooKeeper ensemble',
        rows: [
          ['servers', `${this.serverNames.length} (${state})`],
          ['read capacity', `${formatCount(s.readsPerSecond)} reads/s per server`],
          ['packet allowance', `${formatCount(s.ppsAllowance)} packets/s per server (alarm at ${formatCount(s.alarmPps)})`],
          ['busiest server, last second', `${formatCount(this.busiestRate)} packets/s`],
          ['servers over the alarm', formatCount(this.alarming)],
          ['sessions', `${formatCount(live)} live, ${formatCount(this.sessions.length - live)} expired or closed`],
          ['reads in progress', formatCount(reading)],
          ['how watchers read', s.read === 'single-roundtrip' ? 'the whole subtree in one request' : 'the list, then each child (1 + N requests)'],
          ['registration size', `${s.encoding === 'compact' ? s.compactRecordBytes : s.recordBytes} bytes (${s.encoding})`],
        ],
      },
      {
        title: 'Services',
        rows: [...this.nodes.values()].map((node) => [
          `/services/${node.service}`,
          `${formatCount(node.children.size)} registered · ${formatCount(node.watches.size)} watches set · ${formatCount(node.changes)} changes · ${formatCount(this.readTotals.get(node.service) ?? 0)} reads`,
        ]),
      },
    ];
  }

  /** Divides every server's read capacity by `factor` until `until` (a slow disk, a noisy neighbour). */
  slowDown(factor: number, until: SimTime): void {
    this.slowFactor = 1 / factor;
    this.slowUntil = until;
  }

  /** Cuts every client off from the ensemble until `until`. */
  partition(until: SimTime): void {
    this.partitionedUntil = Math.max(this.partitionedUntil, until);
    this.ctx.sched.at(this.partitionedUntil as SimTime, this.heal);
  }

  private wrote(session: Session): void {
    this.writes.inc();
    this.extraPackets[session.server]! += 2;
  }

  /** A child was added or removed: every watch on the path fires once and is gone. */
  private changed(node: ZNode): void {
    // Registrations at time zero are the starting state, not changes.
    if (this.ctx.sched.now > 0) node.changes++;
    if (node.watches.size === 0) return;
    const fired = [...node.watches];
    node.watches.clear();
    for (const [watcher, server] of fired) {
      this.notifications.inc();
      this.extraPackets[server]! += 1;
      if (this.reachable) watcher.onChildrenChanged();
      else this.pending.add(watcher);
    }
  }

  private dropEphemerals(session: Session): void {
    for (const registration of session.ephemerals) {
      const node = this.nodes.get(registration.service)!;
      remove(node, registration, this.ctx.sched.now);
      this.changed(node);
    }
    session.ephemerals.clear();
  }

  /** Abandons a session's reads and the watches they set. */
  private cancelJobs(session: Session): void {
    const jobs = this.jobs[session.server]!;
    for (let i = jobs.length - 1; i >= 0; i--) if (jobs[i]!.session === session) jobs.splice(i, 1);
    for (const node of this.nodes.values()) {
      for (const watcher of node.watches.keys()) if (this.owners.get(watcher) === session) node.watches.delete(watcher);
    }
  }

  private schedulePing(id: number): void {
    const interval = seconds(this.settings.sessionTimeoutS) / PINGS_PER_TIMEOUT;
    this.ctx.sched.after(micros(interval), this.ping, id);
  }

  /** A session's ping: heard unless the ensemble is cut off or every try is lost to the server's packet budget. */
  private onPing(session: Session): void {
    if (session.expired) return;
    const now = this.ctx.sched.now;
    if (this.reachable && !session.silent) {
      this.extraPackets[session.server]! += 2;
      const lost = this.loss[session.server]! ** PING_TRIES;
      if (lost === 0 || !this.rng.chance(lost)) session.lastHeard = now;
    }
    if (now - session.lastHeard >= seconds(this.settings.sessionTimeoutS)) this.expire(session);
    else this.schedulePing(session.id);
  }

  /** The leader expires a session it has not heard from within the timeout; its ephemeral nodes go with it. */
  private expire(session: Session): void {
    session.expired = true;
    this.expiries.inc();
    const count = session.ephemerals.size;
    this.ctx.causes.record('zk_session_expired', session.owner, this.ctx.sched.now, { server: this.serverNames[session.server]!, ephemerals: count });
    this.ctx.note('warn', session.owner, 'zk.session.expired', `ZooKeeper session expired on ${this.serverNames[session.server]}; ${count} ephemeral node${count === 1 ? '' : 's'} deleted`);
    this.dropEphemerals(session);
    this.cancelJobs(session);
    if (this.reachable) this.tell(session);
  }

  private tell(session: Session): void {
    if (session.told) return;
    session.told = true;
    session.onExpired();
  }

  /** The partition ends: clients reconnect, hear of fired watches and learn which sessions expired meanwhile. */
  private onHeal(): void {
    if (!this.reachable) return;
    const watchers = [...this.pending];
    this.pending.clear();
    for (const session of this.sessions) {
      if (session.expired) this.tell(session);
    }
    for (const watcher of watchers) watcher.onChildrenChanged();
  }

  private ticked(): void {
    this.onTick();
    this.ctx.sched.after(TICK, this.tick);
  }

  private onTick(): void {
    const now = this.ctx.sched.now;
    if (this.slowFactor !== 1 && now >= this.slowUntil) this.slowFactor = 1;
    const dt = toSeconds(TICK);
    const budgetUnits = this.settings.readsPerSecond * this.slowFactor * dt;
    const perRequestCap = dt / (this.settings.rttMs / 1000);
    for (let server = 0; server < this.jobs.length; server++) {
      const jobs = this.jobs[server]!;
      let units = 0;
      let roundTripPackets = 0;
      let bulkPackets = 0;
      if (this.reachable) {
        for (const job of jobs) {
          if (!job.snapshot) this.start(job);
          const want = this.want(job, perRequestCap);
          units += want;
          if (job.bulk) bulkPackets += want * job.packetsPerUnit;
          else roundTripPackets += want * job.packetsPerUnit;
        }
      }
      const cpuScale = units > budgetUnits ? budgetUnits / units : 1;
      const roundTrips = roundTripPackets * cpuScale + this.extraPackets[server]!;
      this.extraPackets[server] = 0;
      const allowance = this.allowances[server]!;
      // A long answer rides TCP's congestion control: it fills what the round trips leave of the allowance's rate and
      // overshoots it a little, where one-segment answers, each its own flight, are sent whatever the loss.
      const rate = allowance.ratePps * dt;
      const room = rate * Math.max(BULK_FLOOR, (1 - roundTrips / rate) * (1 + BULK_OVERSHOOT));
      const bulk = Math.min(bulkPackets * cpuScale, room);
      const offered = roundTrips + bulk;
      const delivered = allowance.admitFlow(now, offered);
      const share = offered > 0 ? delivered / offered : 1;
      this.loss[server] = 1 - share;
      this.count(offered, offered - delivered);
      this.windowPackets[server]! += offered;
      if (units === 0) continue;
      const roundTripScale = cpuScale * share;
      const bulkScale = bulkPackets > 0 ? (bulk / bulkPackets) * share : 0;
      for (let i = 0; i < jobs.length; i++) {
        const job = jobs[i]!;
        job.done += this.want(job, perRequestCap) * (job.bulk ? bulkScale : roundTripScale);
        if (job.done < job.units - 1e-9) continue;
        jobs.splice(i--, 1);
        this.finish(job);
      }
    }
    this.activeReads.set(this.jobs.reduce((sum, jobs) => sum + jobs.length, 0));
    if (++this.tickCount % TICKS_PER_SECOND === 0) this.closeWindow();
  }

  /** Books the tick's packets (net/fluid-packets.ts); a drop names the service whose watchers changed most. */
  private count(offered: number, dropped: number): void {
    if (this.packets.book(offered, dropped) === 0) return;
    const busiest = [...this.nodes.values()].reduce((a, b) => (b.changes > a.changes ? b : a));
    this.ctx.causes.record('hypervisor_pps_exceeded', this.entity, this.ctx.sched.now, { dropped: this.packets.droppedTotal, service: busiest.service, tickSeconds: toSeconds(TICK) });
  }

  /** How much of a read its client asks for in one tick: its round trips come one after another. */
  private want(job: ReadJob, perRequestCap: number): number {
    const left = job.units - job.done;
    return job.bulk ? left : Math.min(left, perRequestCap);
  }

  /** The server handles the read's getChildren: the list is fixed, the watch set again, and the cost known. */
  private start(job: ReadJob): void {
    const children = job.node.listing;
    job.snapshot = children;
    job.node.watches.set(job.watcher, job.session.server);
    this.owners.set(job.watcher, job.session);
    const s = this.settings;
    const n = children.length;
    const record = s.encoding === 'compact' ? s.compactRecordBytes : s.recordBytes;
    const listPackets = packetsOf(n * s.nameBytes);
    if (s.read === 'single-roundtrip') {
      job.bulk = true;
      job.requests = 1;
      job.units = 1 + n * s.recordCost;
      job.packetsPerUnit = packetsOf(n * (s.nameBytes + record)) / job.units;
    } else {
      job.requests = 1 + n;
      job.units = 1 + n;
      job.packetsPerUnit = (listPackets + n * packetsOf(record)) / job.units;
    }
  }

  private finish(job: ReadJob): void {
    const now = this.ctx.sched.now;
    this.reads.inc(job.requests);
    this.readTotals.set(job.node.service, (this.readTotals.get(job.node.service) ?? 0) + job.requests);
    const took = toSeconds((now - job.startedAt) as Duration);
    this.readSeconds.observe(took);
    // One fact per watched service, so a failure's "why" reads the list of the service that failed.
    this.ctx.causes.record(`zk_read ${job.node.service}`, job.session.owner, now, { service: job.node.service, requests: job.requests, seconds: took });
    // A child deleted between getChildren and its getData answers NoNode and is skipped
    // (docs/sources/service-discovery.md#zookeeper-reads).
    const snapshot = job.snapshot!;
    job.reader.onRead(snapshot === job.node.listing ? snapshot : snapshot.filter((r) => r.deletedAt === Infinity));
  }

  /** Once a second: each server's packet rate against the alarm threshold. */
  private closeWindow(): void {
    let firing = 0;
    let busiest = 0;
    let busiestServer = -1;
    for (let i = 0; i < this.windowPackets.length; i++) {
      const rate = this.windowPackets[i]!;
      this.windowPackets[i] = 0;
      if (rate > this.settings.alarmPps) firing++;
      if (rate > busiest) {
        busiest = rate;
        busiestServer = i;
      }
    }
    this.alarm.set(firing);
    this.busiest.set(Math.round(busiest));
    this.alarming = firing;
    this.busiestRate = Math.round(busiest);
    if (firing > 0) {
      const server = this.serverNames[busiestServer]!;
      this.ctx.causes.record('zk_packet_alarm', this.entity, this.ctx.sched.now, {
        server,
        pps: Math.round(busiest),
        alarmPps: this.settings.alarmPps,
        allowance: this.settings.ppsAllowance,
        dropped: Math.round(this.loss[busiestServer]! * 100),
      });
    }
  }
}
