import type { DeploymentParams } from '../scenario/params';
import type { AppName, Deployment, DeploymentOf } from '../scenario/deployments';
import type { AppFactory } from '../k8s/workloads';
import type { Service } from '../k8s/service';
import type { Mesh } from '../discovery/mesh';
import { millis } from '../core/time';
import { parseCidr, type Cidr } from '../net/ipv4';
import type { HttpServers, CpuWork } from './http-server';
import type { HttpClients, HttpTarget } from './http-client';
import type { IngressProxies } from './ingress-proxy';
import type { DnsClients } from './dns-client';
import type { GrpcServers } from './grpc-server';
import { GRPC_CLIENT_DEFAULTS, type GrpcClients, type GrpcClientSettings } from './grpc-client';

/**
 * The mechanisms a world's pods run in, one per app kind. The world makes them in a fixed order, since their timers
 * and metrics register as they are made; the ones a topology may lack are asked for only by the apps that need them
 * (the scenario's checks have made sure they exist).
 */
export interface Fleets {
  readonly httpServers: HttpServers;
  readonly httpClients: HttpClients;
  /** Made for the first server that calls other Services, so other scenarios' reports carry no empty call instruments. */
  callers(): HttpClients;
  /** Made for the first ingress proxy, so other scenarios' reports carry no empty ingress instruments. */
  ingressProxies(): IngressProxies;
  dnsClients(): DnsClients;
  mesh(): Mesh;
  readonly grpcServers: GrpcServers;
  readonly grpcClients: GrpcClients;
  service(name: string): Service;
}

/** What the world keeps of deployments' pod templates, to change them later and to explain what they do. */
export class PodTemplates {
  /** Each deployment whose requests take CPU time: how much, and its CPU limit. */
  readonly cpuWork = new Map<string, CpuWork>();
  /** Each gRPC client deployment's channel settings; pods read them as they are created. */
  readonly grpcClients = new Map<string, GrpcClientSettings>();
  readonly httpClients = new Set<string>();
}

/** How one app kind's pods are built: from the deployment's fields and parameter knobs, a factory for each new pod. */
export interface AppKind<A extends AppName> {
  deploy(fleets: Fleets, templates: PodTemplates, name: string, dep: DeploymentOf<A>, knobs: DeploymentParams): AppFactory;
}

/** Every app kind a deployment may run; the scenario format's deployments are a union over the same names. */
export const APP_CATALOG: { readonly [A in AppName]: AppKind<A> } = {
  'http-server': {
    deploy(fleets, templates, name, dep) {
      if (dep.cpuPerRequestMs > 0) templates.cpuWork.set(name, { perRequestUs: millis(dep.cpuPerRequestMs), limitCores: dep.cpuLimit });
      const calls = dep.calls.map((called) => targetOf(fleets.service(called)));
      const callers = calls.length > 0 ? fleets.callers() : null;
      return (pod) =>
        fleets.httpServers.create(
          pod,
          dep.port,
          templates.cpuWork.get(name) ?? null,
          // One client per called Service, each with its own random stream.
          calls.map((target) => callers!.create({ entity: pod.entity, name: `${pod.name}/${target.name}`, tcp: pod.tcp }, target, { driven: true })),
        );
    },
  },
  'http-client': {
    deploy(fleets, templates, name, dep) {
      const target = targetOf(fleets.service(dep.target));
      templates.httpClients.add(name);
      return (pod) => fleets.httpClients.create(pod, target);
    },
  },
  'ingress-proxy': {
    deploy(fleets, _templates, _name, dep) {
      const spec = {
        port: dep.port,
        upstream: targetOf(fleets.service(dep.target)),
        trusted: dep.trustedIps.map((text) => parseCidr(text) as Cidr),
      };
      const proxies = fleets.ingressProxies();
      return (pod) => proxies.create(pod, spec);
    },
  },
  'dns-client': {
    deploy(fleets, _templates, _name, dep) {
      const clients = fleets.dnsClients();
      return (pod) => clients.create(pod, dep.lookup);
    },
  },
  'grpc-server': {
    deploy(fleets, _templates, _name, dep) {
      const spec = { port: dep.port, dependencies: dep.dependencies };
      return (pod) => fleets.grpcServers.create(pod, spec);
    },
  },
  'grpc-client': {
    deploy(fleets, templates, name, dep, knobs) {
      const [hostname, port] = dep.target.split(':') as [string, string];
      const target = { hostname, port: Number(port) };
      templates.grpcClients.set(name, { ...GRPC_CLIENT_DEFAULTS, ...definedKnobs(knobs) });
      // Read at each pod's creation: a changed pod template reaches the pods its rollout creates.
      return (pod) => fleets.grpcClients.create({ entity: pod.entity, name: pod.name, ns: pod.index, tcp: pod.tcp }, target, templates.grpcClients.get(name)!);
    },
  },
  'mesh-server': {
    deploy(fleets, _templates, _name, dep) {
      const mesh = fleets.mesh();
      return (pod) => mesh.servers.create(pod, dep.announce, dep.announcer);
    },
  },
  'mesh-client': {
    deploy(fleets, _templates, name, dep) {
      const mesh = fleets.mesh();
      mesh.markClients(name);
      return (pod) => mesh.clients.create(pod, dep.uses);
    },
  },
};

/** The factory for a deployment's pods, from its app kind's entry. */
export function deployApp(fleets: Fleets, templates: PodTemplates, name: string, dep: Deployment, knobs: DeploymentParams): AppFactory {
  // The entry's kind is dep.app's, which the record's type ties together but TypeScript cannot follow through a union.
  const kind = APP_CATALOG[dep.app] as AppKind<AppName>;
  return kind.deploy(fleets, templates, name, dep, knobs);
}

/** Where an HTTP client reaches a Service: its ClusterIP and port. */
function targetOf(service: Service): HttpTarget {
  return { name: service.name, ip: service.clusterIp, port: service.port };
}

/** The gRPC client knobs a scenario set for a deployment, without the ones it left out. */
export function definedKnobs(knobs: DeploymentParams): Partial<GrpcClientSettings> {
  const out: Partial<GrpcClientSettings> = {};
  for (const key of Object.keys(GRPC_CLIENT_DEFAULTS) as (keyof GrpcClientSettings)[]) {
    const value = knobs[key];
    if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}
