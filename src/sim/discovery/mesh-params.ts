import { MAX_POD_RATE, MIN_RATE } from '../scenario/formats';
import { z } from '../scenario/zod';

/** Client pods of the service mesh: which proxy each one runs, and how much it sends. */
export const meshParams = z.strictObject({
  // The share of client pods that run Envoy instead of HAProxy, chosen per pod from a hash of its name at start.
  envoyPercent: z.number().min(0).max(100).default(0),
  // The kill switch: every pod that starts from now on runs HAProxy, whatever the percentage.
  killSwitch: z.boolean().default(false),
  // Model choice: each client pod sends two requests a second to each service it uses.
  requestsPerSecond: z.number().min(MIN_RATE).max(MAX_POD_RATE).default(2),
});
export type MeshSectionParams = z.output<typeof meshParams>;
