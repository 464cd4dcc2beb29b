import type { CalicoParams } from './calico-params';
import type { NodeParams } from './node-params';
import type { HandlerId } from '../core/scheduler';
import { seconds } from '../core/time';
import type { SimContext } from '../context';
import type { RpFilterMode } from '../net/rp-filter';
import type { InstanceParams } from './instance-params';
import { formatIpv4, type Cidr, type Ipv4 } from '../net/ipv4';
import { TABLE_MAIN } from '../net/policy-routing';
import { BlockIpam } from './block-ipam';
import type { Fabric } from './fabric';
import { toHost } from './fabric';
import type { Host } from './host';
import type { NetInterface } from './interfaces';
import type { Pod } from './pod';
import { withMember } from '../core/snapshot';

// Model choice: one routing table per secondary interface, numbered like Cilium's ENI tables (first ENI → table 11).
const ENI_TABLE = 11;
const ALL: Cidr = { base: 0 as Ipv4, prefix: 0 };
const host32 = (ip: number): Cidr => ({ base: ip as Ipv4, prefix: 32 });
/** The IPAM handle calico-node's tunnel-ip-allocator uses for a node's IPIP address. */
const tunnelHandle = (host: Host): string => `ipip-tunnel-addr-${host.name}`;

/** What the CNI plugin is configured with: the node's pod network, Calico's IPAM and the cloud's address release. */
export interface CniSettings {
  podNetwork: NodeParams['podNetwork'];
  rpFilter: RpFilterMode;
  podInterfaceHasIp: boolean;
  tunnelHasIp: boolean;
  sourceRuleGcSeconds: number;
  ipam: CalicoParams['ipam'];
  blockSize: number;
  leakGraceS: number;
  ipReleaseDelayS: number;
}

/** The CNI settings out of a scenario's parameters. */
export function cniSettings(params: { node: NodeParams; calico: CalicoParams; instance: InstanceParams }): CniSettings {
  const { node, calico, instance } = params;
  return {
    podNetwork: node.podNetwork,
    rpFilter: node.rpFilter,
    podInterfaceHasIp: node.podInterfaceHasIp,
    tunnelHasIp: node.tunnelHasIp,
    sourceRuleGcSeconds: node.sourceRuleGcSeconds,
    ipam: calico.ipam,
    blockSize: calico.blockSize,
    leakGraceS: calico.leakGraceS,
    ipReleaseDelayS: instance.ipReleaseDelayS,
  };
}

/**
 * The pod network plumbing a CNI plugin does on each node. `routed`: pod blocks are routed to nodes and a node
 * blackholes the unused part of its own block (Calico-style). `eni`: pod addresses are secondary addresses of a
 * second cloud interface that may carry no IPv4 address itself, each pod's egress is steered there by a source rule,
 * and a deleted pod's rule is garbage-collected and its address released from the interface later (Cilium ENI mode).
 */
export class Cni {
  private readonly ruleGc: HandlerId;
  private readonly ipRelease: HandlerId;
  private readonly ipamGc: HandlerId;
  /** When each node's Node object was last deleted, for the IPAM garbage collector and the why chain. */
  private readonly deletedAt = new Map<number, number>();
  private readonly freeVeths = new Map<number, number[]>();

  constructor(
    private readonly ctx: SimContext,
    private readonly hosts: readonly Host[],
    private readonly pods: readonly Pod[],
    private readonly fabric: Fabric,
    private readonly settings: CniSettings,
  ) {
    this.ruleGc = ctx.sched.register('cni.rule-gc', withMember(this, this.collectRule, this.pods));
    this.ipRelease = ctx.sched.register('cni.ip-release', withMember(this, this.releaseAddress, this.pods));
    this.ipamGc = ctx.sched.register('cni.ipam-gc', withMember(this, this.collectLeak, this.hosts));
  }

  private get mode(): 'routed' | 'ipip' | 'eni' {
    return this.settings.podNetwork;
  }

  /** Interfaces, addresses, routes and fabric attachments of a node before any pod runs. */
  setUpHost(host: Host): void {
    const rp = this.settings.rpFilter;
    const eth0 = host.addInterface('eth0', 'primary', rp);
    eth0.addresses.push(host.ip);
    host.routing.local.add({ dst: host32(host.ip), type: 'local', dev: 'lo' });
    host.routing.main.add({ dst: ALL, type: 'unicast', dev: 'eth0' });
    this.fabric.attach(host.ip, toHost(host.index, eth0.index));
    host.hypervisor?.attached.add(host.ip);
    if (this.mode !== 'eni' && this.settings.ipam === 'blocks') host.ipam = new BlockIpam(host.podCidr, this.settings.blockSize);
    if (this.mode !== 'eni') {
      // Calico installs a blackhole route for the node's own block, so addresses no pod holds go nowhere.
      host.routing.main.add({ dst: host.podCidr, type: 'blackhole' });
    }
    if (this.mode === 'routed') {
      this.fabric.addBlock(host.podCidr, toHost(host.index, eth0.index));
      return;
    }
    if (this.mode === 'ipip') {
      this.setUpTunnel(host, rp);
      return;
    }
    host.addInterface('eth1', 'secondary', rp);
    if (this.settings.podInterfaceHasIp) this.giveAddress(host);
    host.routing.table(ENI_TABLE).add({ dst: ALL, type: 'unicast', dev: 'eth1' });
  }

