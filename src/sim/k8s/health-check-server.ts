import { Payload, type PayloadId } from '../net/packet';
import type { Listener, Socket, SocketOwner } from '../net/tcp';
import type { Host } from '../infra/host';
import type { KubeProxy } from './kube-proxy';
import type { Service } from './service';

/**
 * kube-proxy's healthCheckNodePort server on every node, for each LoadBalancer Service with externalTrafficPolicy
 * Local: an HTTP request gets the status code (200 with a local ready endpoint and a healthy proxy, else 503) as the
 * response's message (docs/sources/kube-proxy.md#healthchecknodeport).
 */
export function serveHealthChecks(hosts: readonly Host[], kubeProxy: KubeProxy, service: Service, serviceIndex: number): void {
  const port = service.healthCheckNodePort;
  if (port === undefined) return;
  for (const host of hosts) host.tcp.listen(port, new HealthCheckServer(host, kubeProxy, serviceIndex));
}

/** One node's server for one Service: each connection is its own, answered by the node's view of the Service. */
export class HealthCheckServer implements Listener, SocketOwner {
  readonly accepting = true;

  constructor(
    private readonly host: Host,
    private readonly kubeProxy: KubeProxy,
    private readonly serviceIndex: number,
  ) {}

  accept(): SocketOwner {
    return this;
  }

  onConnected(): void {}

  onData(socket: Socket, payload: PayloadId): void {
    if (payload !== Payload.request) return;
    const status = this.kubeProxy.healthCheck(this.host.index, this.serviceIndex)?.status ?? 503;
    this.host.tcp.send(socket, Payload.response, status);
  }

  onClosed(): void {}
}
