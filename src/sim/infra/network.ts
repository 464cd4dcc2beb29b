import type { Counter } from '../core/metrics';
import { micros, seconds, type Duration, type SimTime } from '../core/time';
import type { SimContext } from '../context';
import { formatIpv4 } from '../net/ipv4';
import { AnonymousFlows } from '../net/anonymous-flows';
import { describeFlags, PacketPool, Payload, Proto, Stage, TcpFlag, type PayloadId } from '../net/packet';
import type { Tcp, TcpStack } from '../net/tcp';
import type { Udp, UdpStack } from '../net/udp';
import { DROP_REASON_IDS, dropReasonIndex, type DropReason } from '../report/drop-reasons';
import type { CauseFact } from '../report/causes';
import { elementOf, Fabric, hostOf, ifaceOf, isElement, NOWHERE } from './fabric';
import type { Host } from './host';
import type { Pod } from './pod';
import { NodeDatapath } from './node-datapath';
import type { ServiceProxy } from './service-proxy';
import { bound } from '../core/snapshot';

const DROP_LOG_INTERVAL = seconds(1);

/** Where a drop happened: an entity for the log, its rate limiter, and what it can say about the cause. */
export interface DropSite {
  readonly entity: string;
  readonly lastDropLog: Float64Array;
  /** A one-line cause for a drop of this reason, built only when the drop is logged. */
  describeDrop?(reason: DropReason, packets: PacketPool, id: number): string | undefined;
  /** The same cause as facts for the "why" chains, also built only when the drop is logged. */
  dropDetail?(reason: DropReason, packets: PacketPool, id: number): Record<string, number | string> | undefined;
}

/** Something outside the nodes that packets reach through the fabric: a router, a load balancer, a DNS provider. */
export interface PacketElement extends DropSite {
  receive(id: number): void;
}

/** A namespace is a pod index, or -1 - n for the n-th host and then the external elements (see elementNamespace). */
export const hostNamespace = (host: number): number => -1 - host;

/**
 * Moves packets hop by hop and decides their fate: out of a pod over its veth into its node (conntrack, kube-proxy
 * DNAT, policy routing, reverse-path filtering), out through the cloud hypervisor (allowances, tracking), across the
 * fabric to whoever holds the destination, in through the other side, and into a socket or a drop with a reason.
 * Every packet ends delivered or dropped in one place, `drop`.
 *
 * Every hop adds the hop latency to the packet's time, but only the hops that reach something with a clock of its own
 * (a pod, a host process, an element) are events. The stages in between (node kernels, hypervisors, the fabric) run
 * cut-through when the packet enters them, so their state sees it up to a few hops early: a SYN that an instance
 * drops costs no event at all, which is what lets a reconnect storm run at the talk's scale.
 */
export class Network {
  readonly packets = new PacketPool();
  readonly fabric = new Fabric();
  /** Connection attempts whose conntrack entries are counted rather than kept. */
  readonly flows = new AnonymousFlows();
  readonly elements: PacketElement[] = [];
  private readonly sent: Counter;
  private readonly delivered: Counter;
  private readonly arrive;
  private readonly arriveBatch;
  private readonly hop: Duration;
  private readonly datapath: NodeDatapath;
  private readonly fabricSite: DropSite;
  private readonly newFlows = new Map<number, Counter>();
  /** Packets waiting for their next cut-through stage, and whether a loop is already working through them. */
  private readonly through: number[] = [];
  private driving = false;
  /** The time of the packet at the stage being run cut-through. */
  private clock = 0;
  /** Packets and SYNs between wire sites (nodes by index, then elements), for the live traffic picture. */
  private traffic = new Float64Array(0);
  private trafficSites = 0;
  /** Drops by reason at each site that has dropped anything, for marks where they happen, and their cause facts. */
  private readonly dropsAt = new Map<DropSite, { counts: Float64Array; facts: (CauseFact | undefined)[] }>();
  /**
   * Anonymous packets reaching pods at one time, one event for all: the packets of a wave of attempts are scheduled
   * one after another with nothing between them, so one event in their place runs them in the same order.
   */
  private readonly batches: Int32Array[] = [];
  private readonly batchLength: number[] = [];
  private readonly freeBatches: number[] = [];
  private openBatch = -1;
  private openBatchTime = -1;
  private openBatchMark = -1;
  /** While a namespace answers an anonymous packet, the flow its answer belongs to. */
  private answering = -1;
  private answeringGeneration = 0;

