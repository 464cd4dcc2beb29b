import { formatCount } from '../core/format';
import type { Counter } from '../core/metrics';
import type { SimContext } from '../context';
import type { Pod } from '../infra/pod';
import type { InspectSection } from '../api';
import { forwardThrough } from '../net/forwarded';
import { cidrContains, formatCidr, formatIpv4, type Cidr } from '../net/ipv4';
import { Payload, type PayloadId } from '../net/packet';
import type { Socket, Tcp } from '../net/tcp';
import { HttpListener } from './http-listener';
import type { HttpClient, HttpClients, HttpTarget } from './http-client';
import { bound } from '../core/snapshot';

/** What kind of machine an address belongs to, as a proxy's log would classify its peers. */
export type AddressKind = 'node' | 'pod' | 'lb' | 'router' | 'service' | 'external';
export const ADDRESS_KINDS: readonly AddressKind[] = ['node', 'pod', 'lb', 'router', 'service', 'external'];

export interface IngressProxySpec {
  port: number;
  upstream: HttpTarget;
  /** Peers whose X-Forwarded-For the proxy keeps and appends to. */
  trusted: readonly Cidr[];
}

/** Instruments shared by every ingress proxy. */
export class IngressProxies {
  readonly received: Counter;
  /** Requests by the kind of peer they arrived from: what the proxy could tell about the client without headers. */
  readonly peers: Record<AddressKind, Counter>;
  readonly headerReplaced: Counter;

  constructor(
    readonly ctx: SimContext,
    readonly tcp: Tcp,
    /** Sends the proxies' upstream requests; counted apart from clients' requests. */
    readonly upstreams: HttpClients,
    readonly addressKind: (ip: number) => AddressKind,
  ) {
    const m = ctx.metrics;
    this.received = m.counter('ingress.requests');
    this.peers = Object.fromEntries(ADDRESS_KINDS.map((k) => [k, m.counter('ingress.peer', { kind: k })])) as Record<AddressKind, Counter>;
    this.headerReplaced = m.counter('ingress.xff.replaced');
  }

  create(pod: Pod, spec: IngressProxySpec): IngressProxy {
    const upstream = this.upstreams.create({ entity: pod.entity, name: pod.name, tcp: pod.tcp }, spec.upstream, { driven: true });
    return new IngressProxy(this, pod, spec, upstream);
  }
}

/**
 * A layer-7 reverse proxy in a pod, like Traefik as an ingress controller: it ends the client's connection, and sends
 * each request on over its own keep-alive connections to an upstream Service. Its X-Forwarded-For handling follows
 * Traefik's forwardedHeaders: from a trusted peer the header is kept and the peer appended; from any other peer the
 * header is dropped and replaced by the peer alone (docs/sources/load-balancers.md#forwarded-headers).
 */
export class IngressProxy extends HttpListener {
  constructor(
    private readonly shared: IngressProxies,
    pod: Pod,
    private readonly spec: IngressProxySpec,
    private readonly upstream: HttpClient,
  ) {
    super(shared.ctx, pod, spec.port);
  }

  override start(): void {
    super.start();
    this.upstream.start();
  }

  killed(): void {
    this.upstream.killed();
  }

  onData(socket: Socket, payload: PayloadId, message: number): void {
    if (payload !== Payload.request) return;
    const shared = this.shared;
    const requests = shared.ctx.requests;
    const peer = socket.remoteIp;
    shared.received.inc();
    shared.peers[shared.addressKind(peer)].inc();
    const trusted = this.trusts(peer);
    const xff = requests.xff(message);
    if (xff) {
      if (!trusted && xff.length > 0) shared.headerReplaced.inc();
      forwardThrough(xff, trusted ? 'append' : 'replace', peer);
    }
    if (requests.sampled(message)) {
      const how = trusted ? 'a trusted peer: X-Forwarded-For kept, peer appended' : 'not a trusted peer: X-Forwarded-For replaced by the peer';
      requests.hop(
        message,
        shared.ctx.sched.now,
        this.pod.entity,
        `received from ${formatIpv4(peer)}, ${how}`,
        `${formatIpv4(peer)}:${socket.remotePort}`,
        `${formatIpv4(this.pod.ip)}:${this.port}`,
      );
    }
    this.began(socket);
    this.upstream.forward(message, bound(this, this.upstreamAnswered, socket, message));
  }

  /** The upstream answered request `message` (or gave up on it): the client hears the status. */
  private upstreamAnswered(socket: Socket, message: number, status: number): void {
    this.shared.ctx.requests.setStatus(message, status);
    this.answer(socket, message);
  }

  inspect(): InspectSection[] {
    const trusted = this.spec.trusted.length === 0 ? 'no one' : this.spec.trusted.map(formatCidr).join(', ');
    return [
      {
        title: 'Ingress proxy',
        rows: [
          ['upstream', `${this.spec.upstream.name} (${formatIpv4(this.spec.upstream.ip)}:${this.spec.upstream.port})`],
          ['trusts X-Forwarded-For from', trusted],
          ['client connections', formatCount(this.connections)],
          ['requests waiting upstream', formatCount(this.requestsInFlight)],
        ],
      },
    ];
  }

  protected override drained(exit: () => void): void {
    this.upstream.terminate(exit);
  }

  private trusts(ip: number): boolean {
    return this.spec.trusted.some((cidr) => cidrContains(cidr, ip));
  }
}
