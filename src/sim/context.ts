import { Scheduler } from './core/scheduler';
import { Rng } from './core/rng';
import { Metrics } from './core/metrics';
import { EventLog } from './core/event-log';
import { seconds } from './core/time';
import { DropLedger } from './report/drop-ledger';
import { PacketTracer } from './report/packet-trace';
import { HttpRequests } from './apps/http-request';
import { CauseLog } from './report/causes';
import type { PacketCapture } from './report/packet-capture';
import type { LogEvent } from './api';

/** What every component of one run shares: the clock, randomness and instruments; parameters come to each one as it is built. */
export interface SimContext {
  sched: Scheduler;
  rng: Rng;
  metrics: Metrics;
  log: EventLog;
  drops: DropLedger;
  tracer: PacketTracer;
  /** HTTP requests in flight with their headers, and the sampled ones' journeys. */
  requests: HttpRequests;
  /** Facts for the "why" chains of the run report. */
  causes: CauseLog;
  /** Headers of sent packets for a pcap file, when asked for. */
  capture: PacketCapture | null;
  /** Logs a notable event at the current simulated time. */
  note(severity: LogEvent['severity'], entity: string, kind: string, message: string, extra?: { reason?: string; cause?: string }): void;
  /** Marks the topology view as changed so the UI redraws it. */
  touchTopology(): void;
}

// One packet in a thousand keeps its hop-by-hop story; enough to explain a drop without slowing the hot path.
const TRACE_SAMPLE_RATE = 0.001;
const TRACE_CAPACITY = 50;

/** What redraws the picture when the topology changes: the world, once it is built. */
export interface TopologyWatcher {
  touch(): void;
}

export class RunContext implements SimContext {
  readonly sched = new Scheduler();
  readonly rng: Rng;
  readonly metrics = new Metrics({ stepUs: seconds(1) });
  readonly log = new EventLog();
  readonly drops = new DropLedger(this.metrics);
  readonly tracer: PacketTracer;
  readonly requests = new HttpRequests();
  readonly causes = new CauseLog();
  capture: PacketCapture | null = null;
  watcher: TopologyWatcher | null = null;

  constructor(seed: number) {
    this.rng = new Rng(seed);
    this.tracer = new PacketTracer(this.rng.stream('trace'), TRACE_SAMPLE_RATE, TRACE_CAPACITY);
  }

  note(severity: LogEvent['severity'], entity: string, kind: string, message: string, extra?: { reason?: string; cause?: string }): void {
    this.log.add({ t: this.sched.now, severity, entity, kind, message, ...extra });
  }

  touchTopology(): void {
    this.watcher?.touch();
  }
}

/** The shared services of one run, with series sampled every simulated second; `watcher` may be set once it exists. */
export function createContext(seed: number): SimContext & { watcher: TopologyWatcher | null } {
  return new RunContext(seed);
}
