import { cidrContains, cidrSize, formatIpv4, type Cidr, type Ipv4 } from '../net/ipv4';
import { ServiceNat } from '../k8s/service-nat';
import type { Pod } from './pod';

/** A Kubernetes node: one address on the fabric, a block of pod addresses, and the pods whose network namespaces it holds. */
export class Host {
  /** Pods whose network namespace exists on this host, by address. */
  readonly pods = new Map<number, Pod>();
  readonly nat = new ServiceNat();
  /** Addresses handed out and not yet released, so IPAM never gives one out twice. */
  private readonly allocated = new Set<number>();
  private ipamCursor: number;
  /** Last time a drop of each reason was logged here, to keep the event log readable under floods. */
  readonly lastDropLog: Float64Array;

  constructor(
    readonly index: number,
    readonly name: string,
    readonly ip: Ipv4,
    readonly podCidr: Cidr,
    dropReasonCount: number,
  ) {
    this.ipamCursor = podCidr.base + 2;
    this.lastDropLog = new Float64Array(dropReasonCount).fill(-Infinity);
  }

  get entity(): string {
    return `node/${this.name}`;
  }

  ownsPodAddress(ip: number): boolean {
    return cidrContains(this.podCidr, ip);
  }

  reserve(ip: Ipv4): void {
    if (!this.ownsPodAddress(ip)) throw new Error(`${formatIpv4(ip)} is outside ${this.name}'s pod CIDR`);
    this.allocated.add(ip);
  }

  release(ip: Ipv4): void {
    this.allocated.delete(ip);
  }

  /**
   * Next free address after the last one handed out, wrapping around, like the host-local IPAM plugin
   * (containernetworking/plugins `plugins/ipam/host-local`): .0 is the network, .1 the gateway, the last the broadcast.
   */
  allocate(): Ipv4 {
    const size = cidrSize(this.podCidr);
    const first = this.podCidr.base + 2;
    const last = this.podCidr.base + size - 2;
    for (let tries = 0; tries <= last - first; tries++) {
      const ip = this.ipamCursor;
      this.ipamCursor = ip >= last ? first : ip + 1;
      if (!this.allocated.has(ip)) {
        this.allocated.add(ip);
        return ip as Ipv4;
      }
    }
    throw new Error(`${this.name} has no free pod address left in its pod CIDR`);
  }
}
