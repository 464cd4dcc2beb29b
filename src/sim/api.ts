import type { WhyChain } from './report/why';
import type { SimTime } from './core/time';

/** Plain-data views of a running simulation, shared by the worker, the CLI and tests. */

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
}

export interface NodeView {
  index: number;
  name: string;
  ip: string;
  podCidr: string;
  /** False once cordoned (drain-node, remove-node). */
  schedulable: boolean;
  /** False once removed from the cluster (remove-node) until it rejoins. */
  inCluster: boolean;
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
  /** `kind/name`, with kind one of the fault's `targets`: node, pod, deployment, service, router, lb or dns. */
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

/** The run report contract: later issues add keys, never remove these. */
export interface RunReport {
  scenario: string;
  seed: number;
  fixes: string[];
  simulatedSeconds: number;
  events: number;
  wallMs: number;
  drops: Record<string, number>;
  totals: Record<string, number>;
  series: Record<string, SeriesReport>;
  expect: ExpectResult[];
  digest: string;
  /** Every packet sent is delivered, dropped with a reason, or still in flight when the run stops. */
  packets: { sent: number; delivered: number; dropped: number; inFlight: number };
  /** Sampled packet traces (not part of the digest). */
  traces: PacketTrace[];
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
}
