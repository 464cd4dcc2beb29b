import { z } from '../scenario/zod';

/** The wire between hops (`params.network`). */
export const networkParams = z.strictObject({
  // One-way latency of one hop (veth or wire); a same-rack hop in a data centre is tens of microseconds.
  // Up to a second a hop (docs/limits.md#times).
  hopLatencyUs: z.number().int().min(0).max(1_000_000).default(50),
});
export type NetworkParams = z.output<typeof networkParams>;
