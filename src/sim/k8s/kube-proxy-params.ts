import { MAX_RUN_MS, MAX_RUN_S } from '../scenario/formats';
import { z } from '../scenario/zod';

/** kube-proxy's sync pacing and cost, and the rest of the cluster its rules hold (`params.kubeProxy`). */
export const kubeProxyParams = z.strictObject({
  // kube-proxy minSyncPeriod 1 s (docs/sources/kube-proxy.md#sync-rate-limit).
  minSyncPeriodMs: z.number().min(0).max(MAX_RUN_MS).default(1000),
  // kube-proxy syncPeriod 30 s (docs/sources/kube-proxy.md#sync-rate-limit).
  // At least a second: each sync rewrites rules, so a shorter period is a busy loop (docs/limits.md#periods).
  syncPeriodS: z.number().min(1).max(MAX_RUN_S).default(30),
  // Partial restores (MinimizeIPTablesRestore) are GA and on from Kubernetes 1.28
  // (docs/sources/kube-proxy.md#full-and-partial-restores); `full` is before.
  restore: z.enum(['full', 'partial']).default('partial'),
  // Model choice: 10 µs per rule puts 150k endpoints × 3 rules near the 4–5 s iptables runs of kubernetes#92836
  // (docs/sources/kube-proxy.md#full-and-partial-restores).
  // Up to a millisecond a rule (docs/limits.md#counts).
  syncCostPerRuleUs: z.number().min(0).max(1000).default(10),
  // The rest of a large cluster, not simulated as pods: Services and endpoints whose rules every node still holds. A
  // full restore rewrites all of them; a partial one only their jump rules.
  otherServices: z.number().int().min(0).max(100_000).default(0),
  otherEndpoints: z.number().int().min(0).max(1_000_000).default(0),
});
export type KubeProxyParams = z.output<typeof kubeProxyParams>;
