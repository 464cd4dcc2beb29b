import { performance } from 'node:perf_hooks';
import { stringify } from 'yaml';
import { atSeconds } from '../src/sim/core/time';
import type { Sim } from '../src/sim/api';
import { loadScenario } from '../src/sim/scenario/load';
import { createSim, FAULT_IDS } from '../src/sim/sim';

/**
 * The hot path of the "It wasn't DNS" incident (docs/sources/incidents.md#it-wasnt-dns): many client pods on cloud
 * nodes in ENI mode keep redialling a Service whose only server pod was deleted. kube-proxy never hears of the deletion
 * and the cloud never releases the address, so every SYN crosses the client's hypervisor and the fabric to the server's
 * instance. Until that instance's tracked-connection table is full the SYNs die on its address-less eth1 as
 * rp_filter_martian; after, in its hypervisor as hypervisor_conntrack_exceeded. Each repetition is a fresh sim built
 * from the same YAML: an untimed lead-in (start-up, deletion, the table filling), then the timed flood.
 */

export interface PacketPathOptions {
  clientNodes?: number;
  clientsPerNode?: number;
  /** Keep-alive connections per client pod; each redials on its own, so this multiplies the SYN rate. */
  connectionsPerPod?: number;
  /** Untimed simulated seconds before the timed window; the server's table must be full by then. */
  leadInSeconds?: number;
  /** Timed simulated seconds. */
  simulatedSeconds?: number;
  repetitions?: number;
  seed?: number;
}

export interface PacketPathFigures {
  clients: number;
  connections: number;
  conntrackAllowance: number;
  reconnectMs: number;
  connectTimeoutMs: number;
  leadInSeconds: number;
  simulatedSeconds: number;
  packets: number;
  events: number;
  wallMs: number;
  packetsPerSecond: number;
  eventsPerSecond: number;
  simSecondsPerWallSecond: number;
  /** Drops by reason during the lead-in and during the timed window. */
  leadInDrops: Record<string, number>;
  drops: Record<string, number>;
  dropped: number;
  /** Share of the timed window's drops that are hypervisor_conntrack_exceeded or rp_filter_martian. */
  targetShare: number;
  heapBefore: number;
  heapAfter: number;
  heapBytesPerMillionPackets: number;
  /** Heap growth per million packets over the slices without a collection: closer to what the path allocates. */
  growthBytesPerMillionPackets: number;
  slicesWithoutCollection: number;
  slices: number;
}

const TARGET_REASONS = ['hypervisor_conntrack_exceeded', 'rp_filter_martian'];
const SERVER_IP = '10.244.0.5';
// After a second of normal traffic, so established connections are reset first, as in a real deletion under load.
const DELETE_AT_S = 1;
const LEAD_IN_S = 4;
const TIMED_S = 8;
// The server's instance fills within the lead-in at the default SYN rate; client instances stay below it.
const CONNTRACK_ALLOWANCE = 20_000;
// Well past any run: kube-proxy never learns that the endpoint is gone, and the cloud never detaches its address.
const NEVER_S = 3600;

/** The scenario as YAML text, as a user would write it. */
export function packetPathScenario(options: PacketPathOptions = {}): string {
  const clientNodes = options.clientNodes ?? 20;
  const clientsPerNode = options.clientsPerNode ?? 50;
  if (clientNodes > 200 || clientsPerNode > 250) throw new Error('at most 200 client nodes of 250 pods (one /24 pod CIDR each)');
  const nodes = [
    {
      name: 'server',
      ip: '10.0.0.10',
      podCidr: '10.244.0.0/24',
      platform: 'cloud',
      pods: [{ name: 'web-0', deployment: 'web', ip: SERVER_IP }],
    },
    ...Array.from({ length: clientNodes }, (_, n) => ({
      name: `client-node-${n}`,
      ip: `10.0.1.${n + 10}`,
      podCidr: `10.245.${n}.0/24`,
      platform: 'cloud',
      pods: Array.from({ length: clientsPerNode }, (_, c) => ({ name: `client-${n}-${c}`, deployment: `client-${n}` })),
    })),
  ];
  const scenario = {
    version: 1,
    id: 'bench-packet-path',
    title: 'Bench: SYN flood into a full hypervisor tracking table',
    description: 'Clients keep redialling a deleted pod whose address is still attached to its instance.',
    seed: options.seed ?? 1,
    duration: (options.leadInSeconds ?? LEAD_IN_S) + (options.simulatedSeconds ?? TIMED_S),
    topology: {
      nodes,
      // One client deployment per node: a deployment holds at most 500 replicas.
      deployments: Object.fromEntries([
        ['web', { app: 'http-server', replicas: 1, port: 8080 }],
        ...Array.from({ length: clientNodes }, (_, n) => [`client-${n}`, { app: 'http-client', replicas: clientsPerNode, target: 'web' }]),
      ]),
      services: { web: { selector: 'web', clusterIp: '10.96.0.10', port: 80 } },
    },
    params: {
      // The incident's clients redialled every 300 ms (docs/sources/incidents.md#it-wasnt-dns); a short connect timeout
      // keeps SYNs coming.
      client: { requestsPerSecond: 1, connectionsPerPod: options.connectionsPerPod ?? 4, reconnectMs: 300, connectTimeoutMs: 200 },
      node: { podNetwork: 'eni' },
      kube: { endpointPropagationMs: NEVER_S * 1000 },
      kubeProxy: { syncPeriodS: NEVER_S },
      instance: { conntrackAllowance: CONNTRACK_ALLOWANCE, ipReleaseDelayS: NEVER_S },
    },
    timeline: [{ at: DELETE_AT_S, fault: 'delete-pod', target: 'pod/web-0', params: { gracePeriodSeconds: 0 } }],
  };
  return stringify(scenario);
}

