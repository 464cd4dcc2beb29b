import { MAX_RUN_MS, MAX_RUN_S } from '../scenario/formats';
import { z } from '../scenario/zod';

/**
 * Envoy in client pods: membership over xDS, no reloads, outlier detection
 * (docs/sources/service-discovery.md#envoy-eds).
 */
export const envoyParams = z.strictObject({
  // Model choice: the cluster template of the migration sets a 250 ms connect timeout; Envoy's own default is 5 s.
  connectTimeoutMs: z.number().min(1).max(MAX_RUN_MS).default(250),
  // Model choice: the route retries connect failures twice, on other hosts (retry_on connect-failure, previous_hosts).
  retries: z.number().int().min(0).max(10).default(2),
  // Outlier detection: consecutive_5xx 5 (a connect failure counts as a 5xx), base_ejection_time 30 s,
  // max_ejection_percent 10 (Envoy docs).
  consecutiveFailures: z.number().int().min(1).max(1000).default(5),
  baseEjectionS: z.number().min(0).max(MAX_RUN_S).default(30),
  maxEjectionPercent: z.number().min(0).max(100).default(10),
  // Model choice: Envoy's endpoint table takes 2 kB per host, so a large cluster costs megabytes, not a process each.
  // Memory figures go up to a million of their unit (docs/limits.md#counts).
  memoryBaseMb: z.number().min(0).max(1_000_000).default(30),
  memoryPerHostKb: z.number().min(0).max(1_000_000).default(2),
});
export type EnvoyParams = z.output<typeof envoyParams>;