  /** The pod-facing secondary interface (ENI mode), or undefined when the pod network has none. */
  podInterface(host: Host): NetInterface | undefined {
    return this.mode === 'eni' ? host.iface('eth1') : undefined;
  }

  /** Gives the pod-facing interface its own IPv4 address (`ip addr add`), if it has none; true when it did. */
  addInterfaceAddress(host: Host, cause: string): boolean {
    const eth1 = this.podInterface(host);
    if (!eth1 || eth1.hasAddress) return false;
    const own = this.giveAddress(host);
    this.ctx.note('info', host.entity, 'iface.address.added', `${formatIpv4(own)} added to eth1`, { cause });
    return true;
  }

  /** Takes the pod-facing interface's own address away (`ip addr del`); true when it had one. */
  removeInterfaceAddress(host: Host, cause: string): boolean {
    const eth1 = this.podInterface(host);
    if (!eth1 || !eth1.hasAddress) return false;
    const own = eth1.addresses.pop()!;
    host.routing.local.remove((r) => r.type === 'local' && r.dst.prefix === 32 && r.dst.base === own);
    this.fabric.detach(own);
    host.hypervisor?.attached.delete(own);
    host.release(own as Ipv4);
    this.ctx.note('warn', host.entity, 'iface.address.removed', `${formatIpv4(own)} removed from eth1: it has no IPv4 address now`, { cause });
    return true;
  }

  private giveAddress(host: Host): Ipv4 {
    const eth1 = host.iface('eth1')!;
    // Model choice: the interface's own address is the first usable one of the node's pod range.
    const own = (host.podCidr.base + 1) as Ipv4;
    eth1.addresses.push(own);
    host.reserve(own);
    host.routing.local.add({ dst: host32(own), type: 'local', dev: 'lo' });
    this.fabric.attach(own, toHost(host.index, eth1.index));
    host.hypervisor?.attached.add(own);
    return own;
  }

  /** Calico IPIP: tunl0, with the block's first address unless told otherwise, and every other node's block via it. */
  private setUpTunnel(host: Host, rp: Host['rpFilterAll']): void {
    const tunl0 = host.addInterface('tunl0', 'tunnel', rp);
    if (this.settings.tunnelHasIp) {
      // calico-node's tunnel-ip-allocator takes it through IPAM: with blocks, the first block's first address.
      let own = host.podCidr.base;
      if (host.ipam) own = host.allocate(tunnelHandle(host));
      else host.reserve(own);
      tunl0.addresses.push(own);
      host.routing.local.add({ dst: host32(own), type: 'local', dev: 'lo' });
    }
    for (const other of this.hosts) {
      if (other !== host) host.routing.main.add({ dst: other.podCidr, type: 'unicast', dev: 'tunl0', via: other.ip });
    }
  }

  /**
   * The Node object was deleted (it may register again under its name). Calico's IPAM garbage collector then finds the
   * tunnel address's allocation, made for the deleted node, leaked and releases it after its grace period, while
   * tunl0 keeps using the address (calico#3589, docs/sources/calico.md#tunnel-address-collision).
   */
  nodeDeleted(host: Host): void {
    this.deletedAt.set(host.index, this.ctx.sched.now);
    const tunnel = this.tunnelAddress(host);
    if (!host.ipam || tunnel === undefined || host.ipam.handleOf(tunnel) !== tunnelHandle(host)) return;
    this.ctx.sched.after(seconds(this.settings.leakGraceS), this.ipamGc, host.index, tunnel);
  }

