import { MAX_RUN_S } from '../scenario/formats';
import { z } from '../scenario/zod';

/** How external-dns keeps the provider's records (`params.externalDns`). */
export const externalDnsParams = z.strictObject({
  // external-dns --interval 1m (docs/sources/dns.md#external-dns).
  // At least a second: each run lists the provider's records (docs/limits.md#periods).
  intervalS: z.number().min(1).max(MAX_RUN_S).default(60),
  // --events off (docs/sources/dns.md#external-dns).
  events: z.boolean().default(false),
  // When a pod's address leaves the record: when the pod is deleted (as in the first incident) or already at SIGTERM.
  deregisterOn: z.enum(['delete', 'sigterm']).default('delete'),
  // The record's TTL annotation (external-dns.alpha.kubernetes.io/ttl); without one Route 53 records get 300 s
  // (docs/sources/dns.md#external-dns).
  recordTtlS: z.number().int().min(1).max(172_800).optional(),
});
export type ExternalDnsParams = z.output<typeof externalDnsParams>;
