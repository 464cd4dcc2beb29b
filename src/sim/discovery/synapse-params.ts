import { z } from '../scenario/zod';

/**
 * synapse, the SmartStack watcher that turns ZooKeeper's view of a service into HAProxy configuration
 * (docs/sources/service-discovery.md#synapse).
 */
export const synapseParams = z.strictObject({
  // restart_interval 2 s: HAProxy reloads at least this far apart (docs/sources/service-discovery.md#synapse).
  restartIntervalS: z.number().min(0).max(600).default(2),
  // Model choice: 0, a watcher re-reads as soon as its watch fires; the talk's fix adds a random delay up to this.
  readJitterMs: z.number().min(0).max(600_000).default(0),
  // Model choice: 0, no self-throttling; the talk's fix lets a watcher start a read at most this often.
  minReadIntervalMs: z.number().min(0).max(600_000).default(0),
});
export type SynapseParams = z.output<typeof synapseParams>;