interface Run {
  packets: number;
  events: number;
  wallMs: number;
  leadInDrops: Record<string, number>;
  drops: Record<string, number>;
  heapBefore: number;
  heapAfter: number;
  /** Heap growth summed over the one-second slices in which no collection shrank the heap, and their packets. */
  grownBytes: number;
  grownPackets: number;
  grownSlices: number;
  slices: number;
}

/** Runs the scenario once to warm up, then `repetitions` times, and keeps the fastest timed window. */
export function runPacketPathBench(options: PacketPathOptions = {}): PacketPathFigures {
  const repetitions = options.repetitions ?? 3;
  const leadInSeconds = options.leadInSeconds ?? LEAD_IN_S;
  const loaded = loadScenario(packetPathScenario(options), 'bench-packet-path.yaml', { faultIds: FAULT_IDS });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const scenario = loaded.scenario;
  const sent = (sim: Sim) => sim.report(0).packets.sent;

  const runOnce = (): Run => {
    const sim = createSim(scenario);
    sim.runUntil(atSeconds(leadInSeconds));
    const leadInDrops = sim.drops();
    const packetsBefore = sent(sim);
    const eventsBefore = sim.eventsExecuted();
    const heapBefore = process.memoryUsage().heapUsed;
    // One-second slices, with the heap read just around each, so a slice in which no collection ran shows growth.
    let wallMs = 0;
    let slices = 0;
    let grownBytes = 0;
    let grownSlices = 0;
    let heapAfter = heapBefore;
    for (let t = leadInSeconds; t < scenario.duration;) {
      t = Math.min(t + 1, scenario.duration);
      const heapStart = process.memoryUsage().heapUsed;
      const started = performance.now();
      sim.runUntil(atSeconds(t));
      wallMs += performance.now() - started;
      heapAfter = process.memoryUsage().heapUsed;
      slices++;
      if (heapAfter >= heapStart) {
        grownBytes += heapAfter - heapStart;
        grownSlices++;
      }
    }
    const total = sim.drops();
    const drops = Object.fromEntries(Object.entries(total).map(([reason, n]) => [reason, n - (leadInDrops[reason] ?? 0)]));
    const packets = sent(sim) - packetsBefore;
    return {
      packets,
      events: sim.eventsExecuted() - eventsBefore,
      wallMs,
      leadInDrops,
      drops,
      heapBefore,
      heapAfter,
      grownBytes,
      // The flood is steady, so each slice carries about the same number of packets.
      grownPackets: (packets * grownSlices) / slices,
      grownSlices,
      slices,
    };
  };

  // The first run warms the JIT and is not counted.
  runOnce();
  const runs: Run[] = [];
  for (let i = 0; i < repetitions; i++) runs.push(runOnce());
  const first = runs[0]!;
  for (const run of runs) {
    if (run.packets !== first.packets || run.events !== first.events) {
      throw new Error(`packet-path bench is not deterministic: ${run.packets} vs ${first.packets} packets`);
    }
  }
  const best = runs.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
  const dropped = sum(first.drops, Object.keys(first.drops));
  const targetShare = dropped === 0 ? 0 : sum(first.drops, TARGET_REASONS) / dropped;
  // Not a timing: if the drops happen elsewhere, the figures describe some other path.
  if (targetShare < 0.5) throw new Error(`packet-path bench misses its path: only ${(100 * targetShare).toFixed(1)} % of drops are in it`);
  const simulatedSeconds = scenario.duration - leadInSeconds;
  const wallSeconds = best.wallMs / 1000;
  const clients = scenario.topology.nodes.reduce((n, node) => n + node.pods.length, 0) - 1;
  return {
    clients,
    connections: clients * scenario.params.client.connectionsPerPod,
    conntrackAllowance: scenario.params.instance.conntrackAllowance,
    reconnectMs: scenario.params.client.reconnectMs,
    connectTimeoutMs: scenario.params.client.connectTimeoutMs,
    leadInSeconds,
    simulatedSeconds,
    packets: best.packets,
    events: best.events,
    wallMs: best.wallMs,
    packetsPerSecond: best.packets / wallSeconds,
    eventsPerSecond: best.events / wallSeconds,
    simSecondsPerWallSecond: simulatedSeconds / wallSeconds,
    leadInDrops: first.leadInDrops,
    drops: first.drops,
    dropped,
    targetShare,
    heapBefore: first.heapBefore,
    heapAfter: first.heapAfter,
    heapBytesPerMillionPackets: ((first.heapAfter - first.heapBefore) / first.packets) * 1e6,
    growthBytesPerMillionPackets: first.grownPackets === 0 ? NaN : (first.grownBytes / first.grownPackets) * 1e6,
    slicesWithoutCollection: first.grownSlices,
    slices: first.slices,
  };
}

