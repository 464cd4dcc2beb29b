import { z } from '../scenario/zod';

/** Calico's IPAM, for the routed and IPIP pod networks. */
export const calicoParams = z.strictObject({
  // `node-cidr`: a node hands out its podCidr like the host-local plugin; `blocks`: Calico's block affinity, blocks of
  // blockSize claimed from the node's pool on demand, lowest free address first
  // (docs/sources/calico.md#ip-pools-and-blocks).
  ipam: z.enum(['node-cidr', 'blocks']).default('node-cidr'),
  // IPPool blockSize defaults to 26: 64 addresses a block (docs/sources/calico.md#ip-pools-and-blocks).
  blockSize: z.number().int().min(20).max(32).default(26),
  // kube-controllers' IPAM garbage collection confirms a leak after a 15 min grace (calico#5044,
  // docs/sources/calico.md#leak-garbage-collection).
  leakGraceS: z.number().min(0).max(86_400).default(900),
});
export type CalicoParams = z.output<typeof calicoParams>;
