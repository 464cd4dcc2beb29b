import { defineFault } from './fault';
import { routerNamed } from './targets';

const KEEP = 'keep';

export const changeEcmpHash = defineFault({
  id: 'change-ecmp-hash',
  label: 'Change ECMP hashing',
  icon: '⋔',
  description:
    'Changes how a router spreads flows over equal-cost next hops (its mode, its hash key, or both), as a firmware upgrade or reconfiguration can: flows move to other nodes, which reset them.',
  targets: ['router'],
  params: [
    { name: 'mode', label: 'Mode', kind: 'choice', default: KEEP, choices: [KEEP, 'modulo', 'hash-threshold', 'resilient'] },
    { name: 'seed', label: 'Hash key', kind: 'number', default: 1, min: 0, max: 4294967295, integer: true },
  ],
  apply(world, _kind, name, params, cause) {
    const { router } = routerNamed(world, name);
    const mode = params.mode === KEEP ? router.ecmpMode : params.mode;
    router.setHashing(mode, params.seed, cause);
  },
});
