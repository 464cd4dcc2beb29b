import type { Fault } from './fault';
import { metallbOf, nodeNamed } from './targets';

export const addBgpSpeaker: Fault = {
  id: 'add-bgp-speaker',
  label: 'Start BGP speaker',
  icon: '↥',
  description:
    'Starts the MetalLB speaker on a node: it peers with the router and announces the LoadBalancer addresses it should, so the router’s ECMP group gains a next hop.',
  targets: ['node'],
  params: [],
  apply(world, _kind, name, _params, cause) {
    const host = nodeNamed(world, name);
    const metallb = metallbOf(world);
    if (metallb.runsOn(host)) throw new Error(`target: node "${name}" already runs a MetalLB speaker`);
    metallb.startSpeaker(host, cause);
  },
};
