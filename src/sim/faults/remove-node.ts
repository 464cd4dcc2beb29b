import type { Fault } from './fault';
import { nodeNamed } from './targets';

export const removeNode: Fault = {
  id: 'remove-node',
  label: 'Remove node',
  icon: '⊖',
  description:
    'Drains a node and deletes it from the cluster: its MetalLB speaker withdraws its routes, and F5 pools of node members drop it at the controller’s next node poll.',
  targets: ['node'],
  params: [
    { name: 'gracePeriodSeconds', label: 'Grace period (−1: the pod’s own)', kind: 'number', default: -1, min: -1, max: 3600, unit: 's' },
  ],
  apply(world, _kind, name, params, cause) {
    const host = nodeNamed(world, name);
    if (!host.inCluster) throw new Error(`target: node "${name}" is not in the cluster any more`);
    const grace = params.gracePeriodSeconds as number;
    world.workloads.drain(host, grace < 0 ? undefined : grace, cause);
    host.inCluster = false;
    world.ctx.note('warn', host.entity, 'node.removed', 'deleted from the cluster', { cause });
    world.edge.metallb?.stopSpeaker(host, cause);
    world.edge.nodesChanged();
    world.ctx.touchTopology();
  },
};
