/**
 * Every reason a packet (or, for `request` reasons, an application request) can be dropped, with the sentence the UI
 * shows. Ids are stable: reports, expectations and tests use them.
 */
export const DROP_REASONS = {
  no_route: {
    kind: 'packet',
    text: 'Nothing on the way knows where the destination is: the node has no route to it, or no host or element on the network holds the address.',
  },
  no_local_pod: {
    kind: 'packet',
    text: "The packet reached the node that owns the address block, but no running pod holds the destination address any more, so the block's blackhole route swallows it.",
  },
  service_no_endpoints: {
    kind: 'packet',
    text: "The Service has no usable endpoints, so kube-proxy rejects the connection on the client's node.",
  },
  no_local_endpoint: {
    kind: 'packet',
    text: 'The Service uses externalTrafficPolicy: Local and this node runs none of its endpoints, so kube-proxy drops the traffic instead of forwarding it to another node.',
  },
  rp_filter_martian: {
    kind: 'packet',
    text: 'Reverse-path filtering refused the source: the route back to it does not leave by the interface the packet came in on (and an interface without an IPv4 address fails even loose mode), so the kernel drops it as a martian.',
  },
  host_conntrack_full: {
    kind: 'packet',
    text: "The node's connection-tracking table is full, so the kernel drops packets that would start a new flow.",
  },
  hypervisor_conntrack_exceeded: {
    kind: 'packet',
    text: "The cloud instance's tracked-connection allowance is used up, so the hypervisor drops packets of new tracked flows before the node ever sees them.",
  },
  hypervisor_pps_exceeded: {
    kind: 'packet',
    text: 'The cloud instance is over its packets-per-second allowance, so the hypervisor drops the excess.',
  },
  linklocal_exceeded: {
    kind: 'packet',
    text: 'The interface sent more than the 1,024 packets per second allowed to link-local services such as the cloud DNS resolver, so the hypervisor drops the excess.',
  },
  source_dest_check: {
    kind: 'packet',
    text: "The instance tried to send a packet whose source address is not one of its own, and the cloud's source/destination check drops it.",
  },
  no_socket_reset: {
    kind: 'packet',
    text: 'The packet reached a host with no socket for its connection (for instance after a router rehashed the flow to another node), which answers with a TCP reset.',
  },
  udp_no_socket: {
    kind: 'packet',
    text: 'The datagram reached a host where nothing listens on its port, so the kernel discards it.',
  },
  node_down: {
    kind: 'packet',
    text: 'The packet was sent to or from a machine the network no longer reaches, as it has lost power or its top-of-rack switch has failed; a router that still holds the machine as a BGP next hop keeps sending it packets until BGP notices.',
  },
  lb_member_down: {
    kind: 'packet',
    text: 'The load balancer has no pool member it may send a new connection to, so it drops the connection attempt.',
  },
  ttl_expired: {
    kind: 'packet',
    text: 'The packet went round a routing loop until its time-to-live ran out.',
  },
  dns_refused: {
    kind: 'request',
    text: 'The DNS forwarder already had its maximum of concurrent upstream queries in flight, so it answered REFUSED at once.',
  },
} as const satisfies Record<string, { kind: 'packet' | 'request'; text: string }>;

export type DropReason = keyof typeof DROP_REASONS;

export const DROP_REASON_IDS = Object.keys(DROP_REASONS) as DropReason[];

const INDEX = new Map<string, number>(DROP_REASON_IDS.map((reason, i) => [reason, i]));

/** A reason's place in DROP_REASON_IDS, for arrays indexed by reason. */
export function dropReasonIndex(reason: DropReason): number {
  return INDEX.get(reason)!;
}

export function explainDrop(reason: DropReason): string {
  return DROP_REASONS[reason].text;
}
