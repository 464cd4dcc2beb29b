import { defineFault } from './fault';
import { rollOutClientSettings } from './targets';

export const setLbPolicy = defineFault({
  id: 'set-lb-policy',
  label: 'Set gRPC LB policy',
  icon: '⚖',
  description: 'Changes a gRPC client deployment’s load-balancing policy (pick_first or round_robin) and rolls it out; each new pod’s channels spread calls the new way.',
  targets: ['deployment'],
  params: [{ name: 'lbPolicy', label: 'Policy', kind: 'choice', default: 'round_robin', choices: ['pick_first', 'round_robin'] }],
  apply(world, _kind, name, params, cause) {
    rollOutClientSettings(world, name, { lbPolicy: params.lbPolicy }, cause);
  },
});
