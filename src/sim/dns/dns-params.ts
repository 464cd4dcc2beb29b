import { z } from '../scenario/zod';

/** node-local DNS's forwarding to CoreDNS (`params.dns`). */
export const dnsParams = z.strictObject({
  // node-local DNS's forward max_concurrent; 0 = unset, as the NodeLocal DNSCache manifest ships it
  // (docs/sources/dns.md#nodelocal-dnscache).
  // Up to a million queries in flight (docs/limits.md#counts).
  maxConcurrent: z.number().int().min(0).max(1_000_000).default(0),
  // The forward plugin's per-request deadline, defaultTimeout 5 s
  // (docs/sources/dns.md#request-deadline-and-read-timeout).
  // At least a millisecond (docs/limits.md#times).
  upstreamTimeoutS: z.number().min(0.001).max(60).default(5),
});
export type DnsParams = z.output<typeof dnsParams>;
