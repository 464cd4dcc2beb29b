import { MAX_POD_RATE, MAX_RUN_MS, MIN_RATE } from '../scenario/formats';
import { z } from '../scenario/zod';

/** Every HTTP client's load, connections, timeouts and reconnect delay (`params.client`). */
export const clientParams = z.strictObject({
  // Model choice: a steady, light load per client pod.
  requestsPerSecond: z.number().min(MIN_RATE).max(MAX_POD_RATE).default(10),
  // `pool`: connectionsPerPod keep-alive connections, each redialled when it fails; a request finding none ready fails.
  // `per-request`: every request dials its own connection and closes it when answered, with no cap on dials in
  // progress, as Go's net/http Transport with DisableKeepAlives and MaxConnsPerHost 0, its default
  // (docs/sources/http-clients.md#connections-per-request).
  connectionMode: z.enum(['pool', 'per-request']).default('pool'),
  // Model choice: one keep-alive connection per pod, like a simple HTTP client with pooling.
  connectionsPerPod: z.number().int().min(1).max(64).default(1),
  // Model choice: delay before reconnecting after a connection fails or is reset.
  reconnectMs: z.number().min(0).max(MAX_RUN_MS).default(1000),
  // Close a connection after this many answered requests and dial a new one at once; 0 keeps it for good. Servers cap
  // keep-alive the same way (nginx keepalive_requests, default 1000), which is what makes new connections all day.
  // At most a million, far above what any server allows (docs/limits.md#counts).
  requestsPerConnection: z.number().int().min(0).max(1_000_000).default(0),
  // Model choice: application connect timeout, shorter than the kernel's SYN retry budget.
  connectTimeoutMs: z.number().min(1).max(MAX_RUN_MS).default(5000),
  // Model choice: per-request deadline.
  requestTimeoutMs: z.number().min(1).max(MAX_RUN_MS).default(2000),
});
export type ClientParams = z.output<typeof clientParams>;
