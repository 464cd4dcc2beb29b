import type { FaultParamSpec } from './fault';
import type { GrpcClientSettings } from '../apps/grpc-client';
import type { ClusterDns } from '../dns/cluster-dns';
import type { ServerImpairment } from '../dns/server-impairment';
import type { Host } from '../infra/host';
import type { LoadBalancerHop } from '../infra/load-balancer-hop';
import type { RouterHop } from '../infra/router-hop';
import type { MetalLb } from '../k8s/metallb';
import type { ZooKeeper } from '../discovery/zookeeper';
import { didYouMean } from '../scenario/suggest';
import type { World } from '../world';

/** Finds what a fault's target names in the world, or throws `target: no <kind> named "<name>"`. */
function missing(kind: string, name: string, names: readonly string[]): Error {
  return new Error(`target: no ${kind} named "${name}"${didYouMean(name, names)}`);
}

export function nodeNamed(world: World, name: string): Host {
  const host = world.hosts.find((h) => h.name === name);
  if (!host)
    throw missing(
      'node',
      name,
      world.hosts.map((h) => h.name),
    );
  return host;
}

/** The machines standing in a rack (topology.nodes[].rack). */
export function hostsInRack(world: World, name: string): Host[] {
  const hosts = world.hosts.filter((h) => h.rack === name);
  if (hosts.length === 0) throw missing('rack', name, [...new Set(world.hosts.flatMap((h) => (h.rack === null ? [] : [h.rack])))]);
  return hosts;
}

export function deploymentNamed(world: World, name: string): string {
  if (!world.workloads.hasDeployment(name)) throw missing('deployment', name, world.workloads.deploymentNames());
  return name;
}

export function routerNamed(world: World, name: string): RouterHop {
  const router = world.edge.routers.get(name);
  if (!router) throw missing('router', name, [...world.edge.routers.keys()]);
  return router;
}

/** `dns/cluster` is CoreDNS (the upstream of node-local DNS), `dns/provider` the cloud resolver (everyone's upstream). */
export function dnsServerNamed(world: World, name: string): ServerImpairment {
  const dns = world.dns;
  if (!dns) throw new Error(`target: the scenario has no DNS (topology.dns), so there is no dns named "${name}"`);
  const servers = new Map<string, ClusterDns['impairment']>([
    ['cluster', dns.cluster.impairment],
    ['provider', dns.providerImpairment],
  ]);
  const server = servers.get(name);
  if (!server) throw missing('dns', name, [...servers.keys()]);
  return server;
}

export function metallbOf(world: World): MetalLb {
  const metallb = world.edge.metallb;
  if (!metallb) throw new Error('target: the scenario runs no MetalLB (topology.bgp), so there is no speaker to change');
  return metallb;
}

/** A node whose pod network gives it a pod-facing secondary interface (ENI mode). */
export function podInterfaceNode(world: World, name: string): Host {
  const host = nodeNamed(world, name);
  if (!world.cni.podInterface(host)) {
    const mode = world.params.node.podNetwork;
    throw new Error(`target: node "${name}" has no pod-facing secondary interface (params.node.podNetwork is ${mode}, not eni)`);
  }
  return host;
}

/** The ZooKeeper ensemble of service discovery; its one name is `ensemble`. */
export function zookeeperNamed(world: World, name: string): ZooKeeper {
  const zk = world.mesh?.zk;
  if (!zk) throw new Error('target: the scenario has no ZooKeeper (topology.zookeeper)');
  if (name !== 'ensemble') throw missing('zookeeper', name, ['ensemble']);
  return zk;
}

/** How long a DNS impairment lasts. */
export const IMPAIRMENT_DURATION = { name: 'durationSeconds', label: 'Duration', kind: 'number', default: 30, min: 1, max: 3600, unit: 's' } as const satisfies FaultParamSpec;

/** A new client configuration in the pod template, rolled out as a config change is: running channels keep theirs. */
export function rollOutClientSettings(world: World, name: string, change: Partial<GrpcClientSettings>, cause: string): void {
  deploymentNamed(world, name);
  if (!world.grpcClientSettings(name)) throw new Error(`target: deployment "${name}" runs no gRPC client`);
  world.setGrpcClientSettings(name, change);
  const what = Object.entries(change)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  world.ctx.note('info', `deployment/${name}`, 'grpc.client.settings.changed', `pod template now sets ${what}`, { cause });
  world.workloads.rollout(name, cause);
}

export function loadBalancerNamed(world: World, name: string): LoadBalancerHop {
  const lb = world.edge.loadBalancers.get(name);
  if (!lb) throw missing('lb', name, [...world.edge.loadBalancers.keys()]);
  return lb;
}
