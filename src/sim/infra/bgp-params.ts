import { MAX_RUN_MS } from '../scenario/formats';
import { z } from '../scenario/zod';

/** How fast a router takes in a BGP change (`params.bgp`). */
export const bgpParams = z.strictObject({
  // Model choice: UPDATE processing plus FIB programming on a ToR, a few hundred milliseconds.
  convergenceMs: z.number().min(0).max(MAX_RUN_MS).default(500),
});
export type BgpParams = z.output<typeof bgpParams>;
