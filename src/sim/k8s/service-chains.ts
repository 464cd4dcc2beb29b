import type { SliceEndpoint } from './endpoint-slice';
import type { Service, TrafficPolicy } from './service';

/**
 * Rules in KUBE-SERVICES / KUBE-NODEPORTS that send a Service's addresses to its chains; kube-proxy rewrites these for
 * every Service on every sync, partial or not (docs/sources/kube-proxy.md#full-and-partial-restores). Model choice: one
 * per address the Service has.
 */
export function jumpRulesOf(service: Service): number {
  return 1 + (service.nodePort !== undefined ? 1 : 0) + (service.loadBalancerIp !== undefined ? 1 : 0);
}

/**
 * One Service's chains (KUBE-SVC/SVL/EXT/SEP) as kube-proxy renders them from a snapshot of the Service and its
 * EndpointSlice. Immutable: every node that programs the same versions shares one instance.
 */
export class ServiceChains {
  readonly clusterIp: number;
  readonly port: number;
  readonly proto: number;
  /** 0 when the Service has none. */
  readonly nodePort: number;
  readonly loadBalancerIp: number;
  readonly healthCheckNodePort: number;
  readonly externalTrafficPolicy: TrafficPolicy;
  readonly sliceVersion: number;
  readonly specVersion: number;
  readonly endpoints: readonly SliceEndpoint[];
  /** Slots (indexes into `endpoints`) usable for traffic under the Cluster policy. */
  readonly cluster: Int32Array;
  /** Node n's usable local slots are localSlots[localOffsets[n] .. localOffsets[n + 1]). */
  readonly localOffsets: Int32Array;
  readonly localSlots: Int32Array;
  /** Ready endpoints per node: what the healthCheckNodePort server reports (terminating ones never count). */
  readonly localReady: Int32Array;
  readonly jumpRules: number;
  readonly chainRules: number;

  constructor(
    readonly service: number,
    spec: Service,
    nodeCount: number,
  ) {
    this.clusterIp = spec.clusterIp;
    this.port = spec.port;
    this.proto = spec.proto;
    this.nodePort = spec.nodePort ?? 0;
    this.loadBalancerIp = spec.loadBalancerIp ?? 0;
    this.healthCheckNodePort = spec.healthCheckNodePort ?? 0;
    this.externalTrafficPolicy = spec.externalTrafficPolicy;
    this.sliceVersion = spec.slice.version;
    this.specVersion = spec.specVersion;
    const endpoints = spec.slice.endpoints;
    this.endpoints = endpoints;

    // Usable endpoints (pkg/proxy/topology.go, ProxyTerminatingEndpoints GA 1.28): the ready ones, or, when none
    // is ready, those still serving while terminating; under Local the same rule applies to the node's own.
    const anyReady = endpoints.some((e) => e.ready);
    const usable = (e: SliceEndpoint, readyExists: boolean) => (readyExists ? e.ready : e.serving && e.terminating);
    const cluster: number[] = [];
    endpoints.forEach((e, slot) => {
      if (usable(e, anyReady)) cluster.push(slot);
    });
    this.cluster = Int32Array.from(cluster);

    this.localReady = new Int32Array(nodeCount);
    const fallback = new Int32Array(nodeCount);
    for (const e of endpoints) {
      if (e.node < 0 || e.node >= nodeCount) continue;
      if (e.ready) this.localReady[e.node]!++;
      else if (e.serving && e.terminating) fallback[e.node]!++;
    }
    this.localOffsets = new Int32Array(nodeCount + 1);
    for (let n = 0; n < nodeCount; n++) {
      const count = this.localReady[n]! > 0 ? this.localReady[n]! : fallback[n]!;
      this.localOffsets[n + 1] = this.localOffsets[n]! + count;
    }
    this.localSlots = new Int32Array(this.localOffsets[nodeCount]!);
    const cursor = this.localOffsets.slice(0, nodeCount);
    endpoints.forEach((e, slot) => {
      if (e.node < 0 || e.node >= nodeCount || !usable(e, this.localReady[e.node]! > 0)) return;
      this.localSlots[cursor[e.node]!++] = slot;
    });

    this.jumpRules = jumpRulesOf(spec);
    // Model choice, after the iptables proxier's output: KUBE-SVC holds a masquerade rule plus one probability
    // jump per usable endpoint, each endpoint's KUBE-SEP a hairpin masquerade and a DNAT; KUBE-EXT adds 2, KUBE-SVL 2.
    const external = this.nodePort !== 0 || this.loadBalancerIp !== 0;
    this.chainRules = 1 + 3 * this.cluster.length + (external ? 2 : 0) + (this.externalTrafficPolicy === 'Local' ? 2 : 0);
  }

  /** Whether these chains still match the Service's current spec and slice. */
  current(spec: Service): boolean {
    return this.sliceVersion === spec.slice.version && this.specVersion === spec.specVersion;
  }
}
