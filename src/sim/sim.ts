import { inspectEntity } from './inspect';
import type { FaultDescriptor, FaultRequest, LogEvent, RunReport, SeriesSlice, Sim } from './api';
import { digest } from './core/digest';
import { atSeconds, seconds, toSeconds, type Duration, type SimTime } from './core/time';
import { createContext } from './context';
import { faultCatalog, findFault, FAULT_IDS } from './faults/catalog';
import { parseTarget, resolveParams } from './faults/fault';
import { evaluateExpectations, expectationsFor } from './report/expect';
import type { Scenario } from './scenario/schema';
import { World } from './world';
import { bound, freeze, thaw, type Frozen } from './core/snapshot';
import type { HandlerId } from './core/scheduler';
import type { Gauge } from './core/instruments';
import { PacketCapture } from './report/packet-capture';
import { encodePcap } from './report/pcap';

export { faultCatalog, FAULT_IDS };

export interface SimOptions {
  /** Fix names applied when the scenario was loaded, recorded in the report. */
  fixes?: readonly string[];
  /** Keep the headers of one packet in every `every` that leave a socket, the latest `capacity` of them, for `pcap()`. */
  capture?: { every: number; capacity: number };
}

/** One run's whole state: what a checkpoint copies. The Sim a caller holds is a view of it. */
export class Run {
  readonly ctx: ReturnType<typeof createContext>;
  readonly world: World;
  readonly durationUs: SimTime;
  private readonly step: Duration;
  private readonly inFlight: Gauge;
  private readonly sampleHandler: HandlerId;
  private readonly timelineHandler: HandlerId;

  constructor(
    readonly scenario: Scenario,
    readonly fixes: readonly string[],
    capture: SimOptions['capture'],
  ) {
    const ctx = (this.ctx = createContext(scenario.seed));
    if (capture) ctx.capture = new PacketCapture(capture.every, capture.capacity);
    this.world = new World(ctx, scenario);
    ctx.watcher = this.world;
    this.durationUs = atSeconds(scenario.duration);
    const { sched, metrics } = ctx;
    this.inFlight = metrics.gauge('packets.in_flight');
    this.step = seconds(metrics.stepSeconds);
    this.sampleHandler = sched.register('metrics.sample', bound(this, this.sample));
    sched.after(this.step, this.sampleHandler);
    this.timelineHandler = sched.register('fault.timeline', bound(this, this.timelineEntry));
    scenario.timeline.forEach((entry, index) => sched.at(atSeconds(entry.at), this.timelineHandler, index));
  }

  sample(): void {
    const { sched, metrics } = this.ctx;
    this.inFlight.set(this.world.network.inFlight);
    this.world.sample();
    metrics.sample();
    if (sched.now + this.step <= this.durationUs) sched.after(this.step, this.sampleHandler);
  }

  timelineEntry(index: number): void {
    const entry = this.scenario.timeline[index]!;
    try {
      this.applyFault({ fault: entry.fault, target: entry.target, params: entry.params }, `timeline[${index}]`);
    } catch (error) {
      this.ctx.note('error', entry.target, 'fault.failed', `timeline[${index}] ${entry.fault}: ${(error as Error).message}`);
    }
  }

  applyFault(request: FaultRequest, cause: string): void {
    const fault = findFault(request.fault);
    if (!fault) throw new Error(`fault: unknown fault "${request.fault}" (known: ${FAULT_IDS.join(', ')})`);
    const { kind, name } = parseTarget(fault, request.target);
    const params = resolveParams(fault, request.params);
    this.ctx.note('warn', request.target, 'fault.applied', `${fault.label} (${cause})`, { cause });
    fault.apply(this.world, kind, name, params, cause);
  }

  report(wallMs: number): RunReport {
    const { ctx, world, scenario } = this;
    const { metrics, sched, log } = ctx;
    const totals = metrics.totals();
    const series = metrics.series();
    const drops = ctx.drops.totals();
    const core = {
      scenario: scenario.id,
      seed: scenario.seed,
      fixes: [...this.fixes],
      simulatedSeconds: toSeconds(sched.now),
      drops,
      totals,
      series,
    };
    return {
      ...core,
      // Not in the digest: the digest is what the run produced, and cohorts produce the same with fewer events.
      events: sched.executed,
      wallMs,
      expect: evaluateExpectations(expectationsFor(scenario.expect, core.fixes), totals, series, metrics.sampleCount()),
      digest: digest({ ...core, eventCounts: log.countsByKind() }),
      packets: {
        sent: totals['packets.sent'] ?? 0,
        delivered: totals['packets.delivered'] ?? 0,
        dropped: ctx.drops.total,
        inFlight: world.network.inFlight,
      },
      traces: ctx.tracer.recent(),
      requests: ctx.requests.recent(),
      why: world.why(),
    };
  }
}

/** A run's state at one moment, to start runs from that moment again: see `Sim.checkpoint` and `restoreSim`. */
export interface Checkpoint {
  readonly atUs: SimTime;
  readonly events: number;
  readonly state: Frozen<Run>;
}

function simOf(run: Run): Sim {
  const { ctx, world: w, scenario, durationUs } = run;
  const { sched, metrics, log } = ctx;
  return {
    scenarioId: scenario.id,
    seed: scenario.seed,
    fixes: run.fixes,
    durationUs,
    now: () => sched.now,
    step: () => {
      const next = sched.nextTime();
      if (next === undefined || next > durationUs) return false;
      return sched.step();
    },
    runUntil: (t: SimTime) => {
      sched.runUntil(Math.min(t, durationUs) as SimTime);
    },
    done: () => sched.now >= durationUs,
    eventsExecuted: () => sched.executed,
    applyFault: (request) => run.applyFault(request, 'user'),
    faultCatalog: (): FaultDescriptor[] => faultCatalog(),
    topology: () => w.topology(),
    live: () => w.live(),
    inspect: (entity) => inspectEntity(w, entity),
    whyOf: (kind, entity) => w.whyOf(kind, entity),
    topologyVersion: () => w.version,
    connections: () => w.connections(),
    sampleCount: () => metrics.sampleCount(),
    seriesSince: (from: number): SeriesSlice => metrics.seriesSince(from),
    eventsSince: (seq: number): LogEvent[] => log.since(seq),
    drops: () => ctx.drops.totals(),
    report: (wallMs) => run.report(wallMs),
    pcap: () => (ctx.capture ? encodePcap(ctx.capture) : null),
    checkpoint: (): Checkpoint => ({ atUs: sched.now, events: sched.executed, state: freeze(run) }),
  };
}

/** The composition root: builds the core services and the world for a validated scenario. */
export function createSim(scenario: Scenario, options: SimOptions = {}): Sim {
  return simOf(new Run(scenario, options.fixes ?? [], options.capture));
}

/** A run that goes on from a checkpoint exactly as the run it was taken from went on; the checkpoint can be restored again. */
export function restoreSim(checkpoint: Checkpoint): Sim {
  return simOf(thaw(checkpoint.state));
}
