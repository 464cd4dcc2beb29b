import { later, seconds } from '../core/time';
import { defineFault } from './fault';
import { IMPAIRMENT_DURATION, zookeeperNamed } from './targets';

export const slowZookeeper = defineFault({
  id: 'slow-zookeeper',
  label: 'Slow ZooKeeper',
  icon: '⇓',
  description:
    "Divides every ZooKeeper server's read capacity for a while, as a slow disk or a noisy neighbour would. Watchers' reads take longer, so clients' backend lists fall further behind.",
  targets: ['zookeeper'],
  params: [IMPAIRMENT_DURATION, { name: 'factor', label: 'Slower ×', kind: 'number', default: 4, min: 1, max: 100 }],
  apply(world, _kind, name, params, cause) {
    const zk = zookeeperNamed(world, name);
    const duration = params.durationSeconds;
    const now = world.ctx.sched.now;
    zk.slowDown(params.factor, later(now, seconds(duration)));
    world.ctx.note('warn', zk.entity, 'zk.slow', `every server reads ${params.factor}× slower for ${duration} s`, { cause });
    world.ctx.causes.record('zk_slowed', zk.entity, now, { factor: params.factor, durationS: duration });
  },
});
