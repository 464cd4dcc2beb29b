import { maskOf, type Cidr } from '../net/ipv4';

/** Delivery target codes: a host interface as host × 256 + interface, an element as -2 - element, or NOWHERE. */
export const NOWHERE = -1;
const IFACES_PER_HOST = 256;

export const toHost = (host: number, iface: number): number => host * IFACES_PER_HOST + iface;
export const toElement = (element: number): number => -2 - element;
export const isElement = (code: number): boolean => code <= -2;
export const elementOf = (code: number): number => -2 - code;
export const hostOf = (code: number): number => Math.floor(code / IFACES_PER_HOST);
export const ifaceOf = (code: number): number => code % IFACES_PER_HOST;

/**
 * The network between hosts: a cloud VPC delivers a packet to whichever instance interface holds its destination
 * address (an address stays attached until it is released, whether or not a pod still uses it); a data-centre network
 * routes pod blocks to their nodes; prefixes can also lead to elements such as routers and load balancers.
 */
export class Fabric {
  private readonly attached = new Map<number, number>();
  private readonly blocks: { mask: number; targets: Map<number, number> }[] = [];

  /** The address is now held by an interface: the VPC delivers it there. */
  attach(ip: number, target: number): void {
    this.attached.set(ip, target);
  }

  detach(ip: number): void {
    this.attached.delete(ip);
  }

  holder(ip: number): number {
    return this.attached.get(ip) ?? NOWHERE;
  }

  /** Routes a whole block (a node's pod CIDR, an element's prefix) to a target; longer prefixes win. */
  addBlock(block: Cidr, target: number): void {
    const mask = maskOf(block.prefix);
    let group = this.blocks.find((b) => b.mask === mask);
    if (!group) {
      this.blocks.push((group = { mask, targets: new Map() }));
      this.blocks.sort((a, b) => b.mask - a.mask);
    }
    group.targets.set(block.base, target);
  }

  /** Where a packet to `dst` goes: the exact holder first, then the longest block; NOWHERE when nobody has it. */
  route(dst: number): number {
    const exact = this.attached.get(dst);
    if (exact !== undefined) return exact;
    for (const group of this.blocks) {
      const target = group.targets.get((dst & group.mask) >>> 0);
      if (target !== undefined) return target;
    }
    return NOWHERE;
  }
}
