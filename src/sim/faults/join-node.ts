import { defineFault } from './fault';
import { nodeNamed } from './targets';

export const joinNode = defineFault({
  id: 'join-node',
  label: 'Join node',
  icon: '⊕',
  description:
    'Registers a new or removed node with the cluster (or uncordons a drained one): it takes pods, starts its MetalLB speaker, and joins F5 pools of node members at the next node poll, in unknown health until the monitor has probed it.',
  targets: ['node'],
  params: [],
  apply(world, _kind, name, _params, cause) {
    const host = nodeNamed(world, name);
    if (host.inCluster) {
      if (host.schedulable) throw new Error(`target: node "${name}" is already in the cluster and schedulable`);
      world.workloads.uncordon(host, cause);
      return;
    }
    host.inCluster = true;
    world.ctx.note('info', host.entity, 'node.joined', 'registered with the cluster', { cause });
    world.ctx.causes.record('node_joined', host.entity, world.ctx.sched.now, { pods: host.pods.size });
    world.workloads.uncordon(host, cause);
    world.edge.metallb?.startSpeaker(host, cause);
    world.edge.nodesChanged();
    world.ctx.touchTopology();
  },
});
