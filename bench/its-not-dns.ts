import { performance } from 'node:perf_hooks';
import { loadScenario } from '../src/sim/scenario/load';
import { createSim, FAULT_IDS } from '../src/sim/sim';
import type { SimTime } from '../src/sim/core/time';

/**
 * The first incident at the talk's scale, as the replay in progress builds it (issue 4): 2,000 gRPC clients on fifty
 * ENI-mode instances, a metric service of twenty pods rolling at 60 s, round_robin with the 300 ms redial. The bench
 * times the quiet minute before the rollout and the storm after it separately, since their costs differ tenfold.
 */
export function itsNotDnsScenario(clients = 2000, nodes = 50): string {
  const nodeLines = Array.from({ length: nodes }, (_, i) => `    - { name: node-${String(i).padStart(2, '0')}, ip: 10.0.${Math.floor(i / 200)}.${10 + (i % 200)}, podCidr: 10.244.${i}.0/24, platform: cloud }`);
  return `# yaml-language-server: $schema=../scenario.schema.json
version: 1
id: its-not-dns
title: "It wasn't DNS: a rolling update, a reconnect storm and a hidden conntrack table"
description: |
  Two thousand alerting engines query a metric service of twenty pods through gRPC, finding
  it by a Route 53 name that external-dns keeps up to date every 15 s. Everything runs on
  fifty cloud instances in Cilium's ENI mode: pod addresses live on a second interface with
  no IPv4 address of its own. At 60 s the metric service rolls. Each old pod gets SIGTERM,
  runs gRPC's GracefulStop (GOAWAY; new connections are reset) and is gone ten seconds
  later, but its address stays attached to its instance for a while. The clients use
  round_robin and a years-old setting that redials every 300 ms, and they only learn the new
  addresses when their resolver may look again (every 30 s). So they fire SYNs at the dead
  addresses: the instance's reverse-path filter drops them as martians, unseen by the node,
  but the hypervisor tracks every one, its connection allowance fills, and new flows of
  every kind on that instance are dropped, node-local DNS's connections to cluster DNS
  among them. The metric service resolves its dependencies for every query, so "DNS"
  errors appear. Try the fixes, starting with the real one: gRPC's default backoff.
seed: 7
duration: 240
topology:
  nodes:
${nodeLines.join('\n')}
  deployments:
    index: { app: http-server, replicas: 4 }
    metric: { app: grpc-server, replicas: 20, port: 9090, dependencies: [index], terminationGracePeriodSeconds: 10 }
    alerting: { app: grpc-client, replicas: 2000, target: metric.example.com:9090 }
  services:
    index: { selector: index, clusterIp: 10.96.0.30 }
  dns:
    clusterIp: 10.96.0.10
    upstreamClusterIp: 10.96.0.11
    replicas: 4
    nodeLocal: true
    externalDns: { hostname: metric.example.com, deployment: metric }
params:
  node: { podNetwork: eni }
  dns: { maxConcurrent: 1000 }
  externalDns: { intervalS: 15 }
  alerting: { lbPolicy: round_robin, reconnect: fixed, reconnectIntervalMs: 300, minConnectTimeoutMs: 300, rpcsPerSecond: 1 }
timeline:
  - at: 60
    fault: rolling-update
    target: deployment/metric
    note: The metric service rolls to a new version, a few pods at a time.
`.replace('alerting: { app: grpc-client, replicas: 2000,', `alerting: { app: grpc-client, replicas: ${clients},`);
}

export interface WindowFigures {
  label: string;
  from: number;
  to: number;
  wallMs: number;
  events: number;
  simSecondsPerWallSecond: number;
}

/** Runs the scenario once, timing each window [from, to) in simulated seconds. */
export function runItsNotDnsBench(windows: [string, number, number][], clients = 2000): WindowFigures[] {
  const loaded = loadScenario(itsNotDnsScenario(clients), 'its-not-dns.yaml', { faultIds: FAULT_IDS });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const sim = createSim(loaded.scenario);
  const out: WindowFigures[] = [];
  for (const [label, from, to] of windows) {
    sim.runUntil((from * 1e6) as SimTime);
    const events = sim.eventsExecuted();
    const started = performance.now();
    sim.runUntil((to * 1e6) as SimTime);
    const wallMs = performance.now() - started;
    out.push({ label, from, to, wallMs, events: sim.eventsExecuted() - events, simSecondsPerWallSecond: (to - from) / (wallMs / 1000) });
  }
  return out;
}
