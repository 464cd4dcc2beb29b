import { z } from '../scenario/zod';

/** The HorizontalPodAutoscaler controller (kube-controller-manager flags). */
export const hpaParams = z.strictObject({
  // --horizontal-pod-autoscaler-sync-period 15 s.
  syncPeriodS: z.number().min(1).max(600).default(15),
  // --horizontal-pod-autoscaler-tolerance 0.1.
  tolerance: z.number().min(0).max(1).default(0.1),
  // --horizontal-pod-autoscaler-downscale-stabilization 5 min.
  downscaleStabilizationS: z.number().min(0).max(3600).default(300),
});
export type HpaParams = z.output<typeof hpaParams>;
