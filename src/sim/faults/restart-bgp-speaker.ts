import { defineFault } from './fault';
import { metallbOf, nodeNamed } from './targets';

export const restartBgpSpeaker = defineFault({
  id: 'restart-bgp-speaker',
  label: 'Restart BGP speaker',
  icon: '⟳',
  description:
    'Restarts the MetalLB speaker on a node on purpose, as an upgrade of the speaker DaemonSet does: its session is down for a few seconds. Without graceful restart the router withdraws the node’s routes and adds them back, rehashing flows twice; with it, the router keeps them as stale meanwhile.',
  targets: ['node'],
  params: [{ name: 'downSeconds', label: 'Down for', kind: 'number', default: 10, min: 1, max: 600, unit: 's' }],
  apply(world, _kind, name, params, cause) {
    const host = nodeNamed(world, name);
    const metallb = metallbOf(world);
    if (!metallb.runsOn(host)) throw new Error(`target: node "${name}" runs no MetalLB speaker`);
    metallb.restartSpeaker(host, params.downSeconds, cause);
  },
});
