import type { ConnStateId, TopologyView } from './api';
import { ConnState } from './api';
import { HttpClients } from './apps/http-client';
import { HttpServers } from './apps/http-server';
import type { SimContext } from './context';
import { Host } from './infra/host';
import { Network } from './infra/network';
import { cidr, formatCidr, formatIpv4, ipv4 } from './net/ipv4';
import { Tcp, TcpState } from './net/tcp';
import { DROP_REASON_IDS } from './report/drop-reasons';
import type { Scenario } from './scenario/schema';
import { Service, ServiceDirectory } from './k8s/service';
import { Workloads } from './k8s/workloads';

/** Everything a scenario's topology turns into, wired together. */
export class World {
  readonly hosts: Host[];
  readonly services = new Map<string, Service>();
  readonly directory = new ServiceDirectory();
  readonly tcp: Tcp;
  readonly network: Network;
  readonly workloads: Workloads;
  private topologyVersion = 0;

  constructor(
    readonly ctx: SimContext,
    scenario: Scenario,
  ) {
    const { topology } = scenario;
    this.hosts = topology.nodes.map((n, i) => new Host(i, n.name, ipv4(n.ip), cidr(n.podCidr), DROP_REASON_IDS.length));
    this.tcp = new Tcp(ctx);
    this.workloads = new Workloads(ctx, this.hosts, this.tcp);
    this.network = new Network(ctx, this.hosts, this.workloads.pods, this.directory, this.tcp);
    const servers = new HttpServers(ctx, this.tcp);
    const clients = new HttpClients(ctx, this.tcp);

    for (const [name, svc] of Object.entries(topology.services)) {
      const backend = topology.deployments[svc.selector]!;
      const service = new Service(name, ipv4(svc.clusterIp), svc.port, svc.selector, backend.port);
      this.services.set(name, service);
      this.directory.add(service);
      this.workloads.addService(service);
    }
    for (const [name, dep] of Object.entries(topology.deployments)) {
      const spec = { name, replicas: dep.replicas, port: dep.port };
      if (dep.app === 'http-server') this.workloads.addDeployment(spec, (pod) => servers.create(pod, dep.port));
      else {
        const target = this.services.get(dep.target!)!;
        this.workloads.addDeployment(spec, (pod) => clients.create(pod, target));
      }
    }
    this.workloads.reserveNames(topology.nodes.flatMap((n) => n.pods.map((p) => p.name)));
    topology.nodes.forEach((node, i) => {
      for (const pod of node.pods) {
        this.workloads.createPod(pod.deployment, this.hosts[i]!, pod.name, pod.ip === undefined ? undefined : ipv4(pod.ip));
      }
    });
    this.workloads.startSteadyState();
  }

  get version(): number {
    return this.topologyVersion;
  }

  touch(): void {
    this.topologyVersion++;
  }

  topology(): TopologyView {
    return {
      version: this.topologyVersion,
      nodes: this.hosts.map((h) => ({ index: h.index, name: h.name, ip: formatIpv4(h.ip), podCidr: formatCidr(h.podCidr) })),
      pods: this.workloads.pods
        .filter((p) => p.shown)
        .map((p) => ({
          index: p.index,
          name: p.name,
          node: p.host.name,
          ip: formatIpv4(p.ip),
          deployment: p.deployment,
          phase: p.phase,
          ready: p.ready,
        })),
      services: [...this.services.values()].map((s) => ({
        name: s.name,
        clusterIp: formatIpv4(s.clusterIp),
        port: s.port,
        selector: s.selector,
        endpoints: s.endpoints.map((e) => this.workloads.pods[e.pod]!.name),
      })),
    };
  }

  /** Client-side connections with a known backend, as (client pod, backend pod, state) triples. */
  connections(): Int32Array {
    const out: number[] = [];
    for (const socket of this.tcp.sockets.values()) {
      if (socket.backendPod < 0) continue;
      let state: ConnStateId;
      if (socket.state === TcpState.synSent) state = ConnState.connecting;
      else if (socket.state === TcpState.established) state = ConnState.established;
      else state = ConnState.closing;
      out.push(socket.stack.podIndex, socket.backendPod, state);
    }
    return Int32Array.from(out);
  }
}
