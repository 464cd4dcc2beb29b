import { TcpStack, type Tcp } from '../net/tcp';
import { UdpStack, type Udp } from '../net/udp';
import { DROP_REASON_IDS } from '../report/drop-reasons';
import { toElement } from './fabric';
import type { Network, PacketElement } from './network';

/**
 * A machine outside the cluster with sockets of its own: a cloud DNS resolver, a DNS provider, a client on the
 * internet. The fabric delivers its address to it, and what it sends goes straight onto the fabric.
 */
export class ExternalHost implements PacketElement {
  readonly tcp: TcpStack;
  readonly udp: UdpStack;
  readonly lastDropLog = new Float64Array(DROP_REASON_IDS.length).fill(-Infinity);
  readonly element: number;
  readonly ns: number;

  constructor(
    private readonly network: Network,
    readonly entity: string,
    readonly ip: number,
    tcp: Tcp,
    udp: Udp,
  ) {
    this.element = network.addElement(this);
    this.ns = network.elementNamespace(this.element);
    this.tcp = new TcpStack(tcp, ip, this.ns);
    this.udp = new UdpStack(udp, ip, this.ns);
    network.fabric.attach(ip, toElement(this.element));
  }

  receive(id: number): void {
    this.network.deliver(id, this.entity, this.tcp, this.udp, this);
  }
}