  constructor(
    private readonly ctx: SimContext,
    private readonly hosts: readonly Host[],
    readonly pods: readonly Pod[],
    proxy: ServiceProxy,
    tcp: Tcp,
    udp: Udp,
    /** Latency of every hop (`params.network`). */
    hopLatencyUs: number,
  ) {
    this.sent = ctx.metrics.counter('packets.sent');
    this.delivered = ctx.metrics.counter('packets.delivered');
    this.hop = micros(hopLatencyUs);
    this.datapath = new NodeDatapath(ctx, this, proxy, hosts);
    this.fabricSite = { entity: 'network/fabric', lastDropLog: new Float64Array(DROP_REASON_IDS.length).fill(-Infinity) };
    this.arrive = ctx.sched.register('packet.arrive', bound(this, this.onArrive));
    this.arriveBatch = ctx.sched.register('packet.arrive-batch', bound(this, this.onArriveBatch));
    tcp.wire = bound(this, this.sendTcp);
    udp.wire = bound(this, this.sendUdp);
  }

  get inFlight(): number {
    return this.packets.inFlight;
  }

  addElement(element: PacketElement): number {
    this.elements.push(element);
    return this.elements.length - 1;
  }

  private sendTcp(stack: TcpStack, srcPort: number, dstIp: number, dstPort: number, flags: number, payload: PayloadId, message: number, anon = -1, generation = 0, srcIp = stack.ip): void {
    const id = this.emit(srcIp, srcPort, dstIp, dstPort, Proto.tcp, payload, message);
    const p = this.packets;
    p.flags[id] = flags;
    if (anon < 0 && this.answering >= 0) {
      anon = this.answering;
      generation = this.answeringGeneration;
    }
    if (anon >= 0) {
      p.anon[id] = anon;
      p.anonGeneration[id] = generation;
    }
    this.launch(id, stack.ns);
  }

  private sendUdp(stack: UdpStack, srcIp: number, srcPort: number, dstIp: number, dstPort: number, message: number): void {
    const id = this.emit(srcIp, srcPort, dstIp, dstPort, Proto.udp, Payload.datagram, message);
    this.launch(id, stack.ns);
  }

  /** A new packet in the pool, counted as sent; the caller sets its flags and sends it on. */
  emit(srcIp: number, srcPort: number, dstIp: number, dstPort: number, proto: number, payload: PayloadId, message: number): number {
    const p = this.packets;
    const id = p.alloc();
    p.srcIp[id] = srcIp;
    p.dstIp[id] = dstIp;
    p.srcPort[id] = srcPort;
    p.dstPort[id] = dstPort;
    p.proto[id] = proto;
    p.flags[id] = 0;
    p.payload[id] = payload;
    p.message[id] = message;
    p.time[id] = this.driving ? this.clock : this.ctx.sched.now;
    this.sent.inc();
    return id;
  }

  /** A packet leaves a namespace: a pod's goes over its veth to the host, a host process's through the host's OUTPUT path. */
  private launch(id: number, ns: number): void {
    const slot = this.ctx.tracer.begin();
    const p = this.packets;
    this.ctx.capture?.record(p.time[id]!, p.srcIp[id]!, p.srcPort[id]!, p.dstIp[id]!, p.dstPort[id]!, p.proto[id]!, p.flags[id]!, p.payload[id]!);
    if (slot >= 0) {
      p.trace[id] = slot;
      const what = p.proto[id] === Proto.udp ? 'UDP' : describeFlags(p.flags[id]!);
      this.ctx.tracer.describe(slot, `${what} ${formatIpv4(p.srcIp[id]!)}:${p.srcPort[id]} → ${formatIpv4(p.dstIp[id]!)}:${p.dstPort[id]}`);
    }
    if (ns >= 0) {
      const pod = this.pods[ns]!;
      if (!pod.host.powered) {
        this.drop(id, 'node_down', pod.host);
        return;
      }
      this.traceHop(id, pod.entity, 'sent');
      p.iface[id] = pod.veth;
      this.forward(id, Stage.hostFromPod, pod.host.index);
      return;
    }
    const index = -1 - ns;
    if (index < this.hosts.length) {
      const host = this.hosts[index]!;
      if (!host.powered) {
        this.drop(id, 'node_down', host);
        return;
      }
      this.traceHop(id, host.entity, 'sent by a host process');
      this.datapath.process(id, host, -1);
      return;
    }
    this.traceHop(id, this.elements[index - this.hosts.length]!.entity, 'sent');
    this.forward(id, Stage.fabric, index);
  }

