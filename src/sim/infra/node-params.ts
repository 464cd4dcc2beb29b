import { MAX_RUN_S } from '../scenario/formats';
import { z } from '../scenario/zod';

const rpFilter = z.union([z.literal(0), z.literal(1), z.literal(2)], { error: 'must be 0 (off), 1 (strict) or 2 (loose)' });

/** Each node's kernel and pod network settings (`params.node`). */
export const nodeParams = z.strictObject({
  // systemd's sysctl.d/50-default.conf sets rp_filter = 2 (loose) on most distributions
  // (docs/sources/linux-routing-rp-filter.md#distribution-defaults).
  rpFilter: rpFilter.default(2),
  // Model choice: a typical worker; kube-proxy sizes conntrack from the core count
  // (docs/sources/linux-conntrack.md#kube-proxy-settings), and a container's threads spread over the cores under CPU
  // bandwidth control.
  cores: z.number().int().min(1).max(512).default(8),
  // Unset: kube-proxy's max(131072, 32768 × cores) (docs/sources/linux-conntrack.md#kube-proxy-settings).
  // nf_conntrack_max is a C int (docs/limits.md#counts).
  conntrackMax: z.number().int().min(1).max(2_147_483_647).optional(),
  // How pod addresses reach the node: routed per-node blocks (Calico BGP-style), IP-in-IP between nodes over tunl0
  // (Calico IPIP), or a secondary cloud interface (Cilium ENI mode).
  podNetwork: z.enum(['routed', 'ipip', 'eni']).default('routed'),
  // Cilium in ENI mode leaves the pod interface without an IPv4 address of its own
  // (docs/sources/incidents.md#it-wasnt-dns).
  podInterfaceHasIp: z.boolean().default(false),
  // Calico's tunnel-ip-allocator gives tunl0 the first address of the node's block
  // (docs/sources/calico.md#tunnel-address).
  tunnelHasIp: z.boolean().default(true),
  // Model choice: the CNI removes a deleted pod's ip rule as it cleans up the endpoint, at once.
  sourceRuleGcSeconds: z.number().min(0).max(MAX_RUN_S).default(0),
});
export type NodeParams = z.output<typeof nodeParams>;
