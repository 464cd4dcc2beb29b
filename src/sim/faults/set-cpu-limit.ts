import { defineFault } from './fault';
import { deploymentNamed } from './targets';

/** Model choice: half a core, the limit the palette offers and the sweep's cpu-limit-expiring-kernel setting adds. */
export const TRIED_CPU_LIMIT_CORES = 0.5;

export const setCpuLimit = defineFault({
  id: 'set-cpu-limit',
  label: 'Set CPU limit',
  icon: '◔',
  description: 'Sets a deployment’s limits.cpu and resizes its running pods in place: the quota becomes the limit × the CFS period, and threads that use it up wait. 0 lifts the limit.',
  targets: ['deployment'],
  params: [{ name: 'cores', label: 'Cores', kind: 'number', default: TRIED_CPU_LIMIT_CORES, min: 0, max: 64, unit: 'cores' }],
  apply(world, _kind, name, params, cause) {
    const deployment = deploymentNamed(world, name);
    const cores = params.cores;
    world.setCpuLimit(deployment, cores);
    world.ctx.note('warn', `deployment/${deployment}`, 'cpu.limit.changed', cores > 0 ? `limits.cpu ${cores}` : 'CPU limit lifted', { cause });
  },
});
