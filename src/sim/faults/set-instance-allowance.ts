import { defineFault } from './fault';
import { nodeNamed } from './targets';

export const setInstanceAllowance = defineFault({
  id: 'set-instance-allowance',
  label: 'Set conntrack allowance',
  icon: '⛁',
  description:
    'Changes how many connections a cloud instance’s hypervisor may track, as moving to another instance size does; flows already tracked stay, new ones are dropped while the table is at the limit.',
  targets: ['node'],
  params: [
    // The default allowance of params.instance.conntrackAllowance (a model figure; AWS publishes none,
    // docs/sources/cloud-hypervisor.md#tracked-connection-allowance).
    { name: 'conntrackAllowance', label: 'Tracked connections', kind: 'number', default: 75_000, min: 1, max: 10_000_000, integer: true },
  ],
  apply(world, _kind, name, params, cause) {
    const host = nodeNamed(world, name);
    if (!host.hypervisor) throw new Error(`target: node "${name}" is bare-metal, with no hypervisor allowance to change`);
    const before = host.hypervisor.table.max;
    host.hypervisor.setConntrackAllowance(params.conntrackAllowance);
    const message = `tracked-connection allowance ${before} → ${params.conntrackAllowance}`;
    world.ctx.note('warn', host.hypervisor.entity, 'hypervisor.allowance.changed', message, { cause });
  },
});
