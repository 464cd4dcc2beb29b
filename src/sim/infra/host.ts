import { cidrContains, formatIpv4, type Cidr, type Ipv4 } from '../net/ipv4';
import { ConntrackTable, KUBE_PROXY_TIMEOUTS } from '../net/conntrack';
import { PolicyRouting } from '../net/policy-routing';
import type { RpFilterMode } from '../net/rp-filter';
import type { TcpStack } from '../net/tcp';
import type { UdpStack } from '../net/udp';
import { NetInterface, type InterfaceKind } from './interfaces';
import type { Hypervisor } from './hypervisor';
import type { Pod } from './pod';
import type { PacketPool } from '../net/packet';
import type { DropReason } from '../report/drop-reasons';
import type { BlockIpam } from './block-ipam';
import { hostLocalRange, podAddressCapacity } from './pod-range';

export interface HostOptions {
  index: number;
  name: string;
  ip: Ipv4;
  podCidr: Cidr;
  platform: 'bare-metal' | 'cloud';
  cpus: number;
  rpFilterAll: RpFilterMode;
  conntrackMax: number;
  dropReasonCount: number;
}

/**
 * A Kubernetes node: its interfaces, routing (rules and tables), connection tracking, the pods whose network
 * namespaces it holds, its own host-network sockets, and, on a cloud instance, the hypervisor in front of it.
 */
export class Host {
  readonly index: number;
  readonly name: string;
  readonly ip: Ipv4;
  readonly podCidr: Cidr;
  readonly platform: 'bare-metal' | 'cloud';
  /** CPUs a container's threads may run on. */
  readonly cpus: number;
  /** Pods whose network namespace exists on this host, by address. */
  readonly pods = new Map<number, Pod>();
  readonly ifaces: NetInterface[] = [];
  private readonly byName = new Map<string, number>();
  readonly routing = new PolicyRouting();
  readonly conntrack: ConntrackTable;
  /** Addresses whose traffic skips conntrack and NAT (raw-table NOTRACK), as node-local DNS sets up for its own. */
  readonly notrack = new Set<number>();
  /** net.ipv4.conf.all.rp_filter. */
  rpFilterAll: RpFilterMode;
  hypervisor: Hypervisor | null = null;
  /** New pods may be scheduled here; a drain cordons the node. */
  schedulable = true;
  /** The Node object exists; a removed node leaves load-balancer pools and BGP, though the machine still forwards. */
  inCluster = true;
  /** The machine has power: one without receives nothing and sends nothing. */
  powered = true;
  /** Its top-of-rack switch passes its frames: behind a failed one it still runs, and reaches only itself. */
  uplinkUp = true;
  /** The Node object's labels (rack, zone, hostname), which the scheduler's topology keys read. */
  labels: Readonly<Record<string, string>> = {};
  /** Where the machine stands, whatever its labels say. */
  rack: string | null = null;
  room: string | null = null;
  /** Sockets of host-network processes (node-local DNS, kube-proxy's health server). */
  tcp!: TcpStack;
  udp!: UdpStack;
  /** Addresses handed out and not yet released, so IPAM never gives one out twice. */
  private readonly allocated = new Set<number>();
  /** How many of `allocated` lie in the range host-local IPAM hands out. */
  private heldAllocatable = 0;
  /** Calico block IPAM, when the pod network uses it; otherwise host-local style allocation over podCidr. */
  ipam: BlockIpam | null = null;
  private ipamCursor: number;
  /** Last time a drop of each reason was logged here, to keep the event log readable under floods. */
  readonly lastDropLog: Float64Array;

  constructor(o: HostOptions) {
    this.index = o.index;
    this.name = o.name;
    this.ip = o.ip;
    this.podCidr = o.podCidr;
    this.platform = o.platform;
    this.cpus = o.cpus;
    this.rpFilterAll = o.rpFilterAll;
    this.conntrack = new ConntrackTable(o.conntrackMax, KUBE_PROXY_TIMEOUTS);
    this.ipamCursor = o.podCidr.base + 2;
    this.lastDropLog = new Float64Array(o.dropReasonCount).fill(-Infinity);
  }

  /** Whether frames on the wire reach the machine. */
  get reachable(): boolean {
    return this.powered && this.uplinkUp;
  }

  /** Built once: it names the entity in every drop, trace and log line. */
  get entity(): string {
    return (this.entityText ??= `node/${this.name}`);
  }
  private entityText: string | undefined;

  addInterface(name: string, kind: InterfaceKind, rpFilter: RpFilterMode, pod = -1): NetInterface {
    const iface = new NetInterface(this.ifaces.length, name, kind, rpFilter, pod);
    this.ifaces.push(iface);
    this.byName.set(name, iface.index);
    this.lastIfaceName = undefined;
    return iface;
  }

