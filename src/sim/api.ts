import type { SimTime } from './core/time';
import type { Checkpoint } from './sim';

/** Plain-data views of a running simulation, shared by the worker, the CLI and tests. */

/** One link of a causal chain: where, what happened, and the recorded numbers behind it. */
export interface WhyStep {
  entity: string;
  text: string;
  /** When the step's fact last happened (simulated µs), where the step is one recorded fact. */
  at?: number;
}

/** From a symptom down to what set it off, each step read from facts the mechanisms recorded during the run. */
export interface WhyChain {
  symptom: string;
  /** The recorded fact the symptom is: its kind (a drop reason or a cause id), where, and how many times it happened. */
  cause: { kind: string; entity: string; count: number };
  steps: WhyStep[];
}

export type Severity = 'debug' | 'info' | 'warn' | 'error';

export interface LogEvent {
  /** Monotonic sequence number of the event within the run. */
  seq: number;
  t: SimTime;
  severity: Severity;
  /** Entity the event is about, as `kind/name` (e.g. `pod/web-0`, `node/node-a`). */
  entity: string;
  /** Stable event kind id (e.g. `pod.deleted`, `tcp.reset`). */
  kind: string;
  message: string;
  /** Drop reason id when the event records a drop. */
  reason?: string;
  /** Entity or event that caused this one, for the "why" chain. */
  cause?: string;
}

export type PodPhase = 'pending' | 'running' | 'terminating' | 'gone';

export interface PodView {
  index: number;
  name: string;
  node: string;
  ip: string;
  deployment: string;
  phase: PodPhase;
  ready: boolean;
  /** Gone, but the cloud still delivers its address to the instance (the IP is released later). */
  ipAttached: boolean;
}

export interface InterfaceView {
  name: string;
  kind: 'primary' | 'secondary' | 'tunnel';
  /** Null when the interface has no IPv4 address (an ENI that only carries pod addresses). */
  ip: string | null;
  /** net.ipv4.conf.<dev>.rp_filter; the kernel applies max(all, dev). */
  rpFilter: number;
}

export interface NodeView {
  index: number;
  name: string;
  ip: string;
  podCidr: string;
  platform: 'cloud' | 'bare-metal';
  /** net.ipv4.conf.all.rp_filter. */
  rpFilter: number;
  interfaces: InterfaceView[];
  conntrackMax: number;
  /** The cloud instance (its hypervisor) the node runs on, with its tracked-connection allowance. */
  instance: { entity: string; allowance: number } | null;
  /** Node-local DNS's cap on concurrent upstream queries, when the node runs it. */
  dnsMaxConcurrent: number | null;
  /** False once cordoned (drain-node, remove-node). */
  schedulable: boolean;
  /** False for a node not yet joined (`joined: false`) or removed (remove-node), until join-node registers it. */
  inCluster: boolean;
  /** False once the machine has lost power (power-off-node). */
  powered: boolean;
  /** False once its rack's top-of-rack switch has failed (fail-rack-switch): it runs, and the wire reaches it no more. */
  uplinkUp: boolean;
  /** The Node object's labels (rack, zone, kubernetes.io/hostname), which the scheduler's topology keys read. */
  labels: Readonly<Record<string, string>>;
  /** Where the machine stands (topology.nodes[].rack and .room), which its labels may or may not say. */
  rack: string | null;
  room: string | null;
}

export interface RouterView {
  name: string;
  entity: string;
  ip: string;
  ecmp: string;
  hashSeed: number;
}

export interface LoadBalancerView {
  name: string;
  entity: string;
  ip: string;
}

/** Something outside the cluster: a resolver, a DNS provider's API, a client on the internet. */
export interface ExternalView {
  entity: string;
  name: string;
  ip: string | null;
  kind: 'resolver' | 'dns-provider' | 'client' | 'zookeeper';
}

export interface ServiceView {
  name: string;
  clusterIp: string;
  port: number;
  selector: string;
  /** Pod names currently in the Service's endpoints (as kube-proxy on nodes sees them). */
  endpoints: string[];
}

