import { MAX_RUN_MS } from '../scenario/formats';
import { z } from '../scenario/zod';

/**
 * nerve, the SmartStack agent that health-checks a service and registers it (docs/sources/service-discovery.md#nerve).
 */
export const nerveParams = z.strictObject({
  // check_interval 0.5 s, rise 1, fall 1 (docs/sources/service-discovery.md#nerve); a stopped app refuses the check at
  // once, so nerve's 100 ms check timeout never comes into play.
  // At least 10 ms: nerve checks each server pod (docs/limits.md#periods).
  checkIntervalMs: z.number().min(10).max(MAX_RUN_MS).default(500),
  rise: z.number().int().min(1).max(100).default(1),
  fall: z.number().int().min(1).max(100).default(1),
  // Model choice: the Kubernetes mini announcer polls the API server for its pod's container statuses every second.
  announcerPollMs: z.number().min(10).max(MAX_RUN_MS).default(1000),
});
export type NerveParams = z.output<typeof nerveParams>;
