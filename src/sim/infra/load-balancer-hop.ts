import type { SimContext } from '../context';
import type { HandlerId } from '../core/scheduler';
import { bound } from '../core/snapshot';
import type { Duration, SimTime } from '../core/time';
import { ConntrackTable, CtState, KERNEL_TIMEOUTS } from '../net/conntrack';
import { applyTrackedNat } from '../net/nat';
import { forwardThrough, XFF_POLICY_TEXT, type XffPolicy } from '../net/forwarded';
import { formatIpv4, type Cidr } from '../net/ipv4';
import { Payload, Proto, TcpFlag, type PayloadId } from '../net/packet';
import { TcpStack, type Socket, type SocketOwner, type Tcp } from '../net/tcp';
import { UdpStack, type Udp } from '../net/udp';
import { DROP_REASON_IDS, type DropReason } from '../report/drop-reasons';
import { toElement } from './fabric';
import type { LoadBalancer } from './load-balancer';
import type { Network, PacketElement } from './network';

// Model choice: a BIG-IP-sized connection table; it is not what the incidents are about.
const FLOW_TABLE_SIZE = 1 << 20;
// BIG-IP's fastL4 profile idles TCP connections out after 300 s.
const LB_TIMEOUTS = { ...KERNEL_TIMEOUTS, established: 300 };
// SNAT automap hands out source ports from the ephemeral range (model choice: sequential).
const SNAT_FIRST_PORT = 1024;
const SNAT_PORTS = 65535 - SNAT_FIRST_PORT;
/**
 * A kube-proxy health server answers 503 when it has no local endpoint
 * (docs/sources/kube-proxy.md#healthchecknodeport); see HealthCheckServers.
 */
export const HTTP_UNAVAILABLE = 503;

/**
 * An F5-style load balancer on the packet path. A SYN to a virtual server picks a pool member (or is dropped with
 * `lb_member_down`); the connection is remembered in a flow table with its NAT (destination to the member, source
 * to the self IP under SNAT automap), so the rest of the flow and its replies are rewritten alike. Health probes are
 * real HTTP requests from the self IP. With an HTTP profile it edits each request's X-Forwarded-For by `xff`.
 */
export class LoadBalancerHop implements PacketElement {
  readonly lastDropLog = new Float64Array(DROP_REASON_IDS.length).fill(-Infinity);
  readonly element: number;
  readonly tcp: TcpStack;
  readonly udp: UdpStack;
  private readonly flows = new ConntrackTable(FLOW_TABLE_SIZE, LB_TIMEOUTS);
  private nextSnatPort = 0;
  private readonly abandon: HandlerId;
  /** Port each member is probed on, when it differs from its traffic port (a healthCheckNodePort). */
  readonly probePort = new Map<number, number>();
  /** Prefixes the nodes route via the self IP, so replies to clients there come back through the box. */
  readonly returnRoutes: Cidr[] = [];

  constructor(
    private readonly ctx: SimContext,
    private readonly network: Network,
    readonly lb: LoadBalancer,
    tcp: Tcp,
    udp: Udp,
    /** What the HTTP profile does to X-Forwarded-For: Insert X-Forwarded-For appends, an iRule can reset first. */
    public xff: XffPolicy,
  ) {
    this.element = network.addElement(this);
    const ns = network.elementNamespace(this.element);
    this.tcp = new TcpStack(tcp, lb.selfIp, ns);
    this.udp = new UdpStack(udp, lb.selfIp, ns);
    network.fabric.attach(lb.selfIp, toElement(this.element));
    this.abandon = ctx.sched.register('lb.probe-abandon', bound(this, this.abandonProbe));
  }

  private abandonProbe(socketId: number): void {
    const socket = this.tcp.tcp.sockets.get(socketId);
    if (socket) socket.stack.abort(socket);
  }

  get entity(): string {
    return this.lb.entity;
  }

  /** Makes the fabric deliver a virtual server's address here. */
  serve(vip: number): void {
    this.network.fabric.attach(vip, toElement(this.element));
  }

  describeDrop(reason: DropReason): string | undefined {
    return reason === 'lb_member_down' ? 'no pool member is up (or, with unknown health, allowed to take traffic)' : undefined;
  }

