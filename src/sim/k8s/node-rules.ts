import { NO_ENDPOINTS, NO_LOCAL_ENDPOINT, type ServiceProxy } from '../infra/service-proxy';
import type { SliceEndpoint } from './endpoint-slice';
import { KubeServicesChain } from './kube-services-chain';
import type { ServiceChains } from './service-chains';

/** Which of a Service's addresses a packet matched; part of a programmed id: serviceIndex * 4 + frontend. */
export const Frontend = { clusterIp: 0, nodePort: 1, loadBalancer: 2 } as const;

export const programmedId = (service: number, frontend: number): number => service * 4 + frontend;
export const serviceOfId = (id: number): number => id >> 2;
export const frontendOfId = (id: number): number => id & 3;

/** A chosen endpoint's slot is serviceIndex * SLOT_SPAN + its index in the programmed endpoints. */
const SLOT_SPAN = 2 ** 20;

/**
 * The Service rules each node's netfilter currently holds: what kube-proxy last wrote there, which may lag the API.
 * Every query on the packet path reads typed arrays and shared immutable chains and allocates nothing.
 */
export class NodeRules implements ServiceProxy {
  private readonly programmed: (ServiceChains | undefined)[][];
  private readonly frontends: KubeServicesChain[];

  constructor(private readonly nodeIps: readonly number[]) {
    this.programmed = nodeIps.map(() => []);
    this.frontends = nodeIps.map(() => new KubeServicesChain());
  }

  /** The chains programmed for a Service on a node, if any. */
  chains(node: number, service: number): ServiceChains | undefined {
    return this.programmed[node]![service];
  }

  /** Writes one Service's chains on a node, replacing its earlier ones and their address matches. */
  install(node: number, chains: ServiceChains): void {
    const row = this.programmed[node]!;
    const before = row[chains.service];
    if (before === chains) return;
    const table = this.frontends[node]!;
    if (before) this.forEachFrontend(before, (ip, port, id) => table.delete(ip, port, before.proto, id));
    this.forEachFrontend(chains, (ip, port, id) => table.set(ip, port, chains.proto, id));
    row[chains.service] = chains;
  }

  /**
   * The programmed id for a packet at `node` to dstIp:dstPort, or -1 when no Service rule matches. Node ports match
   * only when the destination is this node's own IP; the caller passes the node whose netfilter sees the packet.
   */
  lookup(node: number, dstIp: number, dstPort: number, proto: number): number {
    const table = this.frontends[node]!;
    const id = table.find(dstIp, dstPort, proto);
    if (id >= 0 || dstIp !== this.nodeIps[node]) return id;
    return table.find(0, dstPort, proto);
  }

  /**
   * Picks the endpoint for a new connection, as iptables' statistic-mode-random jumps do: uniformly among the usable
   * endpoints; only the node's own when externalTrafficPolicy is Local and the traffic came to a node port or the LB
   * IP from outside (a local pod's is short-circuited to every endpoint). `random` in [0, 1).
   * Returns a slot >= 0, NO_ENDPOINTS (REJECT) or NO_LOCAL_ENDPOINT (dropped).
   */
  choose(node: number, id: number, fromLocalPod: boolean, random: number): number {
    const service = serviceOfId(id);
    const chains = this.programmed[node]![service];
    if (!chains || chains.cluster.length === 0) return NO_ENDPOINTS;
    if (!fromLocalPod && frontendOfId(id) !== Frontend.clusterIp && chains.externalTrafficPolicy === 'Local') {
      const from = chains.localOffsets[node]!;
      const n = chains.localOffsets[node + 1]! - from;
      if (n === 0) return NO_LOCAL_ENDPOINT;
      return service * SLOT_SPAN + chains.localSlots[from + Math.floor(random * n)]!;
    }
    return service * SLOT_SPAN + chains.cluster[Math.floor(random * chains.cluster.length)]!;
  }

  /** The endpoint behind a slot that choose() returned; valid until the node's rules change. */
  endpoint(node: number, slot: number): SliceEndpoint {
    return this.programmed[node]![Math.floor(slot / SLOT_SPAN)]!.endpoints[slot % SLOT_SPAN]!;
  }

  endpointIp(node: number, slot: number): number {
    return this.endpoint(node, slot).ip;
  }

  endpointPort(node: number, slot: number): number {
    return this.endpoint(node, slot).port;
  }

  endpointPod(node: number, slot: number): number {
    return this.endpoint(node, slot).pod;
  }

  /**
   * Whether the connection is SNATed to the node's address: ClusterIP traffic not from a local pod (KUBE-SVC's
   * "! -s clusterCIDR" rule), node-port or LB traffic under the Cluster policy (KUBE-EXT marks it, local pods' too).
   * Local keeps the client's address. Hairpin (a pod reaching itself) is masqueraded as well; the caller sees it by
   * comparing the endpoint with the source.
   */
  masquerade(node: number, id: number, _slot: number, fromLocalPod: boolean): boolean {
    const chains = this.programmed[node]![serviceOfId(id)];
    if (!chains) return false;
    if (frontendOfId(id) === Frontend.clusterIp) return !fromLocalPod;
    return chains.externalTrafficPolicy === 'Cluster';
  }

  private forEachFrontend(chains: ServiceChains, visit: (ip: number, port: number, id: number) => void): void {
    const svc = chains.service;
    visit(chains.clusterIp, chains.port, programmedId(svc, Frontend.clusterIp));
    if (chains.nodePort !== 0) visit(0, chains.nodePort, programmedId(svc, Frontend.nodePort));
    if (chains.loadBalancerIp !== 0) visit(chains.loadBalancerIp, chains.port, programmedId(svc, Frontend.loadBalancer));
  }
}
