import { later, seconds } from '../core/time';
import { defineFault } from './fault';
import { zookeeperNamed } from './targets';

export const partitionZookeeper = defineFault({
  id: 'partition-zookeeper',
  label: 'Partition ZooKeeper',
  icon: '✂',
  description:
    'Cuts every client off from the ZooKeeper ensemble for a while. Sessions not heard from within their timeout expire and take their ephemeral registrations with them; watchers learn of it only when the partition heals.',
  targets: ['zookeeper'],
  params: [{ name: 'durationSeconds', label: 'Duration', kind: 'number', default: 20, min: 1, max: 3600, unit: 's' }],
  apply(world, _kind, name, params, cause) {
    const zk = zookeeperNamed(world, name);
    const duration = params.durationSeconds;
    const now = world.ctx.sched.now;
    zk.partition(later(now, seconds(duration)));
    const timeout = world.params.zookeeper.sessionTimeoutS;
    world.ctx.note('warn', zk.entity, 'zk.partitioned', `unreachable for ${duration} s (sessions time out after ${timeout} s)`, { cause });
    world.ctx.causes.record('zk_partitioned', zk.entity, now, { durationS: duration, sessionTimeoutS: timeout });
  },
});
