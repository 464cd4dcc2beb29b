import { seconds } from '../core/time';
import { formatIpv4 } from '../net/ipv4';
import { didYouMean } from '../scenario/suggest';
import { defineFault } from './fault';

export const loadSpike = defineFault({
  id: 'load-spike',
  label: 'Load spike',
  icon: '⇈',
  description:
    'Multiplies the request rate of clients on the internet for a while: every client sending to the same address as this one, or this client alone. Their connections stay as they are; each carries more requests.',
  targets: ['external'],
  params: [
    { name: 'factor', label: 'Rate ×', kind: 'number', default: 3, min: 0.1, max: 20 },
    { name: 'durationSeconds', label: 'Duration', kind: 'number', default: 90, min: 1, max: 3600, unit: 's' },
    { name: 'clients', label: 'Clients', kind: 'choice', default: 'same-address', choices: ['same-address', 'this'] },
  ],
  apply(world, _kind, name, params, cause) {
    const clients = world.edge.externalClients;
    const picked = clients.get(name);
    if (!picked) throw new Error(`target: no HTTP client on the internet named "${name}"${didYouMean(name, [...clients.keys()])}`);
    const factor = params.factor;
    const duration = params.durationSeconds;
    const chosen = params.clients === 'this' ? [picked] : [...clients.values()].filter((c) => c.targetIp === picked.targetIp);
    for (const c of chosen) c.client.setRate(factor, seconds(duration));
    const rate = chosen.reduce((sum, c) => sum + c.client.rate, 0);
    const who = params.clients === 'this' ? picked.entity : `${chosen.length} clients of ${formatIpv4(picked.targetIp)}`;
    const now = world.ctx.sched.now;
    world.ctx.note('warn', picked.entity, 'load.spike', `${who} send ×${factor} for ${duration} s: ${Math.round(rate)} requests/s in all`, { cause });
    world.ctx.causes.record('load_spike', picked.entity, now, { factor, clients: chosen.length, rate, until: now + seconds(duration) });
  },
});