export interface TopologyView {
  /** Increments whenever structure changes, so consumers can skip re-rendering. */
  version: number;
  nodes: NodeView[];
  pods: PodView[];
  services: ServiceView[];
  routers: RouterView[];
  loadBalancers: LoadBalancerView[];
  externals: ExternalView[];
  /** The `dns/...` fault target each DNS box stands for, by entity or `deployment/<name>`; empty without DNS. */
  dnsTargets: Readonly<Record<string, string>>;
  /**
   * Where packets can be counted and dropped, in the order live traffic and drop counts refer to them: every node
   * (by node index), then the packet elements (routers, load balancers, external hosts), then instances and the fabric.
   */
  sites: string[];
}

export type MemberHealthView = 'unknown' | 'up' | 'down';

export interface LbMemberView {
  lb: string;
  virtualServer: string;
  ip: string;
  port: number;
  kind: 'node' | 'pod';
  health: MemberHealthView;
}

/** A BGP session between a speaker on a node and a router. */
export interface BgpSessionView {
  router: string;
  /** The speaker's node, `node/<name>`. */
  node: string;
  up: boolean;
  /** Routes the router holds from this session now. */
  routes: number;
}

export interface RouterRouteView {
  router: string;
  prefix: string;
  /** Next-hop addresses in ECMP order. */
  nextHops: string[];
}

/**
 * Numbers that change every frame, kept out of the structure so the structure is sent only when it changes. Node
 * arrays are by node index; -1 where a node has no such thing (no instance, no node-local DNS).
 */
export interface LiveView {
  conntrackUsed: Float64Array;
  instanceTracked: Float64Array;
  dnsInFlight: Float64Array;
  members: LbMemberView[];
  routes: RouterRouteView[];
  bgpSessions: BgpSessionView[];
  /** kube-proxy on each node: Services with changes not yet being written, and whether a sync is running (1) or not (0). */
  kubeProxyPending: Float64Array;
  kubeProxySyncing: Uint8Array;
  /** Packets between sites during the last metrics step, as quads: from site, to site, packets, connection attempts (first SYNs). */
  traffic: Float64Array;
  /** Drops by site and reason during the last metrics step: drops[site * reasons.length + r]. */
  drops: Float64Array;
  reasons: readonly string[];
  /** The metrics step `traffic` and `drops` cover: when it ended (simulated µs; 0 before the first) and how long it was. */
  step: { end: number; seconds: number };
}

/** One block of an entity's live state in the inspector: labelled values, computed by the simulation. */
export interface InspectSection {
  title: string;
  rows: [label: string, value: string][];
  /** Rows left out to keep the block short. */
  more?: number;
}

export interface Inspection {
  entity: string;
  sections: InspectSection[];
  /** The latest sampled packets that passed through the entity, newest first, each traced hop by hop. */
  traces: PacketTrace[];
  /** The latest sampled HTTP requests that passed through the entity, newest first. */
  requests: RequestJourney[];
}

/** Connection states drawn by the UI; numeric so they travel in typed arrays. */
export const ConnState = { connecting: 0, established: 1, closing: 2 } as const;
export type ConnStateId = (typeof ConnState)[keyof typeof ConnState];

/** A fault parameter's value: a number, a switch, or one of a `choice` parameter's words. */
export type FaultParamValue = number | boolean | string;

export interface FaultParamDescriptor {
  name: string;
  label: string;
  kind: 'number' | 'boolean' | 'choice';
  default: FaultParamValue;
  min?: number;
  max?: number;
  /** Numbers only: whole numbers only. */
  integer?: boolean;
  unit?: string;
  /** `choice` only: the words it accepts, the default among them. */
  choices?: string[];
}

export interface FaultDescriptor {
  id: string;
  label: string;
  icon: string;
  description: string;
  targets: string[];
  params: FaultParamDescriptor[];
}

export interface FaultRequest {
  fault: string;
  /** `kind/name`, with kind one of the fault's `targets`: node, pod, deployment, service, router, lb, dns or external. */
  target: string;
  params?: Record<string, FaultParamValue>;
}

export interface SeriesReport {
  stepSeconds: number;
  values: number[];
}

export interface ExpectResult {
  description: string;
  metric: string;
  agg: string;
  op: string;
  value: number;
  actual: number | null;
  held: boolean;
  /** Why there is no actual value, when there is none. */
  missing?: string;
}

export interface TraceHop {
  t: SimTime;
  where: string;
  what: string;
}

/** The hop-by-hop story of one sampled packet. */
export interface PacketTrace {
  id: number;
  summary: string;
  hops: TraceHop[];
}

