import type { Counter } from '../core/metrics';
import type { RngStream } from '../core/rng';
import { micros, seconds, type Duration } from '../core/time';
import type { SimContext } from '../context';
import { formatIpv4, maskOf } from '../net/ipv4';
import { describeFlags, PacketPool, Proto, Stage, TcpFlag, type PayloadId } from '../net/packet';
import type { Tcp, TcpWire } from '../net/tcp';
import { DROP_REASON_IDS, type DropReason } from '../report/drop-reasons';
import type { ServiceDirectory } from '../k8s/service';
import type { Host } from './host';
import type { Pod } from './pod';

const DROP_LOG_INTERVAL = seconds(1);

/**
 * Moves packets: out of a pod over its veth, through its node (Service DNAT, routing), across the fabric to the
 * node that owns the destination, and into the destination pod. Each hop costs one event and the hop latency.
 */
export class Network {
  readonly packets = new PacketPool();
  private readonly sent: Counter;
  private readonly delivered: Counter;
  private readonly arrive;
  private readonly hop: Duration;
  private readonly proxyRng = new Map<number, RngStream>();
  /** Packets each node handled, one labelled series per node. */
  private readonly nodePackets: Counter[];
  /** The fabric's delivery table: node addresses, then pod blocks by prefix length, longest first. */
  private readonly byNodeIp = new Map<number, Host>();
  private readonly byBlock: { mask: number; hosts: Map<number, Host> }[] = [];

  constructor(
    private readonly ctx: SimContext,
    private readonly hosts: readonly Host[],
    private readonly pods: readonly Pod[],
    private readonly services: ServiceDirectory,
    tcp: Tcp,
  ) {
    this.sent = ctx.metrics.counter('packets.sent');
    this.delivered = ctx.metrics.counter('packets.delivered');
    this.hop = micros(ctx.params.network.hopLatencyUs);
    this.nodePackets = hosts.map((h) => ctx.metrics.counter('node.packets', { node: h.name }));
    for (const host of hosts) {
      this.byNodeIp.set(host.ip, host);
      const mask = maskOf(host.podCidr.prefix);
      let block = this.byBlock.find((b) => b.mask === mask);
      if (!block) this.byBlock.push((block = { mask, hosts: new Map() }));
      block.hosts.set(host.podCidr.base, host);
    }
    this.byBlock.sort((a, b) => b.mask - a.mask);
    this.arrive = ctx.sched.register('packet.arrive', (id) => this.onArrive(id));
    tcp.wire = this.sendFromPod;
  }

  get inFlight(): number {
    return this.packets.inFlight;
  }

  private readonly sendFromPod: TcpWire = (stack, srcPort, dstIp, dstPort, flags, payload, message) => {
    const pod = this.pods[stack.podIndex]!;
    const p = this.packets;
    const id = p.alloc();
    p.srcIp[id] = stack.ip;
    p.dstIp[id] = dstIp;
    p.srcPort[id] = srcPort;
    p.dstPort[id] = dstPort;
    p.proto[id] = Proto.tcp;
    p.flags[id] = flags;
    p.payload[id] = payload;
    p.message[id] = message;
    this.sent.inc();
    const slot = this.ctx.tracer.begin();
    if (slot >= 0) {
      p.trace[id] = slot;
      this.ctx.tracer.describe(slot, `${describeFlags(flags)} ${formatIpv4(stack.ip)}:${srcPort} → ${formatIpv4(dstIp)}:${dstPort}`);
      this.ctx.tracer.hop(slot, this.ctx.sched.now, pod.entity, 'sent');
    }
    this.forward(id, Stage.hostFromPod, pod.host.index);
  };

  private forward(id: number, stage: number, at: number): void {
    this.packets.stage[id] = stage;
    this.packets.at[id] = at;
    this.ctx.sched.after(this.hop, this.arrive, id);
  }

  private onArrive(id: number): void {
    const p = this.packets;
    switch (p.stage[id]) {
      case Stage.hostFromPod:
        this.atHostFromPod(id, this.hosts[p.at[id]!]!);
        return;
      case Stage.hostFromWire:
        this.atHostFromWire(id, this.hosts[p.at[id]!]!);
        return;
      case Stage.pod:
        this.atPod(id, this.pods[p.at[id]!]!);
        return;
    }
  }

  private atHostFromPod(id: number, host: Host): void {
    const p = this.packets;
    this.nodePackets[host.index]!.inc();
    this.traceHop(id, host.entity, 'from pod');
    if (this.services.isServiceIp(p.dstIp[id]!) && !this.translateToBackend(id, host)) return;
    const local = host.pods.get(p.dstIp[id]!);
    if (local) {
      this.toLocalPod(id, host, local);
      return;
    }
    const dest = this.hostFor(p.dstIp[id]!);
    if (!dest) {
      this.drop(id, 'no_route', host);
      return;
    }
    this.forward(id, Stage.hostFromWire, dest.index);
  }

  private atHostFromWire(id: number, host: Host): void {
    const dst = this.packets.dstIp[id]!;
    this.nodePackets[host.index]!.inc();
    this.traceHop(id, host.entity, 'from wire');
    const local = host.pods.get(dst);
    if (local) this.toLocalPod(id, host, local);
    else this.drop(id, host.ownsPodAddress(dst) ? 'no_local_pod' : 'no_route', host);
  }

