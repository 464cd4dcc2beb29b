import type { Fault } from './fault';
import { nodeNamed } from './targets';

export const rejoinNode: Fault = {
  id: 'rejoin-node',
  label: 'Rejoin node',
  icon: '⊕',
  description:
    'Brings a drained or removed node back: it takes pods again; a removed one also gets its MetalLB speaker back and rejoins F5 pools of node members at the next node poll, in unknown health until the monitor has probed it.',
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
    world.ctx.note('info', host.entity, 'node.joined', 'registered with the cluster again', { cause });
    world.workloads.uncordon(host, cause);
    world.edge.metallb?.startSpeaker(host, cause);
    world.edge.nodesChanged();
    world.ctx.touchTopology();
  },
};
