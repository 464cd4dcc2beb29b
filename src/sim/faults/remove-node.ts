import { defineFault } from './fault';
import { drain, DRAIN_GRACE } from './drain-node';
import { nodeNamed } from './targets';

export const removeNode = defineFault({
  id: 'remove-node',
  label: 'Remove node',
  icon: '⊖',
  description: 'Drains a node and deletes it from the cluster: its MetalLB speaker withdraws its routes, and F5 pools of node members drop it at the controller’s next node poll.',
  targets: ['node'],
  params: [DRAIN_GRACE],
  apply(world, _kind, name, params, cause) {
    const host = nodeNamed(world, name);
    if (!host.inCluster) throw new Error(`target: node "${name}" is not in the cluster any more`);
    drain(world, host, params.gracePeriodSeconds, cause);
    host.inCluster = false;
    world.ctx.note('warn', host.entity, 'node.removed', 'deleted from the cluster', { cause });
    world.workloads.nodeDeleted(host, `deletion of ${host.entity}`);
    world.edge.metallb?.stopSpeaker(host, cause);
    world.cni.nodeDeleted(host);
    world.edge.nodesChanged();
    world.ctx.touchTopology();
  },
});
