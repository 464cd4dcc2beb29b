import { NO_ENDPOINTS, type ServiceProxy } from '../infra/service-proxy';
import type { Service, ServiceDirectory } from './service';

/**
 * ClusterIP Services as every node's kube-proxy programs them once endpoint changes have propagated: iptables mode
 * picks each endpoint with equal probability (statistic --mode random) and never masquerades pod-to-Service traffic.
 */
export class ClusterIpProxy implements ServiceProxy {
  private readonly services: Service[] = [];
  private readonly handles = new Map<Service, number>();

  constructor(private readonly directory: ServiceDirectory) {}

  lookup(_node: number, dstIp: number, dstPort: number): number {
    if (!this.directory.isServiceIp(dstIp)) return -1;
    const service = this.directory.lookup(dstIp, dstPort);
    if (!service) return -1;
    let handle = this.handles.get(service);
    if (handle === undefined) {
      handle = this.services.length;
      this.services.push(service);
      this.handles.set(service, handle);
    }
    return handle;
  }

  choose(_node: number, service: number, _fromLocalPod: boolean, random: number): number {
    const endpoints = this.services[service]!.endpoints;
    if (endpoints.length === 0) return NO_ENDPOINTS;
    // Slots encode service and endpoint so the accessors need no per-packet state.
    return service * 65536 + Math.floor(random * endpoints.length);
  }

  endpointIp(_node: number, slot: number): number {
    return this.endpoint(slot).ip;
  }

  endpointPort(_node: number, slot: number): number {
    return this.endpoint(slot).port;
  }

  endpointPod(_node: number, slot: number): number {
    return this.endpoint(slot).pod;
  }

  masquerade(): boolean {
    return false;
  }

  private endpoint(slot: number) {
    return this.services[Math.floor(slot / 65536)]!.endpoints[slot % 65536]!;
  }
}
