import { z } from 'zod';

/** Tunable mechanism parameters. Every key is optional; a missing key takes the default written beside it. */

const network = z.strictObject({
  // One-way latency of one hop (veth or wire); a same-rack hop in a data centre is tens of microseconds.
  hopLatencyUs: z.number().int().min(0).default(50),
});

const tcp = z.strictObject({
  // TCP_TIMEOUT_INIT = 1 s in Linux include/net/tcp.h, as RFC 6298 section 2.1 recommends.
  initialRtoMs: z.number().gt(0).default(1000),
  // net.ipv4.tcp_syn_retries default 6, at most 127 (kernel Documentation/networking/ip-sysctl.rst).
  synRetries: z.number().int().min(1).max(127).default(6),
});

const client = z.strictObject({
  // Model choice: a steady, light load per client pod.
  requestsPerSecond: z.number().gt(0).default(10),
  // Model choice: one keep-alive connection per pod, like a simple HTTP client with pooling.
  connectionsPerPod: z.number().int().min(1).max(64).default(1),
  // Model choice: delay before reconnecting after a connection fails or is reset.
  reconnectMs: z.number().min(0).default(1000),
  // Model choice: application connect timeout, shorter than the kernel's SYN retry budget.
  connectTimeoutMs: z.number().gt(0).default(5000),
  // Model choice: per-request deadline.
  requestTimeoutMs: z.number().gt(0).default(2000),
});

const server = z.strictObject({
  // Model choice: mean request processing time of a light HTTP handler.
  serviceTimeMs: z.number().min(0).default(5),
});

const kube = z.strictObject({
  // Model choice: image already on the node, so creation to Ready takes a couple of seconds.
  podStartSeconds: z.number().min(0).default(2),
  // Endpoint change to kube-proxy rules; kube-proxy's iptables minSyncPeriod is 1 s (REFERENCE.md H.3).
  endpointPropagationMs: z.number().min(0).default(500),
  // Model choice: the ReplicaSet controller reacts to a deleted pod through its informer within a fraction of a second.
  replaceDelayMs: z.number().min(0).default(200),
});

export const paramsSchema = z
  .strictObject({
    network: network.prefault({}),
    tcp: tcp.prefault({}),
    client: client.prefault({}),
    server: server.prefault({}),
    kube: kube.prefault({}),
  })
  .prefault({});

export type ScenarioParams = z.output<typeof paramsSchema>;

/** Every parameter at its default. */
export function defaultParams(): ScenarioParams {
  return paramsSchema.parse(undefined);
}
