import type { Host } from '../infra/host';
import type { World } from '../world';
import { defineFault, type FaultParamSpec } from './fault';
import { nodeNamed } from './targets';

// kubectl drain --grace-period defaults to -1: each pod's own terminationGracePeriodSeconds (kubectl drain docs).
export const DRAIN_GRACE = {
  name: 'gracePeriodSeconds',
  label: 'Grace period (−1: the pod’s own)',
  kind: 'number',
  default: -1,
  min: -1,
  max: 3600,
  unit: 's',
} as const satisfies FaultParamSpec;

export const drainNode = defineFault({
  id: 'drain-node',
  label: 'Drain node',
  icon: '⏏',
  description: 'Cordons a node and evicts its pods, as `kubectl drain` does: no new pod lands there, and each pod terminates gracefully while its ReplicaSet replaces it elsewhere.',
  targets: ['node'],
  params: [DRAIN_GRACE],
  apply(world, _kind, name, params, cause) {
    drain(world, nodeNamed(world, name), params.gracePeriodSeconds, cause);
  },
});

/** Cordons the host and evicts its pods with grace period `grace` (−1: each pod's own). */
export function drain(world: World, host: Host, grace: number, cause: string): void {
  world.workloads.drain(host, grace < 0 ? undefined : grace, cause);
}
