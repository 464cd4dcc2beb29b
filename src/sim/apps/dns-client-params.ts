import { MAX_POD_RATE, MIN_RATE } from '../scenario/formats';
import { z } from '../scenario/zod';

/** How often a dns-client pod looks its name up (`params.dnsClient`). */
export const dnsClientParams = z.strictObject({
  // Model choice: a service resolving its dependencies once a second.
  lookupsPerSecond: z.number().min(MIN_RATE).max(MAX_POD_RATE).default(1),
});
export type DnsClientParams = z.output<typeof dnsClientParams>;