  /** The wire site of an element: sites number the nodes first, then the elements. */
  elementSite(element: number): number {
    return this.hosts.length + element;
  }

  /** The namespace id of an element with sockets of its own (an external server or client). */
  elementNamespace(element: number): number {
    return -1 - this.hosts.length - element;
  }

  /** Sends the packet on to `at` in `stage` (for the fabric: the wire site it comes from), one hop's latency later. */
  forward(id: number, stage: number, at: number): void {
    const p = this.packets;
    p.stage[id] = stage;
    p.at[id] = at;
    p.time[id]! += this.hop;
    // A router or a load balancer keeps state of its own about the flows it sees: an anonymous flow cannot pass it.
    if (stage === Stage.element && p.anon[id]! >= 0) this.promote(id);
    if (stage === Stage.pod || stage === Stage.element) this.schedule(id);
    else this.cutThrough(id);
  }

  /** A packet for the host's own address reaches the host process's socket as it reaches the host. */
  toHostProcess(id: number, host: Host): void {
    const p = this.packets;
    p.stage[id] = Stage.hostLocal;
    p.at[id] = host.index;
    if (p.anon[id]! >= 0) this.promote(id);
    this.schedule(id);
  }

  /** Ends the anonymity of the packet's flow (see AnonymousFlows.promote). */
  promote(id: number): void {
    this.flows.promote(this.packets, id);
  }

  /** The packet's arrival, as an event of its own or, for anonymous packets scheduled back to back, one event for them all. */
  private schedule(id: number): void {
    const p = this.packets;
    const time = p.time[id]!;
    const sched = this.ctx.sched;
    if (p.anon[id]! < 0) {
      sched.at(time as SimTime, this.arrive, id);
      return;
    }
    if (this.openBatch >= 0 && this.openBatchTime === time && this.openBatchMark === sched.scheduled) {
      this.addToBatch(this.openBatch, id);
      return;
    }
    const batch = this.freeBatches.pop() ?? this.batches.push(new Int32Array(64)) - 1;
    this.batchLength[batch] = 0;
    this.addToBatch(batch, id);
    sched.at(time as SimTime, this.arriveBatch, batch);
    this.openBatch = batch;
    this.openBatchTime = time;
    this.openBatchMark = sched.scheduled;
  }

  private addToBatch(batch: number, id: number): void {
    let ids = this.batches[batch]!;
    const n = this.batchLength[batch]!;
    if (n === ids.length) {
      const grown = new Int32Array(n * 2);
      grown.set(ids);
      this.batches[batch] = ids = grown;
    }
    ids[n] = id;
    this.batchLength[batch] = n + 1;
  }

  private onArriveBatch(batch: number): void {
    if (this.openBatch === batch) this.openBatch = -1;
    const ids = this.batches[batch]!;
    const n = this.batchLength[batch]!;
    for (let i = 0; i < n; i++) this.onArrive(ids[i]!);
    this.freeBatches.push(batch);
  }

  private cutThrough(id: number): void {
    this.through.push(id);
    if (this.driving) return;
    this.driving = true;
    try {
      while (this.through.length > 0) {
        const next = this.through.pop()!;
        this.clock = this.packets.time[next]!;
        this.onArrive(next);
      }
    } finally {
      this.driving = false;
    }
  }

