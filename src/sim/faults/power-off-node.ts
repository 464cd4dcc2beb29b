import { defineFault } from './fault';
import { nodeNamed } from './targets';

export const powerOffNode = defineFault({
  id: 'power-off-node',
  label: 'Power off node',
  icon: '⏻',
  description:
    'Cuts a node’s power: it stops receiving and sending at once, and its MetalLB speaker withdraws nothing. The router keeps the node as a next hop until its BGP hold timer fires (or BFD notices), and black-holes the node’s share of the flows meanwhile.',
  targets: ['node'],
  params: [],
  apply(world, _kind, name, _params, cause) {
    const host = nodeNamed(world, name);
    if (!host.powered) throw new Error(`target: node "${name}" is already powered off`);
    host.powered = false;
    const now = world.ctx.sched.now;
    world.ctx.note('warn', host.entity, 'node.powered_off', 'lost power: it receives and sends nothing, and withdraws nothing', { cause });
    world.ctx.causes.record('node_powered_off', host.entity, now, { at: now });
    world.edge.metallb?.nodeDark(host);
    world.ctx.touchTopology();
  },
});