  receive(id: number): void {
    const p = this.network.packets;
    const now = this.ctx.sched.now;
    const proto = p.proto[id]!;
    const ref = this.flows.lookupRef(proto, p.srcIp[id]!, p.srcPort[id]!, p.dstIp[id]!, p.dstPort[id]!, now);
    if (ref >= 0) {
      this.rewrite(id, ref);
      return;
    }
    if (p.dstIp[id] === this.lb.selfIp) {
      this.network.deliver(id, this.entity, this.tcp, this.udp, this);
      return;
    }
    const vs = this.lb.virtualServer(p.dstIp[id]!, p.dstPort[id]!);
    if (vs < 0) {
      this.network.drop(id, 'no_route', this);
      return;
    }
    const flags = p.flags[id]!;
    if (proto === Proto.tcp && (flags & (TcpFlag.SYN | TcpFlag.ACK)) !== TcpFlag.SYN) {
      // A segment of a connection the box does not know (its entry idled out): it answers with a reset.
      this.network.resetFrom(id, this, this.element);
      return;
    }
    const memberId = this.lb.pick(vs);
    if (memberId < 0) {
      this.network.drop(id, 'lb_member_down', this);
      return;
    }
    const member = this.lb.member(memberId);
    const client = p.srcIp[id]!;
    const source = this.lb.snatSource(vs, client);
    const sourcePort = source === client ? p.srcPort[id]! : SNAT_FIRST_PORT + (this.nextSnatPort++ % SNAT_PORTS);
    const state = proto === Proto.tcp ? CtState.synSent : CtState.udpUnreplied;
    const entry = this.flows.insertNat(proto, client, p.srcPort[id]!, p.dstIp[id]!, p.dstPort[id]!, member.ip, member.port, source, sourcePort, state, now);
    if (entry < 0) {
      this.network.drop(id, 'lb_member_down', this);
      return;
    }
    this.rewrite(id, entry * 2);
  }

  /**
   * Starts an HTTP health probe of a member from the self IP; `done` hears whether it answered and was not 503. A
   * probe still unanswered after `timeout` is abandoned, so unanswered SYNs do not linger in retransmission.
   */
  probe(ip: number, port: number, timeout: Duration, done: (ok: boolean) => void): void {
    const owner = new HealthProbe(this.tcp, done);
    const socket = this.tcp.connect(ip, port, owner);
    this.ctx.sched.after(timeout, this.abandon, socket.id);
  }

  private rewrite(id: number, ref: number): void {
    const p = this.network.packets;
    const now = this.ctx.sched.now;
    const message = p.message[id]!;
    const request = (ref & 1) === 0 && p.payload[id] === Payload.request ? this.ctx.requests.xff(message) : undefined;
    const client = request ? this.flows.originalSource(ref >> 1) : 0;
    // SNAT hides the client from the member; the header is where its address can travel on.
    if (request) forwardThrough(request, this.xff, client);
    applyTrackedNat(this.flows, ref, p, id, now);
    if (request && this.ctx.requests.sampled(message)) {
      const snat = p.srcIp[id] === client ? 'source kept' : `source NAT to ${formatIpv4(p.srcIp[id]!)}`;
      const header = `X-Forwarded-For ${XFF_POLICY_TEXT[this.xff]} (client ${formatIpv4(client)})`;
      const src = `${formatIpv4(p.srcIp[id]!)}:${p.srcPort[id]}`;
      this.ctx.requests.hop(message, p.time[id] as SimTime, this.entity, `${snat}; ${header}`, src, `${formatIpv4(p.dstIp[id]!)}:${p.dstPort[id]}`);
    }
    this.network.toFabric(id, this.element);
  }
}

/** One HTTP health probe's connection: `done` hears once whether it answered, and not with 503. */
export class HealthProbe implements SocketOwner {
  private answered = false;

  constructor(
    private readonly tcp: TcpStack,
    private readonly done: (ok: boolean) => void,
  ) {}

  onConnected(socket: Socket): void {
    this.tcp.send(socket, Payload.request, 0);
  }

  onData(socket: Socket, payload: PayloadId, message: number): void {
    if (payload !== Payload.response || this.answered) return;
    this.answered = true;
    this.tcp.close(socket);
    this.done(message !== HTTP_UNAVAILABLE);
  }

  onClosed(): void {
    if (this.answered) return;
    this.answered = true;
    this.done(false);
  }
}