  private onArrive(id: number): void {
    const p = this.packets;
    const at = p.at[id]!;
    switch (p.stage[id]) {
      case Stage.hostFromPod:
        this.datapath.process(id, this.hosts[at]!, p.iface[id]!);
        return;
      case Stage.hostFromWire:
        if (p.outerDst[id] !== 0) this.datapath.decapsulate(id, this.hosts[at]!);
        else this.datapath.process(id, this.hosts[at]!, p.iface[id]!);
        return;
      case Stage.pod:
        this.atPod(id, this.pods[at]!);
        return;
      case Stage.hypervisorOut:
        this.atHypervisorOut(id, this.hosts[at]!);
        return;
      case Stage.hypervisorIn:
        this.atHypervisorIn(id, this.hosts[at]!);
        return;
      case Stage.fabric:
        this.atFabric(id);
        return;
      case Stage.element:
        this.elements[at]!.receive(id);
        return;
      case Stage.hostLocal: {
        const host = this.hosts[at]!;
        this.deliver(id, host.entity, host.tcp, host.udp, host);
        return;
      }
    }
  }

  private atHypervisorOut(id: number, host: Host): void {
    const reason = host.hypervisor!.egress(this.packets, id, this.packets.iface[id]!, this.ctx.sched.now, this.flows);
    if (reason) this.drop(id, reason, host.hypervisor!);
    else {
      if (this.traced(id)) this.traceHop(id, host.hypervisor!.entity, `out: tracked, ${host.hypervisor!.table.size} of ${host.hypervisor!.allowance} in use`);
      this.forward(id, Stage.fabric, host.index);
    }
  }

  private atHypervisorIn(id: number, host: Host): void {
    const reason = host.hypervisor!.ingress(this.packets, id, this.ctx.sched.now, this.flows);
    if (reason) this.drop(id, reason, host.hypervisor!);
    else {
      if (this.traced(id)) this.traceHop(id, host.hypervisor!.entity, `in: tracked, ${host.hypervisor!.table.size} of ${host.hypervisor!.allowance} in use`);
      this.forward(id, Stage.hostFromWire, host.index);
    }
  }

  private atFabric(id: number): void {
    const p = this.packets;
    const target = this.fabric.route(p.outerDst[id] || p.dstIp[id]!);
    if (p.proto[id] === Proto.tcp && (p.flags[id]! & (TcpFlag.SYN | TcpFlag.ACK)) === TcpFlag.SYN && p.message[id] === 1) {
      const dst = p.dstIp[id]!;
      this.newFlow(dst).inc();
      // Who keeps dialling an address no pod holds is evidence for the "why" chains; healthy dials are not recorded.
      const live = target >= 0 && this.hosts[hostOf(target)]!.pods.has(dst);
      if (!live) this.ctx.causes.attempt(dst, this.originOf(p.srcIp[id]!));
    }
    if (target === NOWHERE) this.drop(id, 'no_route', this.fabricSite);
    else this.toTarget(id, target, p.at[id]!, this.fabricSite);
  }

  /** Who a source address belongs to: a pod's deployment, a node, an element, or the bare address. */
  private originOf(src: number): string {
    const holder = this.fabric.route(src);
    if (holder === NOWHERE) return formatIpv4(src);
    if (isElement(holder)) return this.elements[elementOf(holder)]!.entity;
    const host = this.hosts[hostOf(holder)]!;
    if (host.ip === src) return host.entity;
    const pod = host.pods.get(src);
    return pod ? pod.deploymentEntity : formatIpv4(src);
  }

  /** The flow-log view: new connection attempts (first SYNs, not retransmissions) crossing the fabric, per destination. */
  private newFlow(dst: number): Counter {
    let counter = this.newFlows.get(dst);
    if (!counter) this.newFlows.set(dst, (counter = this.ctx.metrics.counter('flows.new', { dst: formatIpv4(dst) })));
    return counter;
  }