  private atPod(id: number, pod: Pod): void {
    const p = this.packets;
    if (pod.host.pods.get(p.dstIp[id]!) !== pod) {
      this.drop(id, 'no_local_pod', pod.host);
      return;
    }
    this.traceHop(id, pod.entity, 'delivered');
    this.delivered.inc();
    const srcIp = p.srcIp[id]!;
    const srcPort = p.srcPort[id]!;
    const dstPort = p.dstPort[id]!;
    const flags = p.flags[id]!;
    const payload = p.payload[id]! as PayloadId;
    const message = p.message[id]!;
    p.release(id);
    pod.tcp.receive(srcIp, srcPort, dstPort, flags, payload, message);
  }

  /** Reverse-translates replies from a Service backend, then hands the packet over the veth. */
  private toLocalPod(id: number, host: Host, pod: Pod): void {
    const p = this.packets;
    const entry = host.nat.get(p.dstIp[id]!, p.dstPort[id]!);
    if (entry && entry.backendIp === p.srcIp[id] && entry.backendPort === p.srcPort[id]) {
      p.srcIp[id] = entry.serviceIp;
      p.srcPort[id] = entry.servicePort;
    }
    this.forward(id, Stage.pod, pod.index);
  }

  /** kube-proxy's DNAT: a new connection to a Service picks a backend at random; later packets follow it. */
  private translateToBackend(id: number, host: Host): boolean {
    const p = this.packets;
    const srcIp = p.srcIp[id]!;
    const srcPort = p.srcPort[id]!;
    const service = this.services.lookup(p.dstIp[id]!, p.dstPort[id]!);
    if (!service) {
      this.drop(id, 'no_route', host);
      return false;
    }
    const flags = p.flags[id]!;
    let entry = host.nat.get(srcIp, srcPort);
    if ((flags & (TcpFlag.SYN | TcpFlag.ACK)) === TcpFlag.SYN && (!entry || entry.serviceIp !== service.clusterIp)) {
      if (service.endpoints.length === 0) {
        this.rejectNoEndpoints(id, host);
        return false;
      }
      // iptables mode picks each endpoint with equal probability (statistic --mode random).
      const endpoint = this.proxyStream(host).pick(service.endpoints);
      entry = {
        serviceIp: service.clusterIp,
        servicePort: service.port,
        backendIp: endpoint.ip,
        backendPort: endpoint.port,
        backendPod: endpoint.pod,
      };
      host.nat.set(srcIp, srcPort, entry);
      const socket = host.pods.get(srcIp)?.tcp.clientSocket(srcPort);
      if (socket) socket.backendPod = endpoint.pod;
    }
    if (!entry) {
      this.drop(id, 'no_route', host);
      return false;
    }
    p.dstIp[id] = entry.backendIp;
    p.dstPort[id] = entry.backendPort;
    this.traceHop(id, host.entity, `DNAT to ${formatIpv4(entry.backendIp)}:${entry.backendPort}`);
    return true;
  }

  /** With no endpoints kube-proxy installs a REJECT rule; the client's connect fails at once. */
  private rejectNoEndpoints(id: number, host: Host): void {
    const p = this.packets;
    const client = host.pods.get(p.srcIp[id]!);
    const dstIp = p.dstIp[id]!;
    const dstPort = p.dstPort[id]!;
    const srcPort = p.srcPort[id]!;
    this.drop(id, 'service_no_endpoints', host);
    if (!client) return;
    const reply = p.alloc();
    p.srcIp[reply] = dstIp;
    p.dstIp[reply] = client.ip;
    p.srcPort[reply] = dstPort;
    p.dstPort[reply] = srcPort;
    p.proto[reply] = Proto.tcp;
    p.flags[reply] = TcpFlag.RST | TcpFlag.ACK;
    this.sent.inc();
    this.forward(reply, Stage.pod, client.index);
  }

  private hostFor(ip: number): Host | undefined {
    const node = this.byNodeIp.get(ip);
    if (node) return node;
    for (const block of this.byBlock) {
      const host = block.hosts.get((ip & block.mask) >>> 0);
      if (host) return host;
    }
    return undefined;
  }

  private proxyStream(host: Host): RngStream {
    let stream = this.proxyRng.get(host.index);
    if (!stream) this.proxyRng.set(host.index, (stream = this.ctx.rng.stream(`kube-proxy/${host.name}`)));
    return stream;
  }

  private traceHop(id: number, where: string, what: string): void {
    const slot = this.packets.trace[id]!;
    if (slot >= 0) this.ctx.tracer.hop(slot, this.ctx.sched.now, where, what);
  }

  private drop(id: number, reason: DropReason, host: Host): void {
    const p = this.packets;
    this.traceHop(id, host.entity, `dropped: ${reason}`);
    this.ctx.drops.drop(reason);
    const r = DROP_REASON_IDS.indexOf(reason);
    const now = this.ctx.sched.now;
    if (now - host.lastDropLog[r]! >= DROP_LOG_INTERVAL) {
      host.lastDropLog[r] = now;
      this.ctx.note(
        'warn',
        host.entity,
        'packet.dropped',
        `dropped ${describeFlags(p.flags[id]!)} ${formatIpv4(p.srcIp[id]!)}:${p.srcPort[id]} → ${formatIpv4(p.dstIp[id]!)}:${p.dstPort[id]} (${reason})`,
        { reason },
      );
    }
    p.release(id);
  }
}
