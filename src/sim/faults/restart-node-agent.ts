import { defineFault } from './fault';
import { nodeNamed } from './targets';

export const restartNodeAgent = defineFault({
  id: 'restart-node-agent',
  label: 'Restart calico-node',
  icon: '↻',
  description:
    'Restarts the CNI agent on a node. Its tunnel-address allocator checks tunl0’s address against IPAM and takes a new one when the address has been handed to something else, which clears a tunnel address colliding with a pod.',
  targets: ['node'],
  params: [],
  apply(world, _kind, name, _params, cause) {
    world.cni.restartAgent(nodeNamed(world, name), cause);
  },
});
