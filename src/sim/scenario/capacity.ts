import { GRPC_CLIENT_DEFAULTS } from '../apps/grpc-client';
import { resolveParams, type Fault } from '../faults/fault';
import { loadSpike } from '../faults/load-spike';
import { scaleDeployment } from '../faults/scale-deployment';
import { hostLocalRange, podAddressCapacity } from '../infra/pod-range';
import { parseCidr, parseIpv4 } from '../net/ipv4';
import type { Report } from './cross-checks';
import { knobsOf } from './params';
import type { PathSegment } from './path';
import type { Scenario } from './schema';

/**
 * What the engine can build and run in time: at most so many pods, each with an address from its node's pod range,
 * and clients offering at most so much load (docs/limits.md#load, #pod-addresses). Each check needs the count the one
 * before it bounds.
 */
export function checkCapacity(scenario: Scenario, report: Report): void {
  let found = false;
  const noting: Report = (path, message) => {
    found = true;
    report(path, message);
  };
  for (const check of [checkPodCount, checkPodAddresses, checkLoad]) {
    check(scenario, noting);
    if (found) return;
  }
}

/**
 * The pods a run starts with must find addresses in their nodes' pod ranges (docs/limits.md#pod-addresses). An
 * explicitly placed pod is checked on its node. The others are placed by the engine's scheduler (k8s/workloads.ts),
 * which this does not repeat: it refuses only the pods that no placement could give an address, those beyond the
 * free addresses of the nodes they may run on or of all joined nodes after the pods before them. A shortfall only
 * the scheduler's order causes is the engine's to report: the pods wait, and the deployment says so.
 */
function checkPodAddresses(scenario: Scenario, report: Report): void {
  const { nodes, deployments, dns } = scenario.topology;
  const { calico, node: nodeParams } = scenario.params;
  const blocks = calico.ipam === 'blocks' && nodeParams.podNetwork !== 'eni';
  // With block IPAM, calico-node's tunnel address comes out of the same pool (infra/cni.ts).
  const tunnel = blocks && nodeParams.podNetwork === 'ipip' && nodeParams.tunnelHasIp ? 1 : 0;
  const free: number[] = [];
  const explicitOf = new Map<string, Map<number, number>>();
  nodes.forEach((node, n) => {
    const cidr = parseCidr(node.podCidr)!;
    const { first, last } = hostLocalRange(cidr);
    free[n] = podAddressCapacity(cidr, blocks) - tunnel;
    node.pods.forEach((pod, p) => {
      const counts = explicitOf.get(pod.deployment) ?? new Map<number, number>();
      counts.set(n, (counts.get(n) ?? 0) + 1);
      explicitOf.set(pod.deployment, counts);
      const ip = pod.ip === undefined ? null : parseIpv4(pod.ip);
      // An explicit address outside what IPAM hands out (the gateway, say) takes nothing from it.
      if (ip !== null && !blocks && (ip < first || ip > last)) return;
      if (free[n]! > 0) free[n]!--;
      else report(['topology', 'nodes', n, 'pods', p], `node ${node.name}'s podCidr ${node.podCidr} has no address left for pod ${pod.name}`);
    });
  });
  const joined = joinedNodes(nodes);
  const freeOn = (allowed: readonly number[]) => allowed.reduce((sum, n) => sum + free[n]!, 0);
  let left = freeOn(joined(undefined));
  const place = (name: string, path: PathSegment[], count: number, allowed: readonly number[]) => {
    const placed = Math.max(0, Math.min(count, left, freeOn(allowed)));
    left -= placed;
    if (placed >= count) return;
    const where =
      allowed.length === 0
        ? 'no joined node may run them'
        : allowed.length > 3
          ? `the ${allowed.length} nodes it may run on are full`
          : `${allowed.map((n) => nodes[n]!.name).join(', ')} ${allowed.length === 1 ? 'is' : 'are'} full`;
    report(path, `${count - placed} of ${name}'s pods get no address: the pod range (podCidr) of ${where}`);
  };
  if (dns) place('coredns', ['topology', 'dns', 'replicas'], dns.replicas, joined(undefined));
  for (const [name, deployment] of Object.entries(deployments)) {
    const explicit = explicitOf.get(name);
    if (deployment.kind === 'DaemonSet') {
      for (const n of joined(deployment.nodes)) {
        if (explicit?.has(n)) continue;
        const node = nodes[n]!;
        if (free[n]! > 0 && left > 0) {
          free[n]!--;
          left--;
        } else report(['topology', 'nodes', n, 'podCidr'], `${node.podCidr} has no address left for the pod of DaemonSet ${name} on ${node.name}`);
      }
      continue;
    }
    const knob = knobsOf(scenario.params, name).replicas;
    const path = knob === undefined ? ['topology', 'deployments', name, 'replicas'] : ['params', name, 'replicas'];
    const placed = [...(explicit?.values() ?? [])].reduce((a, b) => a + b, 0);
    place(name, path, (knob ?? deployment.replicas ?? 0) - placed, joined(deployment.nodes));
  }
}

/** The joined nodes' indexes, all of them (no selector) or those a selector names, in node order. */
function joinedNodes(nodes: Scenario['topology']['nodes']): (selector: readonly string[] | undefined) => number[] {
  const all = nodes.flatMap((node, n) => (node.joined ? [n] : []));
  const byName = new Map(all.map((n) => [nodes[n]!.name, n]));
  return (selector) => (selector === undefined ? all : [...new Set(selector.flatMap((name) => byName.get(name) ?? []))].sort((a, b) => a - b));
}

