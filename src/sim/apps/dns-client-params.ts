import { z } from '../scenario/zod';

/** How often a dns-client pod looks its name up (`params.dnsClient`). */
export const dnsClientParams = z.strictObject({
  // Model choice: a service resolving its dependencies once a second.
  lookupsPerSecond: z.number().gt(0).default(1),
});
export type DnsClientParams = z.output<typeof dnsClientParams>;
