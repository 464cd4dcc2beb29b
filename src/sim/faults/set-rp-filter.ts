import type { RpFilterMode } from '../net/rp-filter';
import { defineFault } from './fault';
import { nodeNamed } from './targets';

export const setRpFilter = defineFault({
  id: 'set-rp-filter',
  label: 'Set rp_filter',
  icon: '⊘',
  description:
    'Sets a node’s net.ipv4.conf.all.rp_filter (0 off, 1 strict, 2 loose); the kernel applies the larger of it and each interface’s own value, so lowering it alone may change nothing.',
  targets: ['node'],
  params: [
    { name: 'mode', label: 'Mode (0 off, 1 strict, 2 loose)', kind: 'number', default: 1, min: 0, max: 2, integer: true },
    // `sysctl -w net.ipv4.conf.*.rp_filter=N` sets every interface too.
    { name: 'interfaces', label: 'Every interface too', kind: 'boolean', default: false },
  ],
  apply(world, _kind, name, params, cause) {
    const host = nodeNamed(world, name);
    // resolveParams holds it to a whole number from 0 to 2.
    const mode = params.mode as RpFilterMode;
    const before = host.rpFilterAll;
    host.rpFilterAll = mode;
    if (params.interfaces === true) for (const iface of host.ifaces) iface.rpFilter = mode;
    const scope = params.interfaces === true ? 'all and every interface' : 'all';
    world.ctx.note('warn', host.entity, 'node.rp_filter.changed', `rp_filter (${scope}) ${before} → ${mode}`, { cause });
  },
});
