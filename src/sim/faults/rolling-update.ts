import { defineFault } from './fault';

export const rollingUpdate = defineFault({
  id: 'rolling-update',
  label: 'Rolling update',
  icon: '⟳',
  description:
    'Rolls a deployment to a new pod template, as `kubectl rollout restart` does: new pods come up within maxSurge, old ones go within maxUnavailable, each through preStop, SIGTERM and its grace period.',
  targets: ['deployment'],
  params: [],
  apply(world, _kind, name, _params, cause) {
    if (!world.workloads.hasDeployment(name)) throw new Error(`target: no deployment named "${name}"`);
    world.workloads.rollout(name, cause);
  },
});
