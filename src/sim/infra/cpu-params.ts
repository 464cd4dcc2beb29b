import { TICK_MS } from '../scenario/formats';
import { z } from '../scenario/zod';

/** CPU bandwidth control for containers with a CPU limit (docs/sources/linux-cfs.md). */
export const cpuParams = z.strictObject({
  // cpu.cfs_period_us defaults to 100 ms, and kubelet's --cpu-cfs-quota-period with it
  // (docs/sources/linux-cfs.md#bandwidth-control, #kubernetes-cpu-limits).
  periodMs: z.number().min(1).max(1000).default(100),
  // sched_cfs_bandwidth_slice_us defaults to 5 ms (docs/sources/linux-cfs.md#bandwidth-control).
  // At least the engine's tick (docs/limits.md#times).
  sliceMs: z.number().min(TICK_MS).max(1000).default(5),
  // Kernels from 5.4 carry a CPU's unused runtime over; 4.18 to 5.3 expire it each period
  // (docs/sources/linux-cfs.md#slice-expiry-bug).
  kernel: z.enum(['expiring', 'fixed']).default('fixed'),
});
export type CpuParams = z.output<typeof cpuParams>;