// What the engine runs five simulated seconds of in well under a minute on a 2-core machine (docs/limits.md#load).
export const MAX_OFFERED_PER_SECOND = 20_000;
export const MAX_CLIENT_CONNECTIONS = 20_000;

/**
 * The load the clients offer at the start (requests, RPCs and lookups per second, over every client pod and machine)
 * and the connections the HTTP clients hold, against what the engine can run (docs/limits.md#load).
 */
function checkLoad(scenario: Scenario, report: Report): void {
  const { externalClients } = scenario.topology;
  const { client, dnsClient, mesh } = scenario.params;
  // The timeline's load spikes raise the rate of internet clients while the run goes on: count them at their peak.
  const spike = Math.max(1, ...scenario.timeline.map((entry) => (entry.fault === loadSpike.id ? (faultParam(loadSpike, entry.params, 'factor') ?? 1) : 1)));
  let offered = externalClients.length * client.requestsPerSecond * spike;
  // A client dialling per request holds, at worst, every dial of one connect timeout at once.
  const perRequest = client.connectionMode === 'per-request';
  const held = (rate: number): number => (perRequest ? Math.ceil((rate * client.connectTimeoutMs) / 1000) : client.connectionsPerPod);
  let connections = externalClients.length * held(client.requestsPerSecond * spike);
  let busiest: { path: PathSegment[]; offered: number } = { path: ['params', 'client', 'requestsPerSecond'], offered };
  for (const { name, deployment, peak, path } of replicaCounts(scenario)) {
    let perPod = 0;
    if (deployment.app === 'http-client') {
      perPod = client.requestsPerSecond;
      connections += peak * held(client.requestsPerSecond);
    } else if (deployment.app === 'dns-client') perPod = dnsClient.lookupsPerSecond;
    else if (deployment.app === 'grpc-client') perPod = knobsOf(scenario.params, name).rpcsPerSecond ?? GRPC_CLIENT_DEFAULTS.rpcsPerSecond;
    else if (deployment.app === 'mesh-client') perPod = mesh.requestsPerSecond * deployment.uses.length;
    offered += peak * perPod;
    if (peak * perPod > busiest.offered) busiest = { path, offered: peak * perPod };
  }
  if (offered > MAX_OFFERED_PER_SECOND) {
    report(
      busiest.path,
      `the clients would send ${Math.round(offered)} requests a second at their peak (${Math.round(busiest.offered)} from here); the engine runs at most ${MAX_OFFERED_PER_SECOND}`,
    );
  }
  if (connections > MAX_CLIENT_CONNECTIONS) {
    report(
      ['params', 'client', perRequest ? 'connectTimeoutMs' : 'connectionsPerPod'],
      `the HTTP clients would hold ${connections} connections; the engine runs at most ${MAX_CLIENT_CONNECTIONS}`,
    );
  }
}

// The pods the engine builds in a few seconds on a 2-core machine, however they are spread (docs/limits.md#load).
export const MAX_PODS = 25_000;

/** The pods a run starts with, or holds at the timeline's highest scale-up, against what the engine builds in time. */
function checkPodCount(scenario: Scenario, report: Report): void {
  let total = scenario.topology.dns?.replicas ?? 0;
  let biggest: { path: PathSegment[]; peak: number } | null = null;
  for (const { peak, path } of replicaCounts(scenario)) {
    total += peak;
    if (biggest === null || peak > biggest.peak) biggest = { path, peak };
  }
  if (total > MAX_PODS) {
    report(biggest?.path ?? ['topology', 'deployments'], `the scenario would run ${total} pods (${biggest?.peak ?? 0} from here); the engine runs at most ${MAX_PODS}`);
  }
}

interface ReplicaCount {
  name: string;
  deployment: Scenario['topology']['deployments'][string];
  /** The most pods it runs: at the start, or after the timeline's largest scale-deployment of it. */
  peak: number;
  /** Where its count is written: params.<name>.replicas when set there. */
  path: PathSegment[];
}

/** Each deployment's pod count at its peak; a DaemonSet's is its joined nodes' count. */
function replicaCounts(scenario: Scenario): ReplicaCount[] {
  const scaledTo = new Map<string, number>();
  for (const entry of scenario.timeline) {
    const replicas = entry.fault === scaleDeployment.id ? faultParam(scaleDeployment, entry.params, 'replicas') : undefined;
    const name = entry.target.slice('deployment/'.length);
    if (replicas !== undefined) scaledTo.set(name, Math.max(replicas, scaledTo.get(name) ?? 0));
  }
  const joined = joinedNodes(scenario.topology.nodes);
  return Object.entries(scenario.topology.deployments).map(([name, deployment]) => {
    const knob = knobsOf(scenario.params, name).replicas;
    const start = deployment.kind === 'DaemonSet' ? joined(deployment.nodes).length : (knob ?? deployment.replicas ?? 0);
    const path = knob === undefined ? ['topology', 'deployments', name, 'replicas'] : ['params', name, 'replicas'];
    return { name, deployment, peak: Math.max(start, scaledTo.get(name) ?? 0), path };
  });
}

/** A fault's numeric parameter as a timeline entry sets it or by its default; undefined when the entry's are invalid. */
function faultParam(fault: Fault, params: Scenario['timeline'][number]['params'], name: string): number | undefined {
  try {
    const value = resolveParams(fault, params)[name];
    return typeof value === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}
