import { cidrSize, type Cidr } from '../net/ipv4';

/**
 * The addresses host-local IPAM hands out from a pod CIDR: from the third (.0 is the network, .1 the gateway) to the
 * one before the last (the broadcast address); empty (first > last) for a /31 or /32.
 */
export function hostLocalRange(podCidr: Cidr): { first: number; last: number } {
  return { first: podCidr.base + 2, last: podCidr.base + cidrSize(podCidr) - 2 };
}

/** How many pods a node can give an address: host-local's range, or with Calico block IPAM the whole pool. */
export function podAddressCapacity(podCidr: Cidr, blocks: boolean): number {
  if (blocks) return cidrSize(podCidr);
  const { first, last } = hostLocalRange(podCidr);
  return Math.max(0, last - first + 1);
}
