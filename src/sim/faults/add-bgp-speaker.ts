import { defineFault } from './fault';
import { metallbOf, nodeNamed, routerNamed } from './targets';

export const addBgpSpeaker = defineFault({
  id: 'add-bgp-speaker',
  label: 'Start BGP speaker',
  icon: '↥',
  description:
    'Starts the MetalLB speaker on a node (on a router: on the first node without one): it peers with the router and announces the LoadBalancer addresses it should, so the router’s ECMP group gains a next hop.',
  targets: ['node', 'router'],
  params: [],
  apply(world, kind, name, _params, cause) {
    const metallb = metallbOf(world);
    if (kind === 'router') {
      routerNamed(world, name);
      const host = world.hosts.find((h) => h.inCluster && !metallb.runsOn(h));
      if (!host) throw new Error(`target: every node in the cluster already runs a MetalLB speaker peering with router "${name}"`);
      metallb.startSpeaker(host, cause);
      return;
    }
    const host = nodeNamed(world, name);
    if (metallb.runsOn(host)) throw new Error(`target: node "${name}" already runs a MetalLB speaker`);
    metallb.startSpeaker(host, cause);
  },
});
