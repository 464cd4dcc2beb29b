import type { RpFilterMode } from '../net/rp-filter';

/**
 * primary: the instance's or server's main NIC; secondary: an extra cloud interface for pod addresses; tunnel: an
 * IP-in-IP device such as Calico's tunl0; veth: a pod's link.
 */
export type InterfaceKind = 'primary' | 'secondary' | 'tunnel' | 'veth';

/** One network interface of a host, with the IPv4 addresses configured on it (possibly none) and its rp_filter. */
export class NetInterface {
  readonly addresses: number[] = [];

  constructor(
    readonly index: number,
    readonly name: string,
    readonly kind: InterfaceKind,
    /** net.ipv4.conf.<dev>.rp_filter; the kernel applies max(all, dev). */
    public rpFilter: RpFilterMode,
    /** The pod at the other end of a veth, or -1. */
    public pod = -1,
  ) {}

  get hasAddress(): boolean {
    return this.addresses.length > 0;
  }

  /** The address a packet leaving by this interface is masqueraded to; 0 when it has none. */
  get primaryAddress(): number {
    return this.addresses[0] ?? 0;
  }
}
