import { defineFault } from './fault';
import { loadBalancerNamed } from './targets';

export const recreatePool = defineFault({
  id: 'recreate-pool',
  label: 'Recreate LB pools',
  icon: '♻',
  description:
    'Deletes and re-creates every pool of a load balancer, as redeploying its configuration does: each member comes back new, in unknown health until the monitor probes it, and unknown members may take traffic.',
  targets: ['lb'],
  params: [],
  apply(world, _kind, name, _params, cause) {
    const hop = loadBalancerNamed(world, name);
    world.ctx.note('warn', hop.entity, 'lb.pools.recreated', 'every pool deleted and created again', { cause });
    world.edge.recreatePools(name);
  },
});
