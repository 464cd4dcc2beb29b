import { defineFault } from './fault';
import { deploymentNamed } from './targets';

export const crashLoop = defineFault({
  id: 'crash-loop',
  label: 'Crash loop',
  icon: '☠',
  description:
    'Ships a build that crashes: each container of the deployment exits a while after it starts and the kubelet restarts it after CrashLoopBackOff’s growing delay (10 s doubling to 5 min), so readiness flaps and endpoints come and go.',
  targets: ['deployment'],
  params: [
    { name: 'runSeconds', label: 'Runs for', kind: 'number', default: 5, min: 0.1, max: 3600, unit: 's' },
    { name: 'durationSeconds', label: 'Crashes for', kind: 'number', default: 300, min: 1, max: 3600, unit: 's' },
    { name: 'jitter', label: 'Run-time spread', kind: 'number', default: 0, min: 0, max: 1 },
  ],
  apply(world, _kind, name, params, cause) {
    const deployment = deploymentNamed(world, name);
    world.workloads.crashLoop(deployment, params.runSeconds, params.durationSeconds, cause, params.jitter);
  },
});
