import { defineFault } from './fault';
import { metallbOf, nodeNamed } from './targets';

export const hangBgpSpeaker = defineFault({
  id: 'hang-bgp-speaker',
  label: 'Hang BGP speaker',
  icon: '⏸',
  description:
    'The MetalLB speaker on a node hangs: it sends no more KEEPALIVEs and neither announces nor withdraws, while the node forwards as before. The router keeps the node’s routes until its hold timer fires, even if the node stops serving meanwhile.',
  targets: ['node'],
  params: [],
  apply(world, _kind, name, _params, cause) {
    const host = nodeNamed(world, name);
    const metallb = metallbOf(world);
    if (!metallb.talksOn(host)) throw new Error(`target: node "${name}" runs no MetalLB speaker that still talks`);
    metallb.hangSpeaker(host, cause);
  },
});