  /**
   * A router, or a node whose route names a gateway, hands a packet to whoever holds the next-hop address, whatever its
   * destination; `from` is the wire site it leaves (elementSite for an element, the host index for a node).
   */
  forwardTo(id: number, nextHop: number, site: DropSite, from: number): void {
    const target = this.fabric.holder(nextHop);
    if (target === NOWHERE) this.drop(id, 'no_route', site);
    else this.toTarget(id, target, from, site);
  }

  /** An element (a load balancer) puts a packet it rewrote back on the fabric, which routes it by destination. */
  toFabric(id: number, element: number): void {
    this.forward(id, Stage.fabric, this.elementSite(element));
  }

  /** Hands the packet to an element or a host; a host without power or switch loses it, and `site`, which sent it there, counts the drop. */
  private toTarget(id: number, target: number, from: number, site: DropSite): void {
    if (!isElement(target) && !this.hosts[hostOf(target)]!.reachable) {
      this.drop(id, 'node_down', site);
      return;
    }
    const to = isElement(target) ? this.elementSite(elementOf(target)) : hostOf(target);
    this.countTraffic(id, from, to);
    if (isElement(target)) {
      this.forward(id, Stage.element, elementOf(target));
      return;
    }
    const host = this.hosts[hostOf(target)]!;
    this.packets.iface[id] = ifaceOf(target);
    this.forward(id, host.hypervisor ? Stage.hypervisorIn : Stage.hostFromWire, host.index);
  }

  private atPod(id: number, pod: Pod): void {
    const p = this.packets;
    if (pod.host.pods.get(p.dstIp[id]!) !== pod) {
      this.drop(id, 'no_local_pod', pod.host);
      return;
    }
    this.deliver(id, pod.entity, pod.tcp, pod.udp, pod.host);
  }

  /** Hands the packet to a socket; a segment nobody owns is answered with a reset, a datagram nobody reads is discarded. */
  deliver(id: number, entity: string, tcp: TcpStack, udp: UdpStack, site: DropSite): void {
    const p = this.packets;
    const srcIp = p.srcIp[id]!;
    const srcPort = p.srcPort[id]!;
    const dstIp = p.dstIp[id]!;
    const dstPort = p.dstPort[id]!;
    const message = p.message[id]!;
    if (p.proto[id] === Proto.udp) {
      if (!udp.isBound(dstPort)) {
        this.drop(id, 'udp_no_socket', site);
        return;
      }
      this.traceHop(id, entity, 'delivered');
      this.delivered.inc();
      p.release(id);
      udp.receive(srcIp, srcPort, dstIp, dstPort, message);
      return;
    }
    const flags = p.flags[id]!;
    const payload = p.payload[id]! as PayloadId;
    const anon = p.anon[id]!;
    if (anon >= 0 && this.flows.isHome(p, id, tcp.ns)) {
      // The reply an anonymous attempt's opener waits for: its owner takes it in place of the socket it has not got.
      const generation = p.anonGeneration[id]!;
      this.traceHop(id, entity, 'delivered');
      this.delivered.inc();
      p.release(id);
      this.flows.deliver(anon, generation, flags);
      return;
    }
    const owned = tcp.owns(srcIp, srcPort, dstPort, flags);
    // A socket takes the packet (a listener accepting it): the attempt goes on as an ordinary connection.
    if (anon >= 0 && owned) this.promote(id);
    if (anon >= 0 && !owned) {
      // Nothing takes it: the namespace's answer (a reset) belongs to the same anonymous flow.
      this.answering = anon;
      this.answeringGeneration = p.anonGeneration[id]!;
    }
    if (!owned) this.drop(id, 'no_socket_reset', site);
    else {
      this.traceHop(id, entity, 'delivered');
      this.delivered.inc();
      p.release(id);
    }
    tcp.receive(srcIp, srcPort, dstPort, flags, payload, message, dstIp);
    this.answering = -1;
  }

  private countTraffic(id: number, from: number, to: number): void {
    const n = this.hosts.length + this.elements.length;
    if (n !== this.trafficSites) {
      const grown = new Float64Array(n * n * 2);
      const old = this.trafficSites;
      for (let a = 0; a < old; a++) grown.set(this.traffic.subarray(a * old * 2, (a + 1) * old * 2), a * n * 2);
      this.traffic = grown;
      this.trafficSites = n;
    }
    const at = (from * n + to) * 2;
    this.traffic[at]!++;
    if ((this.packets.flags[id]! & (TcpFlag.SYN | TcpFlag.ACK)) === TcpFlag.SYN && this.packets.proto[id] === Proto.tcp) this.traffic[at + 1]!++;
  }