/** What a server made of a request's source: the client's own address, one of the infrastructure's, or one a client wrote. */
export type ClientAddressVerdict = 'client' | 'internal' | 'forged';
/** Cause kinds a server records when the client address it logged was not the client's, for the "why" chains. */
export const CLIENT_ADDRESS_CAUSES = { internal: 'client_ip_internal', forged: 'client_ip_forged' } as const;
export const CLIENT_ADDRESS_TEXT: Record<ClientAddressVerdict, string> = {
  client: "the client's own address",
  internal: 'an address inside the data centre',
  forged: 'an address the client wrote itself',
};

/** A sampled HTTP request at one hop: its addresses as they left (or reached) the hop, and its X-Forwarded-For then. */
export interface RequestHop {
  t: SimTime;
  where: string;
  what: string;
  /** `ip:port`. */
  src: string;
  dst: string;
  /** The X-Forwarded-For value, '' when the request carries none. */
  xff: string;
  /** The same list as an RFC 7239 Forwarded value, when there is one. */
  forwarded?: string;
}

/** One sampled HTTP request from its client to the server that answered it, across proxies and address translations. */
export interface RequestJourney {
  id: number;
  /** The address the request came from, as the simulation knows it. */
  origin: string;
  summary: string;
  hops: RequestHop[];
  /** The client address the server logged, and what it really was. */
  logged?: { address: string; verdict: ClientAddressVerdict };
}

/** The run report contract: later issues add keys, never remove these. */
export interface RunReport {
  scenario: string;
  seed: number;
  fixes: string[];
  simulatedSeconds: number;
  events: number;
  wallMs: number;
  /** Every drop reason that happened with its count: packet reasons, which add up to packets.dropped, and request reasons (a REFUSED answer). */
  drops: Record<string, number>;
  totals: Record<string, number>;
  series: Record<string, SeriesReport>;
  expect: ExpectResult[];
  digest: string;
  /** Every packet sent is delivered, dropped with a reason, or still in flight when the run stops. */
  packets: { sent: number; delivered: number; dropped: number; inFlight: number };
  /** Sampled packet traces (not part of the digest). */
  traces: PacketTrace[];
  /** Sampled HTTP requests hop by hop, with their source addresses and forwarded headers (not part of the digest). */
  requests: RequestJourney[];
  /** Causal chains from the main symptoms down to what set them off, read from recorded causes (not part of the digest). */
  why: WhyChain[];
}

/** Samples recorded since a given sample index, row-major by series name. */
export interface SeriesSlice {
  names: string[];
  stepSeconds: number;
  from: number;
  count: number;
  values: Float64Array;
}

/** A running simulation. Created by `createSim` in `sim.ts`; driven by the worker, the CLI and tests. */
export interface Sim {
  readonly scenarioId: string;
  readonly seed: number;
  readonly fixes: readonly string[];
  readonly durationUs: SimTime;
  now(): SimTime;
  /** Runs the next event; false when none is left before the end of the run. */
  step(): boolean;
  /** Runs every event up to and including `t` (capped at the run's duration) and sets the clock to it. */
  runUntil(t: SimTime): void;
  done(): boolean;
  eventsExecuted(): number;
  /** Applies a fault now; throws an Error whose message names the bad field. */
  applyFault(request: FaultRequest): void;
  faultCatalog(): FaultDescriptor[];
  topology(): TopologyView;
  live(): LiveView;
  /** The live state of one entity (`kind/name`), or null when the run has no such entity. */
  inspect(entity: string): Inspection | null;
  /** The causal chain behind a symptom (drop reason or error kind) at an entity, or where it happened most. */
  whyOf(kind: string, entity?: string): WhyChain | null;
  /** The version `topology()` would report, without building the view. */
  topologyVersion(): number;
  /** Live connections as triples: client pod index, server pod index, ConnState id. */
  connections(): Int32Array;
  /** Number of samples recorded so far in every series. */
  sampleCount(): number;
  seriesSince(from: number): SeriesSlice;
  eventsSince(seq: number): LogEvent[];
  drops(): Record<string, number>;
  report(wallMs: number): RunReport;
  /** The packets captured so far as a classic pcap file; null unless the sim was created with a capture. */
  pcap(): Uint8Array | null;
  /** A copy of the whole run as it is now, from which `restoreSim` goes on exactly as this run will. */
  checkpoint(): Checkpoint;
}