  /**
   * calico-node restarts: its tunnel-ip-allocator checks tunl0's address against IPAM and, when the allocation is no
   * longer the node's tunnel's, takes a new address.
   */
  restartAgent(host: Host, cause: string): void {
    const tunnel = this.tunnelAddress(host);
    this.ctx.note('info', host.entity, 'cni.agent-restarted', 'calico-node restarted', { cause });
    if (!host.ipam || tunnel === undefined || host.ipam.handleOf(tunnel) === tunnelHandle(host)) return;
    const fresh = host.allocate(tunnelHandle(host));
    const tunl0 = host.iface('tunl0')!;
    tunl0.addresses[tunl0.addresses.indexOf(tunnel)] = fresh;
    host.routing.local.remove((r) => r.type === 'local' && r.dst.prefix === 32 && r.dst.base === tunnel);
    host.routing.local.add({ dst: host32(fresh), type: 'local', dev: 'lo' });
    const holder = host.ipam.handleOf(tunnel);
    const now = holder ? `; ${formatIpv4(tunnel)} is ${holder}'s` : '';
    this.ctx.note('warn', host.entity, 'cni.tunnel-readdressed', `tunl0 now has ${formatIpv4(fresh)}${now}`, { cause });
  }

  tunnelAddress(host: Host): number | undefined {
    return host.iface('tunl0')?.addresses[0];
  }

  private collectLeak(host: Host, ip: number): void {
    if (host.ipam?.handleOf(ip) !== tunnelHandle(host)) return;
    host.release(ip as Ipv4);
    const grace = this.settings.leakGraceS;
    this.ctx.note('warn', host.entity, 'cni.ipam-leak-released', `IPAM GC: ${formatIpv4(ip)} (${tunnelHandle(host)}) confirmed leaked after ${grace} s and released`);
    this.ctx.causes.record('ipam_leak_released', host.entity, this.ctx.sched.now, { ip, deletedAt: this.deletedAt.get(host.index) ?? -1, graceS: grace });
  }

  /** The pod's veth, its /32 route, and in ENI mode its source rule and secondary address. */
  attach(pod: Pod): void {
    const host = pod.host;
    // The host already has the address as its own (tunl0's): its local route wins, so the pod's traffic stays on the host.
    if (host.routing.local.lookup(pod.ip)?.type === 'local') {
      this.ctx.note('warn', pod.entity, 'cni.address-collision', `${formatIpv4(pod.ip)} is also ${host.name}'s tunl0 address`);
      this.ctx.causes.record('pod_ip_collision', pod.entity, this.ctx.sched.now, { ip: pod.ip, node: host.entity, at: this.ctx.sched.now });
    }
    const free = this.freeVeths.get(host.index);
    const reused = free?.pop();
    const veth = reused === undefined ? host.addInterface(`veth${host.ifaces.length}`, 'veth', this.settings.rpFilter) : host.ifaces[reused]!;
    veth.pod = pod.index;
    pod.veth = veth.index;
    host.pods.set(pod.ip, pod);
    host.routing.main.add({ dst: host32(pod.ip), type: 'unicast', dev: veth.name });
    if (this.mode === 'eni') {
      host.routing.addDestinationRule(pod.ip, TABLE_MAIN);
      host.routing.addSourceRule(pod.ip, ENI_TABLE);
      this.fabric.attach(pod.ip, toHost(host.index, host.ifaceIndex('eth1')));
      host.hypervisor?.attached.add(pod.ip);
    }
  }

  /** The network namespace is gone: the veth and route go now; the rule and the address follow on their own clocks. */
  detach(pod: Pod): void {
    const host = pod.host;
    if (host.pods.get(pod.ip) === pod) host.pods.delete(pod.ip);
    host.routing.main.removeHost(pod.ip);
    if (pod.veth >= 0) {
      host.ifaces[pod.veth]!.pod = -1;
      let free = this.freeVeths.get(host.index);
      if (!free) this.freeVeths.set(host.index, (free = []));
      free.push(pod.veth);
      pod.veth = -1;
    }
    if (this.mode !== 'eni') {
      host.release(pod.ip);
      return;
    }
    this.ctx.sched.after(seconds(this.settings.sourceRuleGcSeconds), this.ruleGc, pod.index);
    this.ctx.sched.after(seconds(this.settings.ipReleaseDelayS), this.ipRelease, pod.index);
  }

  private collectRule(pod: Pod): void {
    if (pod.host.pods.has(pod.ip)) return;
    pod.host.routing.removeDestinationRule(pod.ip);
    if (pod.host.routing.removeSourceRule(pod.ip)) {
      this.ctx.note('debug', pod.host.entity, 'cni.rule-removed', `ip rules to and from ${formatIpv4(pod.ip)} removed`);
    }
  }

  /** The cloud detaches the address from the interface; only now may IPAM hand it out again. */
  private releaseAddress(pod: Pod): void {
    const host = pod.host;
    if (host.pods.has(pod.ip)) return;
    this.fabric.detach(pod.ip);
    host.hypervisor?.attached.delete(pod.ip);
    host.release(pod.ip);
    this.ctx.note('info', host.entity, 'cni.ip-released', `${formatIpv4(pod.ip)} released from eth1`);
  }
}
