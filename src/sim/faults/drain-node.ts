import type { FaultParamDescriptor } from '../api';
import type { Host } from '../infra/host';
import type { World } from '../world';
import type { Fault, FaultParams } from './fault';
import { nodeNamed } from './targets';

// kubectl drain --grace-period defaults to -1: each pod's own terminationGracePeriodSeconds (kubectl drain docs).
export const DRAIN_GRACE: FaultParamDescriptor = { name: 'gracePeriodSeconds', label: 'Grace period (−1: the pod’s own)', kind: 'number', default: -1, min: -1, max: 3600, unit: 's' };

export const drainNode: Fault = {
  id: 'drain-node',
  label: 'Drain node',
  icon: '⏏',
  description:
    'Cordons a node and evicts its pods, as `kubectl drain` does: no new pod lands there, and each pod terminates gracefully while its ReplicaSet replaces it elsewhere.',
  targets: ['node'],
  params: [DRAIN_GRACE],
  apply(world, _kind, name, params, cause) {
    drain(world, nodeNamed(world, name), params, cause);
  },
};

/** Cordons the host and evicts its pods with the grace period the params give (−1: each pod's own). */
export function drain(world: World, host: Host, params: FaultParams, cause: string): void {
  const grace = params.gracePeriodSeconds as number;
  world.workloads.drain(host, grace < 0 ? undefined : grace, cause);
}
