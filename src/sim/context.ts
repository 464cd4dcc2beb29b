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

/** The shared services of one run, with series sampled every simulated second. */
export function createContext(seed: number, onTopologyChange: () => void = () => {}): SimContext {
  const sched = new Scheduler();
  const rng = new Rng(seed);
  const metrics = new Metrics({ stepUs: seconds(1) });
  const log = new EventLog();
  return {
    sched,
    rng,
    metrics,
    log,
    drops: new DropLedger(metrics),
    tracer: new PacketTracer(rng.stream('trace'), TRACE_SAMPLE_RATE, TRACE_CAPACITY),
    requests: new HttpRequests(),
    causes: new CauseLog(),
    capture: null,
    note: (severity, entity, kind, message, extra) => log.add({ t: sched.now, severity, entity, kind, message, ...extra }),
    touchTopology: onTopologyChange,
  };
}
