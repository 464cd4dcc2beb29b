import { defineFault } from './fault';
import { metallbOf, nodeNamed } from './targets';

export const removeBgpSpeaker = defineFault({
  id: 'remove-bgp-speaker',
  label: 'Stop BGP speaker',
  icon: '↧',
  description: 'Stops the MetalLB speaker on a node: it withdraws its routes and closes its session, the router drops the next hop, and flows that rehash elsewhere are reset.',
  targets: ['node'],
  params: [],
  apply(world, _kind, name, _params, cause) {
    const host = nodeNamed(world, name);
    const metallb = metallbOf(world);
    if (!metallb.runsOn(host)) throw new Error(`target: node "${name}" runs no MetalLB speaker`);
    metallb.stopSpeaker(host, cause);
  },
});
