import { networkParams } from '../infra/network-params';
import { clientParams } from '../apps/http-client-params';
import { dnsClientParams } from '../apps/dns-client-params';
import { serverParams } from '../apps/server-params';
import { cpuParams } from '../infra/cpu-params';
import { hpaParams } from '../k8s/hpa-params';
import { kubeProxyParams } from '../k8s/kube-proxy-params';
import { lbParams } from '../infra/lb-params';
import { bgpParams } from '../infra/bgp-params';
import { dnsParams } from '../dns/dns-params';
import { externalDnsParams } from '../dns/external-dns-params';
import { calicoParams } from '../infra/calico-params';
import { nodeParams } from '../infra/node-params';
import { instanceParams } from '../infra/instance-params';
import { zookeeperParams } from '../discovery/zookeeper-params';
import { nerveParams } from '../discovery/nerve-params';
import { synapseParams } from '../discovery/synapse-params';
import { meshParams } from '../discovery/mesh-params';
import { envoyParams } from '../discovery/envoy-params';
import { haproxyParams } from '../discovery/haproxy-params';
import { kubeParams } from '../k8s/kube-params';
import { tcpParams } from '../net/tcp-params';
import { RECONNECT_INTERVAL_MS } from '../apps/grpc/backoff';
import { MAX_REPLICAS } from './deployments';
import { MAX_POD_RATE, MIN_RATE } from './formats';
import { z } from './zod';

/** Tunable mechanism parameters. Every key is optional; a missing key takes the default written beside it. */

const engine = z.strictObject({
  // Connection attempts that nothing can tell apart run as a counted cohort (docs/cohorts.md): the same results in a
  // fraction of the time. false gives every attempt its own socket, timers and kept conntrack entries: the
  // per-packet model the cohorts are checked against.
  cohorts: z.boolean().default(true),
});

/** Per-deployment knobs, under params.<deployment name>: they override what the topology says for that deployment. */
export const deploymentParamsSchema = z.strictObject({
  replicas: z.number().int().min(0).max(MAX_REPLICAS).optional(),
  // terminationGracePeriodSeconds for this deployment's pods.
  gracePeriodS: z.number().min(0).max(3600).optional(),
  // gRPC clients (defaults and their sources in apps/grpc-client.ts).
  lbPolicy: z.enum(['pick_first', 'round_robin']).optional(),
  reconnect: z.enum(['backoff', 'fixed']).optional(),
  reconnectIntervalMs: z.number().min(RECONNECT_INTERVAL_MS.min).max(RECONNECT_INTERVAL_MS.max).optional(),
  minConnectTimeoutMs: z.number().min(1).max(600_000).optional(),
  resolutionIntervalS: z.number().min(0).max(3600).optional(),
  resolverRefresh: z.enum(['defer', 'drop']).optional(),
  rpcsPerSecond: z.number().min(MIN_RATE).max(MAX_POD_RATE).optional(),
  deadlineMs: z.number().min(0).max(600_000).optional(),
  maxAttempts: z.number().int().min(1).max(5).optional(),
});
export type DeploymentParams = z.output<typeof deploymentParamsSchema>;

const sections = {
  engine: engine.prefault({}),
  network: networkParams.prefault({}),
  tcp: tcpParams.prefault({}),
  client: clientParams.prefault({}),
  server: serverParams.prefault({}),
  cpu: cpuParams.prefault({}),
  dnsClient: dnsClientParams.prefault({}),
  dns: dnsParams.prefault({}),
  externalDns: externalDnsParams.prefault({}),
  kube: kubeParams.prefault({}),
  hpa: hpaParams.prefault({}),
  kubeProxy: kubeProxyParams.prefault({}),
  lb: lbParams.prefault({}),
  bgp: bgpParams.prefault({}),
  node: nodeParams.prefault({}),
  calico: calicoParams.prefault({}),
  instance: instanceParams.prefault({}),
  zookeeper: zookeeperParams.prefault({}),
  nerve: nerveParams.prefault({}),
  synapse: synapseParams.prefault({}),
  haproxy: haproxyParams.prefault({}),
  envoy: envoyParams.prefault({}),
  mesh: meshParams.prefault({}),
};

/** The mechanism sections; any other key names a deployment whose knobs it sets. */
export const PARAM_SECTIONS = Object.keys(sections);

// Keys beside the sections are checked against the deployments once the topology is known (cross-checks.ts).
export const paramsSchema = z.strictObject(sections).catchall(z.unknown()).prefault({});

export type ScenarioParams = z.output<typeof paramsSchema>;

/** The knobs a scenario sets for one deployment (empty when none). */
export function knobsOf(params: ScenarioParams, deployment: string): DeploymentParams {
  // params is a plain object, so a deployment named like one of its inherited properties (`constructor`) sets no knobs.
  if (PARAM_SECTIONS.includes(deployment) || !Object.hasOwn(params, deployment) || params[deployment] === undefined) return {};
  return deploymentParamsSchema.parse(params[deployment]);
}

/** Every parameter at its default. */
export function defaultParams(): ScenarioParams {
  return paramsSchema.parse(undefined);
}