/** Prints the figures in the style of the other benchmarks. */
export function printPacketPath(f: PacketPathFigures, print: (line: string) => void = (line) => console.log(line)): void {
  print(
    `${fmt(f.clients)} client pods × ${f.connections / f.clients} connections redial a deleted pod ${f.reconnectMs} ms after ` +
      `each ${f.connectTimeoutMs} ms connect timeout; ENI mode, ${fmt(f.conntrackAllowance)} tracked connections per instance`,
  );
  print(`timed: ${f.simulatedSeconds} simulated s after a ${f.leadInSeconds} s untimed lead-in; best of the timed runs after a warm-up`);
  print(
    `${fmt(f.packets)} packets, ${fmt(f.events)} events in ${f.wallMs.toFixed(1)} ms → ` +
      `${fmt(f.packetsPerSecond)} packets/s, ${fmt(f.eventsPerSecond)} events/s, ` +
      `${f.simSecondsPerWallSecond.toFixed(1)} simulated s per wall s (${(f.events / f.packets).toFixed(2)} events per packet)`,
  );
  print(`drops by reason, timed window (${fmt(f.dropped)} in all, ${(100 * f.targetShare).toFixed(1)} % on the measured path) and lead-in:`);
  const reasons = Object.keys(f.drops)
    .filter((r) => (f.drops[r] ?? 0) + (f.leadInDrops[r] ?? 0) > 0)
    .sort((a, b) => (f.drops[b] ?? 0) - (f.drops[a] ?? 0));
  for (const r of reasons) print(`  ${r.padEnd(32)} ${fmt(f.drops[r] ?? 0).padStart(10)}  ${fmt(f.leadInDrops[r] ?? 0).padStart(10)}`);
  const deltaMb = (f.heapAfter - f.heapBefore) / 2 ** 20;
  print(
    `heapUsed around the timed window of the first timed run (an indication only: no forced GC): ` +
      `${mb(f.heapBefore)} → ${mb(f.heapAfter)} MB, ${deltaMb >= 0 ? '+' : ''}${deltaMb.toFixed(1)} MB = ` +
      `${(f.heapBytesPerMillionPackets / 2 ** 20).toFixed(1)} MB per million packets`,
  );
  print(
    `  growth within the ${f.slicesWithoutCollection} of ${f.slices} one-second slices that no collection shrank: ` +
      (Number.isNaN(f.growthBytesPerMillionPackets)
        ? 'none to measure'
        : `${(f.growthBytesPerMillionPackets / 2 ** 20).toFixed(1)} MB per million packets (${fmt(f.growthBytesPerMillionPackets / 1e6)} B per packet)`),
  );
}

function sum(counts: Record<string, number>, keys: readonly string[]): number {
  return keys.reduce((n, k) => n + (counts[k] ?? 0), 0);
}

function fmt(x: number): string {
  return Math.round(x).toLocaleString('en-US');
}

function mb(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}
