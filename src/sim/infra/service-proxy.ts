/** Codes `choose` returns instead of an endpoint. */
export const NO_ENDPOINTS = -1;
export const NO_LOCAL_ENDPOINT = -2;

/**
 * What the node datapath asks of kube-proxy's programmed rules, per packet and without allocating: whether a
 * destination is a Service address on this node, which endpoint a new connection gets, and whether it is masqueraded.
 */
export interface ServiceProxy {
  /** A handle for the Service behind `dstIp:dstPort` as this node's rules see it, or -1. */
  lookup(node: number, dstIp: number, dstPort: number, proto: number): number;
  /** An endpoint slot for a new connection, NO_ENDPOINTS (REJECT) or NO_LOCAL_ENDPOINT (dropped under Local). */
  choose(node: number, service: number, fromLocalPod: boolean, random: number): number;
  endpointIp(node: number, slot: number): number;
  endpointPort(node: number, slot: number): number;
  endpointPod(node: number, slot: number): number;
  /** Whether the chosen connection is masqueraded to the node's address (external traffic under Cluster). */
  masquerade(node: number, service: number, slot: number, fromLocalPod: boolean): boolean;
}