  iface(name: string): NetInterface | undefined {
    const i = this.byName.get(name);
    return i === undefined ? undefined : this.ifaces[i];
  }

  /** Index of the interface a route leaves by; -1 for none. */
  ifaceIndex(name: string | undefined): number {
    if (name === undefined) return -1;
    // Packets leave by the same one or two devices over and over: the last answer first.
    if (name === this.lastIfaceName) return this.lastIfaceIndex;
    const index = this.byName.get(name) ?? -1;
    this.lastIfaceName = name;
    this.lastIfaceIndex = index;
    return index;
  }
  private lastIfaceName: string | undefined;
  private lastIfaceIndex = -1;

  /** MASQUERADE picks the outgoing interface's address; one without an address falls back to the node's. */
  masqueradeAddress(out: number): number {
    return (out >= 0 ? this.ifaces[out]!.primaryAddress : 0) || this.ip;
  }

  dropDetail(reason: DropReason, p: PacketPool, id: number): Record<string, number | string> | undefined {
    if (reason !== 'rp_filter_martian') return undefined;
    const iface = this.ifaces[p.iface[id]!];
    return iface ? { iface: iface.name, ifaceHasAddress: iface.hasAddress ? 1 : 0, rpFilter: Math.max(this.rpFilterAll, iface.rpFilter) } : undefined;
  }

  describeDrop(reason: DropReason, p: PacketPool, id: number): string | undefined {
    switch (reason) {
      case 'rp_filter_martian': {
        const iface = this.ifaces[p.iface[id]!];
        if (!iface) return undefined;
        const mode = Math.max(this.rpFilterAll, iface.rpFilter);
        // The kernel's own log line (net/ipv4/route.c), then why: the interface's address and the filter mode.
        const line = `martian source ${formatIpv4(p.dstIp[id]!)} from ${formatIpv4(p.srcIp[id]!)}, on dev ${iface.name}`;
        return `${line}: ${iface.name} ${iface.hasAddress ? 'has an IPv4 address' : 'has no IPv4 address'}, rp_filter ${mode}`;
      }
      case 'host_conntrack_full':
        return `nf_conntrack table full: ${this.conntrack.size} of ${this.conntrack.max} entries`;
      default:
        return undefined;
    }
  }

  ownsPodAddress(ip: number): boolean {
    return cidrContains(this.podCidr, ip);
  }

  reserve(ip: Ipv4, handle = 'reserved'): void {
    if (!this.ownsPodAddress(ip)) throw new Error(`${formatIpv4(ip)} is outside ${this.name}'s pod CIDR`);
    this.hold(ip);
    this.ipam?.assign(ip, handle);
  }

  release(ip: Ipv4): void {
    if (this.allocated.delete(ip) && this.allocatable(ip)) this.heldAllocatable--;
    this.ipam?.release(ip);
  }

  /** Whether allocate() would find an address, so the scheduler can pass over a node whose pod range is full. */
  hasFreePodAddress(): boolean {
    if (this.ipam) return this.ipam.free > 0;
    return this.heldAllocatable < podAddressCapacity(this.podCidr, false);
  }

  private hold(ip: number): void {
    if (this.allocated.has(ip)) return;
    this.allocated.add(ip);
    if (this.allocatable(ip)) this.heldAllocatable++;
  }

  private allocatable(ip: number): boolean {
    const { first, last } = hostLocalRange(this.podCidr);
    return ip >= first && ip <= last;
  }

  /**
   * A free pod address for `handle`. With block IPAM, the lowest free one of the node's blocks
   * (docs/sources/calico.md#ip-pools-and-blocks); otherwise the next free one after the last handed out, wrapping
   * around, like the host-local IPAM plugin (containernetworking/plugins `plugins/ipam/host-local`): .0 is the network,
   * .1 the gateway, the last the broadcast.
   */
  allocate(handle = 'pod'): Ipv4 {
    if (this.ipam) {
      const ip = this.ipam.allocate(handle);
      if (ip === null) throw new Error(`${this.name} has no free pod address left in its blocks`);
      this.hold(ip);
      return ip;
    }
    const { first, last } = hostLocalRange(this.podCidr);
    for (let tries = 0; tries <= last - first; tries++) {
      const ip = this.ipamCursor;
      this.ipamCursor = ip >= last ? first : ip + 1;
      if (!this.allocated.has(ip)) {
        this.hold(ip);
        return ip as Ipv4;
      }
    }
    throw new Error(`${this.name} has no free pod address left in its pod CIDR`);
  }
}
