import type { Ipv4 } from '../net/ipv4';

export interface Endpoint {
  ip: number;
  port: number;
  pod: number;
}

/** A ClusterIP Service and the endpoints kube-proxy currently programs for it. */
export class Service {
  /** Endpoints as the nodes' kube-proxies see them, after propagation. */
  endpoints: Endpoint[] = [];

  constructor(
    readonly name: string,
    readonly clusterIp: Ipv4,
    readonly port: number,
    readonly selector: string,
    readonly targetPort: number,
  ) {}

  get entity(): string {
    return `service/${this.name}`;
  }
}

/** Finds the Service behind a destination address and port, as kube-proxy's KUBE-SERVICES chain does. */
export class ServiceDirectory {
  private readonly byAddress = new Map<number, Service>();
  private readonly addresses = new Set<number>();

  add(service: Service): void {
    this.byAddress.set(service.clusterIp * 65536 + service.port, service);
    this.addresses.add(service.clusterIp);
  }

  lookup(ip: number, port: number): Service | undefined {
    return this.byAddress.get(ip * 65536 + port);
  }

  isServiceIp(ip: number): boolean {
    return this.addresses.has(ip);
  }
}
