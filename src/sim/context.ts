import type { Scheduler } from './core/scheduler';
import type { Rng } from './core/rng';
import type { Metrics } from './core/metrics';
import type { EventLog } from './core/event-log';
import type { DropLedger } from './report/drop-ledger';
import type { PacketTracer } from './report/packet-trace';
import type { Scenario } from './scenario/schema';
import type { LogEvent } from './api';

export type Params = Scenario['params'];

/** What every component of one run shares: the clock, randomness, instruments and parameters. */
export interface SimContext {
  sched: Scheduler;
  rng: Rng;
  metrics: Metrics;
  log: EventLog;
  drops: DropLedger;
  tracer: PacketTracer;
  params: Params;
  /** Logs a notable event at the current simulated time. */
  note(severity: LogEvent['severity'], entity: string, kind: string, message: string, extra?: { reason?: string; cause?: string }): void;
  /** Marks the topology view as changed so the UI redraws it. */
  touchTopology(): void;
}