  /** Cumulative traffic between wire sites as quads (from, to, packets, SYNs), for pairs that carried any. */
  trafficQuads(): Float64Array {
    const n = this.trafficSites;
    const t = this.traffic;
    let used = 0;
    for (let i = 0; i < t.length; i += 2) if (t[i]! > 0) used++;
    const out = new Float64Array(used * 4);
    let k = 0;
    for (let i = 0; i < t.length; i += 2) {
      if (t[i]! === 0) continue;
      const pair = i / 2;
      out[k++] = Math.floor(pair / n);
      out[k++] = pair % n;
      out[k++] = t[i]!;
      out[k++] = t[i + 1]!;
    }
    return out;
  }

  /** Drops by reason (DROP_REASON_IDS order) at one site; zeros when it has dropped nothing. */
  dropsAtSite(site: DropSite): Float64Array | undefined {
    return this.dropsAt.get(site)?.counts;
  }

  get fabricDropSite(): DropSite {
    return this.fabricSite;
  }

  /** An element without the packet's connection drops it and answers with a reset from the address it was sent to. */
  resetFrom(id: number, site: DropSite, element: number): void {
    const p = this.packets;
    const srcIp = p.srcIp[id]!;
    const srcPort = p.srcPort[id]!;
    const dstIp = p.dstIp[id]!;
    const dstPort = p.dstPort[id]!;
    const rst = p.flags[id]! & TcpFlag.RST;
    this.drop(id, 'no_socket_reset', site);
    if (rst) return;
    const reply = this.emit(dstIp, dstPort, srcIp, srcPort, Proto.tcp, Payload.none, 0);
    p.flags[reply] = TcpFlag.RST | TcpFlag.ACK;
    this.toFabric(reply, element);
  }

  traced(id: number): boolean {
    return this.packets.trace[id]! >= 0;
  }

  traceHop(id: number, where: string, what: string): void {
    const slot = this.packets.trace[id]!;
    if (slot >= 0) this.ctx.tracer.hop(slot, this.packets.time[id] as SimTime, where, what);
  }

  /** The one place packets are dropped: counted by reason, traced, logged at most once a second per site and reason. */
  drop(id: number, reason: DropReason, site: DropSite): void {
    const p = this.packets;
    if (this.traced(id)) this.traceHop(id, site.entity, `dropped: ${reason}`);
    const r = dropReasonIndex(reason);
    this.ctx.drops.dropAt(r);
    let here = this.dropsAt.get(site);
    if (!here) this.dropsAt.set(site, (here = { counts: new Float64Array(DROP_REASON_IDS.length), facts: [] }));
    here.counts[r]!++;
    const now = this.ctx.sched.now;
    if (now - site.lastDropLog[r]! >= DROP_LOG_INTERVAL) {
      site.lastDropLog[r] = now;
      this.ctx.causes.record(reason, site.entity, now, {
        src: p.srcIp[id]!,
        dst: p.dstIp[id]!,
        ...site.dropDetail?.(reason, p, id),
      });
      const what = p.proto[id] === Proto.udp ? 'UDP' : describeFlags(p.flags[id]!);
      const cause = site.describeDrop?.(reason, p, id);
      this.ctx.note(
        'warn',
        site.entity,
        'packet.dropped',
        `dropped ${what} ${formatIpv4(p.srcIp[id]!)}:${p.srcPort[id]} → ${formatIpv4(p.dstIp[id]!)}:${p.dstPort[id]} (${reason})`,
        cause === undefined ? { reason } : { reason, cause },
      );
    } else {
      const fact = (here.facts[r] ??= this.ctx.causes.fact(reason, site.entity, now));
      fact.count++;
      fact.lastAt = now;
    }
    p.release(id);
  }
}
