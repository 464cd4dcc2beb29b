import type { Ipv4 } from '../net/ipv4';
import { Proto } from '../net/packet';
import { EndpointSlice } from './endpoint-slice';

export type ServiceType = 'ClusterIP' | 'NodePort' | 'LoadBalancer';
/**
 * externalTrafficPolicy: applies to traffic sent to a node port or the load-balancer IP
 * (docs/sources/kube-proxy.md#externaltrafficpolicy).
 */
export type TrafficPolicy = 'Cluster' | 'Local';

/** How a Service is reachable beyond its ClusterIP. Absent fields keep their defaults. */
export interface ServiceExposure {
  type?: ServiceType;
  nodePort?: number;
  loadBalancerIp?: number;
  externalTrafficPolicy?: TrafficPolicy;
  healthCheckNodePort?: number;
  /** IP protocol number of the port (6 TCP, 17 UDP). */
  proto?: number;
}

/** A Service: its ClusterIP and port, how it is exposed, and the EndpointSlice of the pods it selects. */
export class Service {
  /** The API's endpoints for this Service; kube-proxy reads it when it syncs. */
  readonly slice = new EndpointSlice();
  type: ServiceType = 'ClusterIP';
  nodePort: number | undefined;
  loadBalancerIp: number | undefined;
  externalTrafficPolicy: TrafficPolicy = 'Cluster';
  /** Allocated for LoadBalancer + Local; kube-proxy answers health checks for the Service on it. */
  healthCheckNodePort: number | undefined;
  proto: number = Proto.tcp;
  /** Bumped on every spec change a watcher would see. */
  specVersion = 0;

  constructor(
    readonly name: string,
    readonly clusterIp: Ipv4,
    readonly port: number,
    readonly selector: string,
    readonly targetPort: number,
    exposure: ServiceExposure = {},
  ) {
    this.expose(exposure);
  }

  /** Built once: it names the entity in every drop, trace and log line. */
  get entity(): string {
    return (this.entityText ??= `service/${this.name}`);
  }
  private entityText: string | undefined;

  /** Changes how the Service is exposed, with the API server's validation; ports left unset are allocated by ServiceDirectory. */
  expose(exposure: ServiceExposure): void {
    const type = exposure.type ?? this.type;
    const policy = exposure.externalTrafficPolicy ?? this.externalTrafficPolicy;
    if (type === 'ClusterIP' && policy === 'Local') {
      throw new RangeError(`service ${this.name}: externalTrafficPolicy Local needs type NodePort or LoadBalancer`);
    }
    this.type = type;
    this.externalTrafficPolicy = policy;
    this.proto = exposure.proto ?? this.proto;
    this.nodePort = type === 'ClusterIP' ? undefined : (exposure.nodePort ?? this.nodePort);
    this.loadBalancerIp = type === 'LoadBalancer' ? (exposure.loadBalancerIp ?? this.loadBalancerIp) : undefined;
    const wantsHealthCheck = type === 'LoadBalancer' && policy === 'Local';
    this.healthCheckNodePort = wantsHealthCheck ? (exposure.healthCheckNodePort ?? this.healthCheckNodePort) : undefined;
    this.specVersion++;
  }
}

// kube-apiserver --service-node-port-range default 30000-32767.
export const NODE_PORT_RANGE = { first: 30000, last: 32767 } as const;

/** Finds the Service behind a destination address and port, as kube-proxy's KUBE-SERVICES chain does. */
export class ServiceDirectory {
  private readonly byAddress = new Map<number, Service>();
  private readonly addresses = new Set<number>();
  private readonly usedNodePorts = new Set<number>();

  add(service: Service): void {
    this.byAddress.set(service.clusterIp * 65536 + service.port, service);
    this.addresses.add(service.clusterIp);
    this.allocatePorts(service);
  }

  /** Re-exposes a Service and allocates the node ports its new type needs. */
  expose(service: Service, exposure: ServiceExposure): void {
    service.expose(exposure);
    this.allocatePorts(service);
  }

  lookup(ip: number, port: number): Service | undefined {
    return this.byAddress.get(ip * 65536 + port);
  }

  isServiceIp(ip: number): boolean {
    return this.addresses.has(ip);
  }

  private allocatePorts(service: Service): void {
    const needsNodePort = service.type !== 'ClusterIP' && service.nodePort === undefined;
    const needsHealthPort = service.type === 'LoadBalancer' && service.externalTrafficPolicy === 'Local' && service.healthCheckNodePort === undefined;
    if (service.nodePort !== undefined) this.usedNodePorts.add(service.nodePort);
    if (service.healthCheckNodePort !== undefined) this.usedNodePorts.add(service.healthCheckNodePort);
    if (!needsNodePort && !needsHealthPort) return;
    service.expose({
      nodePort: needsNodePort ? this.freeNodePort() : service.nodePort,
      healthCheckNodePort: needsHealthPort ? this.freeNodePort() : service.healthCheckNodePort,
    });
  }

  /** Model choice: the lowest free port of the range, where the API server picks at random, so runs stay reproducible. */
  private freeNodePort(): number {
    for (let port = NODE_PORT_RANGE.first; port <= NODE_PORT_RANGE.last; port++) {
      if (!this.usedNodePorts.has(port)) {
        this.usedNodePorts.add(port);
        return port;
      }
    }
    throw new RangeError('node port range exhausted');
  }
}
