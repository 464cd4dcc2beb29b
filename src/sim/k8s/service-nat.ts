/** One connection's Service translation, as kube-proxy's DNAT leaves it in the node's connection tracking. */
export interface NatEntry {
  serviceIp: number;
  servicePort: number;
  backendIp: number;
  backendPort: number;
  backendPod: number;
}

const flowKey = (clientIp: number, clientPort: number): number => clientIp * 65536 + clientPort;

/**
 * The translations of connections that clients on this node opened to Service addresses, keyed by the client's
 * address and port. Like conntrack, an entry outlives its connection: a later SYN from the same address and port
 * reuses it. Timeouts and table limits belong to node conntrack, which grows out of this.
 */
export class ServiceNat {
  private readonly entries = new Map<number, NatEntry>();

  get size(): number {
    return this.entries.size;
  }

  get(clientIp: number, clientPort: number): NatEntry | undefined {
    return this.entries.get(flowKey(clientIp, clientPort));
  }

  set(clientIp: number, clientPort: number, entry: NatEntry): void {
    this.entries.set(flowKey(clientIp, clientPort), entry);
  }
}
