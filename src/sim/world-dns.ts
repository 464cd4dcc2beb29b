import { bound } from './core/snapshot';
import type { ExternalDnsParams } from './dns/external-dns-params';
import { seconds } from './core/time';
import { CLUSTER_DOMAIN, serviceDnsName } from './dns/cluster-dns';
import { DnsSystem } from './dns/dns-system';
import { ExternalDns, EXTERNAL_DNS_DEFAULTS, type DesiredRecord } from './dns/external-dns';
import { inZone } from './dns/message';
import { DNS_PORT } from './dns/transport';
import { ExternalHost } from './infra/external-host';
import { Service } from './k8s/service';
import { ipv4 } from './net/ipv4';
import { Proto } from './net/packet';
import type { DnsParams } from './dns/dns-params';
import type { Scenario } from './scenario/schema';
import type { WorldCore } from './world-core';

// Model choice: every workload of a scenario lives in one namespace.
const NAMESPACE = 'default';

type DnsConfig = NonNullable<Scenario['topology']['dns']>;

const RESOLVER_ENTITY = 'external/dns-resolver';
const COREDNS = 'coredns';
const KUBE_DNS = 'kube-dns';
const KUBE_DNS_UPSTREAM = 'kube-dns-upstream';

/** What on the picture stands for each `dns/...` fault target (faults/targets.ts), by entity or `deployment/<name>`. */
export const DNS_TARGET_ENTITIES: Readonly<Record<string, string>> = {
  [RESOLVER_ENTITY]: 'dns/provider',
  [`deployment/${COREDNS}`]: 'dns/cluster',
  [`service/${KUBE_DNS}`]: 'dns/cluster',
  [`service/${KUBE_DNS_UPSTREAM}`]: 'dns/cluster',
};

export const isResolver = (entity: string): boolean => entity === RESOLVER_ENTITY;

/** CoreDNS replicas behind kube-dns (UDP) and kube-dns-upstream (TCP), the cloud resolver, node-local DNS if asked. */
export function setUpDns(world: WorldCore, config: DnsConfig, params: { dns: DnsParams; externalDns: ExternalDnsParams }): { system: DnsSystem; start: () => void } {
  const resolver = new ExternalHost(world.network, RESOLVER_ENTITY, ipv4(config.resolverIp), world.tcp, world.udp);
  world.addExternal(resolver);
  const clusterIp = ipv4(config.clusterIp);
  const zone = new ClusterZone(world);
  const p = params;
  const dns = new DnsSystem(world.ctx, bound(world, world.stacksOf), world.hosts, bound(zone, zone.records), {
    forward: { maxConcurrent: p.dns.maxConcurrent, requestTimeout: seconds(p.dns.upstreamTimeoutS) },
    clusterIp,
    upstreamClusterIp: ipv4(config.upstreamClusterIp),
    nodeLocal: config.nodeLocal,
    resolver,
    records: Object.fromEntries(Object.entries(config.records).map(([name, ips]) => [name, ips.map(ipv4)])),
    recordTtl: config.recordTtl,
    namespace: NAMESPACE,
  });
  world.workloads.addDeployment({ name: COREDNS, replicas: config.replicas, port: DNS_PORT }, bound(dns, dns.clusterDnsApp));
  world.addService(new Service(KUBE_DNS, clusterIp, DNS_PORT, COREDNS, DNS_PORT, { proto: Proto.udp }));
  world.addService(new Service(KUBE_DNS_UPSTREAM, ipv4(config.upstreamClusterIp), DNS_PORT, COREDNS, DNS_PORT));
  const externalDns = config.externalDns ? setUpExternalDns(world, dns, config.externalDns, params.externalDns) : null;
  return { system: dns, start: () => externalDns?.start() };
}

/** external-dns keeps the provider's record for a hostname equal to a deployment's running pods' addresses. */
function setUpExternalDns(world: WorldCore, dns: DnsSystem, config: NonNullable<DnsConfig['externalDns']>, p: ExternalDnsParams): ExternalDns {
  const source = new DeploymentRecords(world, config, p.recordTtlS);
  const controller = new ExternalDns(world.ctx, dns.provider, bound(source, source.desired), {
    ...EXTERNAL_DNS_DEFAULTS,
    interval: seconds(p.intervalS),
    events: p.events,
    removeOnTerminating: p.deregisterOn === 'sigterm',
  });
  source.controller = controller;
  world.workloads.watchSlices(bound(source, source.slicesChanged));
  return controller;
}

/** The cluster's own names: each Service's, and none other in the cluster domain. */
export class ClusterZone {
  constructor(private readonly world: WorldCore) {}

  records(name: string): readonly number[] | null {
    for (const service of this.world.services.values()) if (name === serviceDnsName(service.name, NAMESPACE)) return [service.clusterIp];
    return inZone(name, CLUSTER_DOMAIN) ? null : [];
  }
}

/** What external-dns reads for a deployment: its running (and terminating) ready pods, and when they change. */
export class DeploymentRecords {
  controller: ExternalDns | null = null;

  constructor(
    private readonly world: WorldCore,
    private readonly config: NonNullable<DnsConfig['externalDns']>,
    private readonly ttl: number | undefined,
  ) {}

  desired(): DesiredRecord[] {
    const targets = this.world.workloads.pods
      .filter((p) => p.deployment === this.config.deployment && p.ready && (p.phase === 'running' || p.phase === 'terminating'))
      .map((p) => ({ ip: p.ip, terminating: p.phase === 'terminating' }));
    return [{ name: this.config.hostname, targets, ttl: this.ttl }];
  }

  slicesChanged(service: Service): void {
    if (service.selector === this.config.deployment) this.controller?.notify();
  }
}
