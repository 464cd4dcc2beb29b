import { formatIpv4 } from '../net/ipv4';
import type { PacketPool } from '../net/packet';
import { DROP_REASON_IDS, type DropReason } from '../report/drop-reasons';
import { toElement } from './fabric';
import type { Network, PacketElement } from './network';
import type { Router } from './router';

/**
 * A router on the packet path: it holds no state about connections, hashes each packet's 5-tuple into the ECMP group
 * of its destination and sends it to that next hop. A flow whose hash moves lands on another node mid-connection.
 */
export class RouterHop implements PacketElement {
  readonly lastDropLog = new Float64Array(DROP_REASON_IDS.length).fill(-Infinity);
  readonly element: number;

  constructor(
    private readonly network: Network,
    readonly router: Router,
    readonly ip: number,
  ) {
    this.element = network.addElement(this);
    network.fabric.attach(ip, toElement(this.element));
  }

  get entity(): string {
    return this.router.entity;
  }

  /** For a packet lost at a dark node (no power, or a dead switch): the next hop the router still sent it to. */
  dropDetail(reason: DropReason, p: PacketPool, id: number): Record<string, number | string> | undefined {
    if (reason !== 'node_down') return undefined;
    return { nextHop: this.router.route(p.proto[id]!, p.srcIp[id]!, p.srcPort[id]!, p.dstIp[id]!, p.dstPort[id]!) };
  }

  describeDrop(reason: DropReason, p: PacketPool, id: number): string | undefined {
    if (reason !== 'node_down') return undefined;
    const hop = formatIpv4(Number(this.dropDetail(reason, p, id)!['nextHop']));
    return `ECMP still holds next hop ${hop}, a node the network no longer reaches: BGP has not noticed yet`;
  }

  receive(id: number): void {
    const p = this.network.packets;
    if (--p.ttl[id]! === 0) {
      this.network.drop(id, 'ttl_expired', this);
      return;
    }
    const nextHop = this.router.route(p.proto[id]!, p.srcIp[id]!, p.srcPort[id]!, p.dstIp[id]!, p.dstPort[id]!);
    if (nextHop < 0) {
      this.network.drop(id, 'no_route', this);
      return;
    }
    if (this.network.traced(id)) this.network.traceHop(id, this.entity, `ECMP next hop ${formatIpv4(nextHop)}`);
    this.network.forwardTo(id, nextHop, this, this.network.elementSite(this.element));
  }
}
