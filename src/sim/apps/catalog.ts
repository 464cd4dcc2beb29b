import type { DeploymentParams } from '../scenario/params';
import type { AppName, Deployment, DeploymentOf } from '../scenario/deployments';
import type { AppFactory } from '../k8s/workloads';
import type { Pod, PodApp } from '../infra/pod';
import { bound } from '../core/snapshot';
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

/**
 * How one app kind's pods are built: `deploy` reads the deployment's fields and parameter knobs once, into plain data;
 * `create` builds each new pod's app from that data.
 */
export interface AppKind<A extends AppName, D> {
  deploy(fleets: Fleets, templates: PodTemplates, name: string, dep: DeploymentOf<A>, knobs: DeploymentParams): D;
  create(fleets: Fleets, templates: PodTemplates, data: D, pod: Pod): PodApp;
}

const kind = <A extends AppName, D>(k: AppKind<A, D>): AppKind<A, D> => k;

/** Every app kind a deployment may run; the scenario format's deployments are a union over the same names. */
export const APP_CATALOG = {
  'http-server': kind({
    deploy(fleets, templates, name, dep: DeploymentOf<'http-server'>) {
      if (dep.cpuPerRequestMs > 0) templates.cpuWork.set(name, { perRequestUs: millis(dep.cpuPerRequestMs), limitCores: dep.cpuLimit });
      const calls = dep.calls.map((called) => targetOf(fleets.service(called)));
      return { name, port: dep.port, calls, callers: calls.length > 0 ? fleets.callers() : null };
    },
    create(fleets, templates, { name, port, calls, callers }, pod) {
      return fleets.httpServers.create(
        pod,
        port,
        templates.cpuWork.get(name) ?? null,
        // One client per called Service, each with its own random stream.
        calls.map((target) => callers!.create({ entity: pod.entity, name: `${pod.name}/${target.name}`, tcp: pod.tcp }, target, { driven: true })),
      );
    },
  }),
  'http-client': kind({
    deploy(fleets, templates, name, dep: DeploymentOf<'http-client'>) {
      templates.httpClients.add(name);
      return targetOf(fleets.service(dep.target));
    },
    create: (fleets, _templates, target, pod) => fleets.httpClients.create(pod, target),
  }),
  'ingress-proxy': kind({
    deploy(fleets, _templates, _name, dep: DeploymentOf<'ingress-proxy'>) {
      const spec = {
        port: dep.port,
        upstream: targetOf(fleets.service(dep.target)),
        trusted: dep.trustedIps.map((text) => parseCidr(text) as Cidr),
      };
      return { spec, proxies: fleets.ingressProxies() };
    },
    create: (_fleets, _templates, { spec, proxies }, pod) => proxies.create(pod, spec),
  }),
  'dns-client': kind({
    deploy: (fleets, _templates, _name, dep: DeploymentOf<'dns-client'>) => ({ clients: fleets.dnsClients(), lookup: dep.lookup }),
    create: (_fleets, _templates, { clients, lookup }, pod) => clients.create(pod, lookup),
  }),
  'grpc-server': kind({
    deploy: (_fleets, _templates, _name, dep: DeploymentOf<'grpc-server'>) => ({ port: dep.port, dependencies: dep.dependencies }),
    create: (fleets, _templates, spec, pod) => fleets.grpcServers.create(pod, spec),
  }),
  'grpc-client': kind({
    deploy(_fleets, templates, name, dep: DeploymentOf<'grpc-client'>, knobs) {
      const [hostname, port] = dep.target.split(':') as [string, string];
      templates.grpcClients.set(name, { ...GRPC_CLIENT_DEFAULTS, ...definedKnobs(knobs) });
      return { name, target: { hostname, port: Number(port) } };
    },
    // Read at each pod's creation: a changed pod template reaches the pods its rollout creates.
    create: (fleets, templates, { name, target }, pod) =>
      fleets.grpcClients.create({ entity: pod.entity, name: pod.name, ns: pod.index, tcp: pod.tcp }, target, templates.grpcClients.get(name)!),
  }),
  'mesh-server': kind({
    deploy: (fleets, _templates, _name, dep: DeploymentOf<'mesh-server'>) => ({ mesh: fleets.mesh(), announce: dep.announce, announcer: dep.announcer }),
    create: (_fleets, _templates, { mesh, announce, announcer }, pod) => mesh.servers.create(pod, announce, announcer),
  }),
  'mesh-client': kind({
    deploy(fleets, _templates, name, dep: DeploymentOf<'mesh-client'>) {
      const mesh = fleets.mesh();
      mesh.markClients(name);
      return { mesh, uses: dep.uses };
    },
    create: (_fleets, _templates, { mesh, uses }, pod) => mesh.clients.create(pod, uses),
  }),
} satisfies { readonly [A in AppName]: AppKind<A, unknown> };

/** A deployment's pods' apps: its app kind's entry with what `deploy` read, as plain data a snapshot copies. */
export class AppMaker {
  constructor(
    private readonly app: AppName,
    private readonly fleets: Fleets,
    private readonly templates: PodTemplates,
    private readonly data: unknown,
  ) {}

  create(pod: Pod): PodApp {
    return (APP_CATALOG[this.app] as AppKind<AppName, unknown>).create(this.fleets, this.templates, this.data, pod);
  }
}

/** The factory for a deployment's pods, from its app kind's entry. */
export function deployApp(fleets: Fleets, templates: PodTemplates, name: string, dep: Deployment, knobs: DeploymentParams): AppFactory {
  // The entry's kind is dep.app's, which the record's type ties together but TypeScript cannot follow through a union.
  const entry = APP_CATALOG[dep.app] as AppKind<AppName, unknown>;
  const maker = new AppMaker(dep.app, fleets, templates, entry.deploy(fleets, templates, name, dep as never, knobs));
  return bound(maker, maker.create);
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
