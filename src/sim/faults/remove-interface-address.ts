import { defineFault } from './fault';
import { podInterfaceNode } from './targets';

export const removeInterfaceAddress = defineFault({
  id: 'remove-interface-address',
  label: 'Remove address from pod ENI',
  icon: '⊟',
  description:
    'Takes the IPv4 address off the node’s pod-facing secondary interface (eth1): with rp_filter on, even loose, packets arriving there whose way back leaves by another interface are dropped as martians.',
  targets: ['node'],
  params: [],
  apply(world, _kind, name, _params, cause) {
    const host = podInterfaceNode(world, name);
    if (!world.cni.removeInterfaceAddress(host, cause)) throw new Error(`target: eth1 on node "${name}" has no IPv4 address to remove`);
  },
});
