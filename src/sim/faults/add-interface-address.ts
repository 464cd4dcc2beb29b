import { defineFault } from './fault';
import { podInterfaceNode } from './targets';

export const addInterfaceAddress = defineFault({
  id: 'add-interface-address',
  label: 'Add address to pod ENI',
  icon: '⊞',
  description: 'Gives the node’s pod-facing secondary interface (eth1) an IPv4 address of its own, so reverse-path checks on it no longer fall through to the last resort.',
  targets: ['node'],
  params: [],
  apply(world, _kind, name, _params, cause) {
    const host = podInterfaceNode(world, name);
    if (!world.cni.addInterfaceAddress(host, cause)) throw new Error(`target: eth1 on node "${name}" already has an IPv4 address`);
  },
});
