import type { Fault } from './fault';
import { nodeNamed } from './targets';

export const drainNode: Fault = {
  id: 'drain-node',
  label: 'Drain node',
  icon: '⏏',
  description:
    'Cordons a node and evicts its pods, as `kubectl drain` does: no new pod lands there, and each pod terminates gracefully while its ReplicaSet replaces it elsewhere.',
  targets: ['node'],
  params: [
    // kubectl drain --grace-period defaults to -1: each pod's own terminationGracePeriodSeconds (kubectl drain docs).
    { name: 'gracePeriodSeconds', label: 'Grace period (−1: the pod’s own)', kind: 'number', default: -1, min: -1, max: 3600, unit: 's' },
  ],
  apply(world, _kind, name, params, cause) {
    const host = nodeNamed(world, name);
    const grace = params.gracePeriodSeconds as number;
    world.workloads.drain(host, grace < 0 ? undefined : grace, cause);
  },
};
