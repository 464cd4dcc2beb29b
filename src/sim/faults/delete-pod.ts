import { defineFault } from './fault';

export const deletePod = defineFault({
  id: 'delete-pod',
  label: 'Delete pod',
  icon: '✕',
  description: 'Deletes a pod as `kubectl delete pod` does: SIGTERM, removal from Service endpoints, SIGKILL after the grace period; its ReplicaSet creates a replacement.',
  targets: ['pod'],
  params: [
    // terminationGracePeriodSeconds defaults to 30 (Kubernetes pod lifecycle docs); 0 kills at once, like --force.
    { name: 'gracePeriodSeconds', label: 'Grace period', kind: 'number', default: 30, min: 0, max: 3600, unit: 's' },
  ],
  apply(world, _kind, name, params, cause) {
    const pod = world.workloads.findPod(name);
    if (!pod) throw new Error(`target: no running pod named "${name}"`);
    world.workloads.deletePod(pod, params.gracePeriodSeconds, cause);
  },
});
