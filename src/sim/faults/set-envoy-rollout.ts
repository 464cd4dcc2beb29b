import { defineFault } from './fault';
import { deploymentNamed } from './targets';

export const setEnvoyRollout = defineFault({
  id: 'set-envoy-rollout',
  label: 'Envoy rollout',
  icon: '⇄',
  description:
    "Sets the share of a mesh client deployment's pods that run Envoy instead of HAProxy. Each pod's init container decides from a hash of the pod's name, so the same pods switch in every run; pods decide as they start, so `restart` rolls the deployment to apply it now. The kill switch sends every new pod back to HAProxy.",
  targets: ['deployment'],
  params: [
    { name: 'percent', label: 'Envoy share', kind: 'number', default: 50, min: 0, max: 100, unit: '%' },
    { name: 'killSwitch', label: 'Kill switch', kind: 'boolean', default: false },
    { name: 'restart', label: 'Restart pods', kind: 'boolean', default: true },
  ],
  apply(world, _kind, name, params, cause) {
    deploymentNamed(world, name);
    const clients = world.mesh?.clients;
    if (!clients || !world.mesh!.runsClients(name)) throw new Error(`target: deployment "${name}" runs no mesh client`);
    const percent = params.percent;
    const killSwitch = params.killSwitch;
    clients.setRollout(name, { envoyPercent: percent, killSwitch });
    const what = killSwitch ? 'kill switch on: new pods run HAProxy' : `new pods run Envoy when their name hashes below ${percent} %`;
    world.ctx.note('info', `deployment/${name}`, 'mesh.rollout', what, { cause });
    if (params.restart) world.workloads.rollout(name, cause);
  },
});
