import { MAX_POD_RATE, MIN_RATE } from '../scenario/formats';
import { z } from '../scenario/zod';

/** The service mesh's pods: which proxy each client runs and how much it sends, and what a backend can serve. */
export const meshParams = z.strictObject({
  // The share of client pods that run Envoy instead of HAProxy, chosen per pod from a hash of its name at start.
  envoyPercent: z.number().min(0).max(100).default(0),
  // The kill switch: every pod that starts from now on runs HAProxy, whatever the percentage.
  killSwitch: z.boolean().default(false),
  // Model choice: each client pod sends two requests a second to each service it uses.
  requestsPerSecond: z.number().min(MIN_RATE).max(MAX_POD_RATE).default(2),
  // Model choice: each backend serves with 4 workers, one request at a time each; the rest wait in its queue
  // (docs/sources/service-discovery.md#backend-queue). Up to 10,000 workers (docs/limits.md#counts).
  backendWorkers: z.number().int().min(1).max(10_000).default(4),
  // Model choice: a health check takes a backend worker 1 ms, as a light handler answers a check request.
  checkCostMs: z.number().min(0).max(1000).default(1),
});
export type MeshSectionParams = z.output<typeof meshParams>;
