import { inspectEntity } from './inspect';
import type { FaultDescriptor, FaultRequest, LogEvent, RunReport, SeriesSlice, Sim } from './api';
import { digest } from './core/digest';
import { atSeconds, seconds, toSeconds, type SimTime } from './core/time';
import { createContext } from './context';
import { faultCatalog, findFault, FAULT_IDS } from './faults/catalog';
import { parseTarget, resolveParams } from './faults/fault';
import { evaluateExpectations, expectationsFor } from './report/expect';
import type { Scenario } from './scenario/schema';
import { World } from './world';
import { PacketCapture } from './report/packet-capture';
import { encodePcap } from './report/pcap';

export { faultCatalog, FAULT_IDS };

export interface SimOptions {
  /** Fix names applied when the scenario was loaded, recorded in the report. */
  fixes?: readonly string[];
  /** Keep the headers of one packet in every `every` that leave a socket, the latest `capacity` of them, for `pcap()`. */
  capture?: { every: number; capacity: number };
}

/** The composition root: builds the core services and the world for a validated scenario. */
export function createSim(scenario: Scenario, options: SimOptions = {}): Sim {
  let world: World | undefined;
  const ctx = createContext(scenario.seed, () => world?.touch());
  const { sched, metrics, log } = ctx;
  if (options.capture) ctx.capture = new PacketCapture(options.capture.every, options.capture.capacity);
  const w = (world = new World(ctx, scenario));
  const durationUs = atSeconds(scenario.duration);

  const inFlight = metrics.gauge('packets.in_flight');
  const sampleHandler = sched.register('metrics.sample', () => {
    inFlight.set(w.network.inFlight);
    w.sample();
    metrics.sample();
    if (sched.now + step <= durationUs) sched.after(step, sampleHandler);
  });
  const step = seconds(metrics.stepSeconds);
  sched.after(step, sampleHandler);

  const applyFault = (request: FaultRequest, cause: string): void => {
    const fault = findFault(request.fault);
    if (!fault) throw new Error(`fault: unknown fault "${request.fault}" (known: ${FAULT_IDS.join(', ')})`);
    const { kind, name } = parseTarget(fault, request.target);
    const params = resolveParams(fault, request.params);
    ctx.note('warn', request.target, 'fault.applied', `${fault.label} (${cause})`, { cause });
    fault.apply(w, kind, name, params, cause);
  };

  const timelineHandler = sched.register('fault.timeline', (index) => {
    const entry = scenario.timeline[index]!;
    try {
      applyFault({ fault: entry.fault, target: entry.target, params: entry.params }, `timeline[${index}]`);
    } catch (error) {
      ctx.note('error', entry.target, 'fault.failed', `timeline[${index}] ${entry.fault}: ${(error as Error).message}`);
    }
  });
  scenario.timeline.forEach((entry, index) => sched.at(atSeconds(entry.at), timelineHandler, index));

  const report = (wallMs: number): RunReport => {
    const totals = metrics.totals();
    const series = metrics.series();
    const drops = ctx.drops.totals();
    const core = {
      scenario: scenario.id,
      seed: scenario.seed,
      fixes: [...(options.fixes ?? [])],
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
        inFlight: w.network.inFlight,
      },
      traces: ctx.tracer.recent(),
      requests: ctx.requests.recent(),
      why: w.why(),
    };
  };

  return {
    scenarioId: scenario.id,
    seed: scenario.seed,
    fixes: options.fixes ?? [],
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
    applyFault: (request) => applyFault(request, 'user'),
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
    report,
    pcap: () => (ctx.capture ? encodePcap(ctx.capture) : null),
  };
}
