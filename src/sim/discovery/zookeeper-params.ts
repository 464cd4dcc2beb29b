import { MIN_RATE } from '../scenario/formats';
import { z } from '../scenario/zod';

/** The ZooKeeper ensemble that service discovery registers in and reads from (topology.zookeeper sizes it). */
export const zookeeperParams = z.strictObject({
  // Model choice: reads one server answers per second from memory; ZooKeeper's own benchmarks reach tens of thousands.
  // Capacities, not events: up to 10^7 reads and 10^9 packets a second (docs/limits.md#rates).
  readsPerSecond: z.number().min(MIN_RATE).max(10_000_000).default(20_000),
  // Model choice: the packets per second a ZooKeeper host's network interface allows before the hypervisor drops the
  // excess; the talk met such a limit on EC2 without a published number
  // (docs/sources/incidents.md#service-discovery-at-scale).
  ppsAllowance: z.number().min(1).max(1_000_000_000).default(60_000),
  // Model choice: the packet-rate alert on each ZooKeeper host fires above this rate.
  alarmPps: z.number().min(MIN_RATE).max(1_000_000_000).default(40_000),
  // Model choice: round trip between a pod and a ZooKeeper server in the same region.
  // From a microsecond to 10 s (docs/limits.md#times).
  rttMs: z.number().min(0.001).max(10_000).default(0.5),
  // Model choice: sessions of 10 s; ZooKeeper bounds a session to 2–20 ticks (tickTime 2 s by default: 4–40 s).
  sessionTimeoutS: z.number().min(1).max(120).default(10),
  // How a watcher reads a service: getChildren plus one getData per child (synapse,
  // docs/sources/service-discovery.md#zookeeper-reads), or the whole tree in one round trip (the talk's fix).
  read: z.enum(['children-then-data', 'single-roundtrip']).default('children-then-data'),
  // Model choice: a registration written as raw JSON strings (host, port, name, labels, weights and the service's
  // proxy options) takes about 1.8 kB, more than one TCP segment.
  recordBytes: z.number().int().min(1).max(1_000_000).default(1800),
  // `compact`: the same registration serialised in a compact binary form (the talk's encoding fix).
  encoding: z.enum(['raw', 'compact']).default('raw'),
  // Model choice: the compact form of one registration.
  compactRecordBytes: z.number().int().min(1).max(1_000_000).default(120),
  // Model choice: one child's name in a getChildren answer (a host name, address and sequence number).
  nameBytes: z.number().int().min(1).max(1000).default(48),
  // Model choice: in a single-roundtrip read, serving one record costs a tenth of a whole request.
  recordCost: z.number().min(0).max(1).default(0.1),
});
export type ZookeeperParams = z.output<typeof zookeeperParams>;
