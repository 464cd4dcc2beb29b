import { Payload } from '../net/packet';
import type { Listener, SocketOwner } from '../net/tcp';
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
  for (const host of hosts) {
    const owner: SocketOwner = {
      onConnected: () => {},
      onData: (socket, payload) => {
        if (payload !== Payload.request) return;
        const status = kubeProxy.healthCheck(host.index, serviceIndex)?.status ?? 503;
        host.tcp.send(socket, Payload.response, status);
      },
      onClosed: () => {},
    };
    const listener: Listener = { accepting: true, accept: () => owner };
    host.tcp.listen(port, listener);
  }
}
