import { defineFault } from './fault';
import { deploymentNamed } from './targets';

export const scaleDeployment = defineFault({
  id: 'scale-deployment',
  label: 'Scale deployment',
  icon: '⇕',
  description: 'Sets a deployment’s replica count, as `kubectl scale` does: its ReplicaSet starts new pods or deletes the surplus, each through the usual start-up or termination.',
  targets: ['deployment'],
  params: [{ name: 'replicas', label: 'Replicas', kind: 'number', default: 3, min: 0, max: 500, integer: true }],
  apply(world, _kind, name, params, cause) {
    world.workloads.scale(deploymentNamed(world, name), params.replicas, cause);
  },
});
