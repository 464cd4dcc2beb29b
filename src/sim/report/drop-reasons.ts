/** Every reason a packet can be dropped, with the sentence the UI shows. Ids are stable: reports and tests use them. */
export const DROP_REASONS = {
  no_route: 'No host in the network holds the destination address, so the fabric has nowhere to deliver the packet.',
  no_local_pod:
    'The packet reached the node that owns the address block, but no running pod holds the destination address any more.',
  service_no_endpoints:
    'The Service has no ready endpoints, so kube-proxy rejects the connection on the client\'s node.',
} as const;

export type DropReason = keyof typeof DROP_REASONS;

export const DROP_REASON_IDS = Object.keys(DROP_REASONS) as DropReason[];
