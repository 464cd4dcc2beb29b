/**
 * The shipped replay of the first incident, "It wasn't DNS" (public/scenarios/its-not-dns.yaml): the signatures the
 * talk describes, emerging at its scale, and what each of the scenario's fixes does to them.
 *
 * A run of 2,000 gRPC clients is expensive, so: the property suite already runs the whole scenario and checks every
 * `expect` it ships (recovery at the end included); here the base run goes once, for the whole file, only as far as
 * the clients' second re-resolution; a fix run stops as soon as it has shown what the fix changes; and the node-side
 * verdict (rp_filter, the node's conntrack, the hypervisor's table) is read from the world itself a second after
 * five old pods are gone.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LogEvent, RunReport, SeriesReport } from '../../src/sim/api';
import { atSeconds, seconds, type SimTime } from '../../src/sim/core/time';
import { formatIpv4 } from '../../src/sim/net/ipv4';
import type { Pod } from '../../src/sim/infra/pod';
import { Proto } from '../../src/sim/net/packet';
import { TcpState, type Socket } from '../../src/sim/net/tcp';
import { loadScenario } from '../../src/sim/scenario/load';
import { knobsOf } from '../../src/sim/scenario/params';
import type { Scenario } from '../../src/sim/scenario/schema';
import { createSim, FAULT_IDS } from '../../src/sim/sim';
import { fixRolloutProblem } from '../../src/sim/faults/roll-out-fix';
import { worldOf } from '../fixtures/scenario-run';

const FILE = 'its-not-dns.yaml';
const TEXT = readFileSync(new URL(`../../public/scenarios/${FILE}`, import.meta.url), 'utf8');

function load(fixes: string[] = [], sets: string[] = []): Scenario {
  const loaded = loadScenario(TEXT, FILE, { faultIds: FAULT_IDS, fixes, sets });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  return loaded.scenario;
}

const SCENARIO = load();
const ROLLOUT_AT = SCENARIO.timeline.find((e) => e.fault === 'rolling-update' && e.target === 'deployment/metric')!.at;
const METRIC = SCENARIO.topology.deployments['metric']!;
// With maxUnavailable 0 the first old pods get SIGTERM when the first new ones turn Ready ...
const FIRST_DELETION = ROLLOUT_AT + METRIC.readySeconds!;
// ... and are killed at the end of their grace period; each later batch follows 10 s after the one before.
const GRACE_S = knobsOf(SCENARIO.params, 'metric').gracePeriodS!;
const FIRST_KILL = FIRST_DELETION + GRACE_S;
const ALLOWANCE = SCENARIO.params.instance.conntrackAllowance;
const MAX_CONCURRENT = SCENARIO.params.dns.maxConcurrent;
const RESOLUTION_S = knobsOf(SCENARIO.params, 'alerting').resolutionIntervalS!;
const CLIENTS = SCENARIO.topology.deployments['alerting']!.replicas!;
/** The metric pods the scenario starts with, their nodes and addresses; the rollout replaces them from the last. */
const OLD_PODS = SCENARIO.topology.nodes.flatMap((node) => node.pods.filter((p) => p.deployment === 'metric').map((p) => ({ name: p.name, node: node.name, ip: p.ip! })));
const OLD_IPS = OLD_PODS.map((p) => p.ip);
const BATCH = OLD_PODS.length / 4;
/** The old pods in the order they go: five at a time, metric-19 first. */
const batch = (n: number) => OLD_PODS.slice(OLD_PODS.length - (n + 1) * BATCH, OLD_PODS.length - n * BATCH);
// The clients resolve when the first GOAWAYs arrive, then at most every RESOLUTION_S: the two steps the run covers.
const FIRST_STEP = FIRST_DELETION + RESOLUTION_S;
const SECOND_STEP = FIRST_STEP + RESOLUTION_S;
/** Where the base run stops: just past the second step, when the last old address has been left. */
const BASE_UNTIL = SECOND_STEP + 1;

// ---------------------------------------------------------------------------------------------------------------
// Running and reading runs.

// Event kinds whose every occurrence the base run keeps; the event log itself holds only the latest 2,000.
const KEEP = new Set(['grpc.server.dns-error', 'dns.upstream.down', 'dns.forward.saturated', 'pod.created', 'pod.terminating', 'pod.gone']);
// Polling the log this often (simulated) keeps up with it once the run is under way; only the start-up burst (every
// pod created at 0 s) is more than the log holds.
const POLL = seconds(0.05);

interface Run {
  report: RunReport;
  kept: LogEvent[];
  /** Events the log dropped before they were read, after the rollout began. */
  lost: number;
}

/** Runs the scenario with `fixes` and `sets` until `untilS`; `keep` reads the event log as it goes (it costs a little). */
function run(fixes: string[], untilS: number, keep = false, sets: string[] = []): Run {
  const loaded = loadScenario(TEXT, FILE, { faultIds: FAULT_IDS, fixes, sets });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const sim = createSim(loaded.scenario, { fixes: loaded.appliedFixes });
  const end = atSeconds(untilS);
  const kept: LogEvent[] = [];
  let next = 0;
  let lost = 0;
  const started = performance.now();
  if (!keep) sim.runUntil(end as SimTime);
  for (let t = sim.now() as number; t < end;) {
    t = Math.min(end, t + POLL);
    sim.runUntil(t as SimTime);
    const events = sim.eventsSince(next);
    if (events.length > 0) {
      if (t > atSeconds(ROLLOUT_AT)) lost += events[0]!.seq - next;
      next = events[events.length - 1]!.seq + 1;
    }
    for (const e of events) if (KEEP.has(e.kind)) kept.push(e);
  }
  const wallMs = performance.now() - started;
  const report = sim.report(Math.round(wallMs));
  // Left in on purpose: the file's cost is part of what it reports.
  console.info(`its-not-dns ${[...fixes, ...sets].join(' ') || 'base'} to ${report.simulatedSeconds} s: ${(wallMs / 1000).toFixed(1)} s wall`);
  return { report, kept, lost };
}

function series(r: RunReport, name: string): SeriesReport {
  const s = r.series[name];
  if (!s) throw new Error(`no series ${name}`);
  return s;
}

/** Values of a series for the seconds [from, to): sample k covers (k, k + 1]. */
function values(r: RunReport, name: string, from = 0, to = Infinity): number[] {
  return series(r, name).values.slice(from, Math.min(to, r.simulatedSeconds));
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const max = (xs: number[]) => xs.reduce((a, b) => Math.max(a, b), -Infinity);
const total = (r: RunReport, name: string, from = 0, to = Infinity) => sum(values(r, name, from, to));

/** New flows per second to the given addresses, all of them together (the flow-log view, summed). */
function flowsTo(r: RunReport, ips: string[], from = 1, to = Infinity): number[] {
  const out = new Array<number>(Math.max(0, Math.min(to, r.simulatedSeconds) - from)).fill(0);
  for (const ip of ips) {
    // An address nobody ever dialled has no series.
    if (r.series[`flows.new{dst=${ip}}`]) values(r, `flows.new{dst=${ip}}`, from, to).forEach((v, i) => (out[i]! += v));
  }
  return out;
}
const flowsToOldIps = (r: RunReport, from = 1, to = Infinity) => flowsTo(r, OLD_IPS, from, to);

const drops = (r: RunReport, reason: string, from = 0, to = Infinity) => total(r, `packets.dropped{reason=${reason}}`, from, to);

/** A fix's `set`, as the `path=value` strings `--set` takes, so the world-level checks apply exactly the shipped fix. */
function fixSets(name: string): string[] {
  const fix = SCENARIO.fixes[name];
  if (!fix) throw new Error(`the scenario has no fix ${name}`);
  return Object.entries(fix.set).map(([path, value]) => `${path}=${String(value)}`);
}

// ---------------------------------------------------------------------------------------------------------------

let base: Run;

beforeAll(() => {
  base = run([], BASE_UNTIL, true);
}, 900_000);

describe('its-not-dns.yaml', () => {
  it('is at the talk’s scale, with every knob the issue names addressable by --set', () => {
    expect(CLIENTS).toBe(2000);
    expect(SCENARIO.topology.nodes.length).toBeGreaterThanOrEqual(50);
    expect(SCENARIO.topology.nodes.every((n) => n.platform === 'cloud')).toBe(true);
    expect(OLD_PODS.length).toBe(20);
    expect(METRIC.terminationGracePeriodSeconds).toBe(GRACE_S);
    expect(SCENARIO.topology.dns).toMatchObject({ nodeLocal: true, externalDns: { deployment: 'metric' } });
    expect(SCENARIO.params.externalDns).toMatchObject({ intervalS: 15, deregisterOn: 'delete' });
    expect(SCENARIO.params['alerting']).toMatchObject({ lbPolicy: 'round_robin', reconnect: 'fixed', reconnectIntervalMs: 300 });
    const knobs: [string, unknown][] = [
      ['params.alerting.replicas', 1000],
      ['params.alerting.lbPolicy', 'pick_first'],
      ['params.alerting.reconnect', 'backoff'],
      ['params.alerting.reconnectIntervalMs', 1000],
      ['params.alerting.resolutionIntervalS', 5],
      ['params.metric.replicas', 16],
      ['params.metric.gracePeriodS', 30],
      ['params.instance.conntrackAllowance', 150000],
      ['params.node.rpFilter', 0],
      ['params.node.podInterfaceHasIp', true],
      ['params.dns.maxConcurrent', 5000],
      ['params.dns.upstreamTimeoutS', 2],
      ['params.externalDns.intervalS', 60],
      ['params.externalDns.deregisterOn', 'sigterm'],
      ['params.externalDns.recordTtlS', 5],
    ];
    for (const [path, value] of knobs) {
      const scenario = load([], [`${path}=${String(value)}`]);
      const at = path
        .split('.')
        .slice(1)
        .reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], scenario.params);
      expect(at, path).toEqual(value);
    }
  });

  it('ships an expectation for each signature, says what each fix does, and points its chapters at its charts and fixes', () => {
    const metrics = new Set(SCENARIO.expect.map((e) => e.metric.replace(/\{.*\}$/, '')));
    for (const metric of [
      'grpc.server.errors',
      'grpc.client.retries',
      'grpc.client.ok',
      'grpc.client.failed',
      'grpc.client.latency_ms.p99',
      'flows.new',
      'packets.dropped',
      'hypervisor.conntrack.used',
      'hypervisor.conntrack_allowance_exceeded',
      'dns.nodelocal.forward.healthcheck_failures',
      'dns.nodelocal.inflight',
      'dns.nodelocal.refused',
      'dns.nodelocal.memory_bytes',
      'grpc.client.switchover_s.count',
    ]) {
      expect(metrics, metric).toContain(metric);
    }
    for (const [name, fix] of Object.entries(SCENARIO.fixes)) {
      expect(fix.description, name).not.toMatch(/\bTBD\b/i);
      expect(fix.description.length, name).toBeGreaterThan(100);
    }
    // The allowance of network-optimised instances is ours to choose: between the base and twice the base.
    const networkOptimized = SCENARIO.fixes['network-optimized']!;
    expect(networkOptimized.description).toMatch(/model choice/);
    const allowance = Number(networkOptimized.set['params.instance.conntrackAllowance']);
    expect(allowance / ALLOWANCE).toBeGreaterThanOrEqual(1.3);
    expect(allowance / ALLOWANCE).toBeLessThanOrEqual(1.5);
    // Chapters in time order; between them their actions name every chart tab and every fix.
    const at = SCENARIO.chapters.map((c) => c.at);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    const actions = SCENARIO.chapters.map((c) => c.action ?? '').join('\n');
    for (const chart of SCENARIO.charts) expect(actions, chart.title).toContain(chart.title);
    for (const fix of Object.keys(SCENARIO.fixes)) expect(actions, fix).toContain(fix);
  });

  describe('the incident, as shipped', () => {
    it('charts only series the run reports', () => {
      const names = Object.keys(base.report.series);
      for (const chart of SCENARIO.charts) {
        for (const { metric } of chart.series) {
          const where = `${chart.title}: ${metric}`;
          if (chart.kind === 'histogram')
            expect(
              names.some((n) => n.startsWith(`${metric}.le_`)),
              where,
            ).toBe(true);
          else if (metric.endsWith('=*}')) expect(names.filter((n) => n.startsWith(metric.slice(0, -2))).length, where).toBeGreaterThan(5);
          else expect(names, where).toContain(metric);
        }
      }
    });

    it('floods the deleted pods’ addresses with tens of thousands of SYNs a second', () => {
      const r = base.report;
      const flows = flowsToOldIps(r);
      expect(max(flows)).toBeGreaterThan(50_000);
      expect(sum(flows)).toBeGreaterThan(2_000_000);
      // Nobody opened a connection to an old pod while it lived: the flood is the redial after its deletion.
      expect(sum(flowsToOldIps(r, 1, FIRST_DELETION))).toBe(0);
      // Every client dials every old address, more than once a second: the flows per address exceed the clients.
      for (const ip of OLD_IPS) expect(max(values(r, `flows.new{dst=${ip}}`, FIRST_DELETION)), ip).toBeGreaterThan(1.5 * CLIENTS);
    });

    it('resets the redials for the grace period, then lets them go unanswered: the second, misaligned spike', () => {
      const r = base.report;
      const first = batch(0).map((p) => p.ip);
      const grace: [number, number] = [FIRST_DELETION, FIRST_KILL];
      // While the first old pods live out their grace period with the listener closed, every SYN to them gets a
      // reset and none goes unanswered ...
      expect(sum(flowsTo(r, first, ...grace))).toBeGreaterThan(50_000);
      expect(drops(r, 'no_socket_reset', ...grace)).toBeGreaterThanOrEqual(sum(flowsTo(r, first, ...grace)));
      expect(drops(r, 'rp_filter_martian', 0, FIRST_KILL)).toBe(0);
      // ... and the flow log's spike for the first address comes in that time.
      const flows = values(r, `flows.new{dst=${first[first.length - 1]}}`);
      expect(flows.indexOf(max(flows))).toBeLessThan(FIRST_KILL);
      // Once they are killed the SYNs go unanswered, and those keep climbing as more old pods go: their peak comes
      // at least ten seconds after the flows began, at tens of thousands a second.
      const martians = values(r, 'packets.dropped{reason=rp_filter_martian}');
      expect(martians[FIRST_KILL]).toBeGreaterThan(0);
      expect(martians.indexOf(max(martians))).toBeGreaterThanOrEqual(FIRST_KILL + 10);
      expect(max(martians)).toBeGreaterThanOrEqual(35_000);
    });

    it('fills the receiving instances’ tracked-connection allowance, not the clients’', () => {
      const r = base.report;
      for (const pod of OLD_PODS) {
        expect(max(values(r, `hypervisor.conntrack.used{instance=${pod.node}}`)), pod.node).toBe(ALLOWANCE);
        expect(total(r, `hypervisor.conntrack_allowance_exceeded{instance=${pod.node}}`), pod.node).toBeGreaterThan(1000);
      }
      // Every other instance has a series of its own, and stays under the allowance.
      const others = SCENARIO.topology.nodes.filter((n) => !OLD_PODS.some((p) => p.node === n.name));
      expect(others.length).toBe(80);
      for (const n of others) {
        expect(max(values(r, `hypervisor.conntrack.used{instance=${n.name}}`)), n.name).toBeLessThan(ALLOWANCE);
        expect(total(r, `hypervisor.conntrack_allowance_exceeded{instance=${n.name}}`), n.name).toBe(0);
      }
      // Before the rollout nothing at all is dropped.
      expect(total(r, 'packets.dropped', 0, ROLLOUT_AT)).toBe(0);
    });

    it('drops every new flow on a full instance, long after the SYNs to its dead address have stopped', () => {
      const r = base.report;
      // The clients leave metric-19's address at their first step; ten seconds later not one SYN goes to it ...
      const [first] = batch(0).slice(-1);
      const quiet = FIRST_STEP + 10;
      expect(sum(flowsTo(r, [first!.ip], quiet))).toBe(0);
      // ... yet its instance is still full and still drops new flows: node-local DNS's, and the clients' to the new
      // metric pod scheduled there.
      expect(min(values(r, `hypervisor.conntrack.used{instance=${first!.node}}`, quiet))).toBeGreaterThan(0.95 * ALLOWANCE);
      expect(total(r, `hypervisor.conntrack_allowance_exceeded{instance=${first!.node}}`, quiet)).toBeGreaterThan(1000);
      const replacement = base.kept.find((e) => e.kind === 'pod.created' && e.message.includes(`created on ${first!.node} `));
      const newIp = /with address (\S+)$/.exec(replacement?.message ?? '')?.[1];
      expect(newIp, replacement?.message).toBeDefined();
      // (the clients learn of that pod at their first step and need several attempts each to reach it)
      expect(sum(flowsTo(r, [newIp!], FIRST_STEP))).toBeGreaterThan(2 * CLIENTS);
      // The run's own explanation walks from the server errors down to the full table and the clients' settings.
      const chain = r.why.find((c) => c.steps.some((s) => s.text.includes(`${ALLOWANCE.toLocaleString('en-US')} of ${ALLOWANCE.toLocaleString('en-US')} tracked connections`)));
      expect(chain, JSON.stringify(r.why)).toBeDefined();
      const texts = chain!.steps.map((s) => `${s.entity}: ${s.text}`);
      expect(chain!.symptom).toMatch(/^server errors at pod\/metric-/);
      expect(
        texts.some((t) => /^node\/node-\d+: node-local DNS answered \d{1,3}(,\d{3})* queries REFUSED/.test(t)),
        texts.join('\n'),
      ).toBe(true);
      expect(
        texts.some((t) => /^node\/node-\d+: its queries to the upstream DNS failed/.test(t)),
        texts.join('\n'),
      ).toBe(true);
      expect(texts).toContain(`deployment/alerting: its round_robin channels redial each address every 300 ms (a fixed interval), giving each attempt 300 ms`);
      // Node-local DNS loses cluster DNS only on instances that held an old address.
      const down = new Set(base.kept.filter((e) => e.kind === 'dns.upstream.down').map((e) => e.entity));
      expect(down.size).toBeGreaterThanOrEqual(10);
      expect(
        [...down].every((entity) => OLD_PODS.some((p) => entity === `node/${p.node}`)),
        [...down].join(' '),
      ).toBe(true);
    });

    it('pins node-local DNS at max_concurrent: health checks fail, queries are REFUSED, memory grows with concurrency', () => {
      const r = base.report;
      expect(total(r, 'dns.nodelocal.forward.healthcheck_failures', 0, FIRST_DELETION)).toBe(0);
      expect(total(r, 'dns.nodelocal.forward.healthcheck_failures')).toBeGreaterThan(50);
      // Node-local DNS on several instances that held old addresses fills its max_concurrent slots and answers
      // REFUSED; the once-a-second samples catch some of them at the full 1,000 queries (2 KB each).
      const saturated = base.kept.filter((e) => e.kind === 'dns.forward.saturated');
      expect(saturated.every((e) => new RegExp(`${MAX_CONCURRENT} queries in flight: answering REFUSED`).test(e.message))).toBe(true);
      const saturatedNodes = new Set(saturated.map((e) => e.entity));
      expect(saturatedNodes.size).toBeGreaterThanOrEqual(3);
      expect([...saturatedNodes].every((entity) => OLD_PODS.some((p) => entity === `node/${p.node}`))).toBe(true);
      const pinned = OLD_PODS.filter((p) => max(values(r, `dns.nodelocal.inflight{node=${p.node}}`)) >= MAX_CONCURRENT);
      expect(pinned.length).toBeGreaterThanOrEqual(1);
      for (const p of pinned) expect(max(values(r, `dns.nodelocal.memory_bytes{node=${p.node}}`))).toBeGreaterThanOrEqual(MAX_CONCURRENT * 2048);
      expect(r.totals['dns.nodelocal.refused']).toBeGreaterThan(5000);
      // Memory follows the queries in flight, second by second.
      const inflight = values(r, 'dns.nodelocal.inflight');
      values(r, 'dns.nodelocal.memory_bytes').forEach((bytes, i) => expect(bytes).toBe(inflight[i]! * 2048));
    });

    it('logs DNS errors in the metric service, first on the new pods of the full instances', () => {
      expect(base.lost).toBe(0);
      const errors = base.kept.filter((e) => e.kind === 'grpc.server.dns-error');
      expect(errors.length).toBe(base.report.totals['grpc.server.errors{reason=dns}']);
      expect(errors.length).toBeGreaterThan(500);
      expect(errors.every((e) => /^pod\/metric-\d+$/.test(e.entity) && /could not resolve its dependencies/.test(e.message))).toBe(true);
      // Every one of the first wave comes from a pod the rollout created on an instance that held an old address.
      const createdOn = new Map(base.kept.filter((e) => e.kind === 'pod.created').map((e) => [e.entity, /created on (\S+)/.exec(e.message)![1]!]));
      const oldNodes = new Set(OLD_PODS.map((p) => p.node));
      for (const entity of new Set(errors.map((e) => e.entity))) expect(oldNodes.has(createdOn.get(entity)!), entity).toBe(true);
      expect(Math.min(...errors.map((e) => e.t))).toBeGreaterThan(atSeconds(FIRST_KILL));
    });

    it('spikes server-side errors while the clients, retrying, mostly see latency', () => {
      const r = base.report;
      expect(total(r, 'grpc.server.errors', 0, FIRST_DELETION)).toBe(0);
      expect(max(values(r, 'grpc.server.errors'))).toBeGreaterThanOrEqual(300);
      const storm: [number, number] = [FIRST_DELETION + 5, BASE_UNTIL];
      const rpcs = total(r, 'grpc.client.rpcs', ...storm);
      expect(total(r, 'grpc.client.ok', ...storm) / rpcs).toBeGreaterThan(0.98);
      expect(total(r, 'grpc.client.failed', ...storm) / rpcs).toBeLessThan(0.02);
      expect(total(r, 'grpc.client.failed', ...storm)).toBeLessThan(total(r, 'grpc.server.errors', ...storm));
      expect(total(r, 'grpc.client.retries', ...storm)).toBeGreaterThan(total(r, 'grpc.server.errors', ...storm));
      expect(total(r, 'grpc.client.retries', 0, FIRST_DELETION)).toBe(0);
      // The slowest calls go from tens of milliseconds to seconds.
      expect(max(values(r, 'grpc.client.latency_ms.p99', 0, ROLLOUT_AT))).toBeLessThan(100);
      expect(max(values(r, 'grpc.client.latency_ms.p99', ...storm))).toBeGreaterThan(5000);
    });

    it('lets clients leave an old address only at their re-resolutions, one resolution interval apart', () => {
      const r = base.report;
      // Nobody leaves an old address while its pod terminates: external-dns drops it only once the pod is deleted.
      expect(r.totals['grpc.client.switchover_s.le_10']).toBe(0);
      // Most departures happen in two seconds of the run, exactly one resolution interval apart; no second between
      // them sees any.
      const counts = values(r, 'grpc.client.switchover_s.count');
      expect(counts[FIRST_STEP]! + counts[SECOND_STEP]!).toBeGreaterThanOrEqual(0.8 * CLIENTS * OLD_IPS.length);
      expect(sum(counts.slice(0, FIRST_STEP))).toBe(0);
      expect(sum(counts.slice(FIRST_STEP + 1, SECOND_STEP))).toBeLessThan(0.05 * CLIENTS * OLD_IPS.length);
      // At the first step the record no longer holds the first batch (deleted at FIRST_KILL, withdrawn on the next
      // external-dns run), but still holds the second: the flows to one stop, to the other go on until the second.
      const after = (ips: string[]) => sum(flowsTo(r, ips, FIRST_STEP + 2, SECOND_STEP));
      expect(after(batch(0).map((p) => p.ip))).toBeLessThan(0.05 * after(batch(1).map((p) => p.ip)));
      expect(
        sum(
          flowsTo(
            r,
            batch(1).map((p) => p.ip),
            SECOND_STEP - 1,
            SECOND_STEP,
          ),
        ),
      ).toBeGreaterThan(CLIENTS * BATCH);
    });
  });

  describe('a fix rolled out while the flood runs, as a compare branches run B', () => {
    it('default-backoff rolled out at 60 s cuts the next minute’s connection attempts by more than 4×; fixes outside the clients’ pod template need a new run', () => {
      const scenario = load([], ['params.alerting.replicas=200']);
      expect(fixRolloutProblem(scenario, 'default-backoff')).toBeNull();
      expect(fixRolloutProblem(scenario, 'pick-first')).toBeNull();
      expect(fixRolloutProblem(scenario, 'bigger-instance')).toBe(
        "params.instance.conntrackAllowance is not a gRPC client's pod template, which is all a rollout changes: compare from 0 instead",
      );
      const attempts = (branch: boolean): number => {
        const sim = createSim(scenario);
        sim.runUntil(atSeconds(60));
        const before = sim.report(0).totals['grpc.client.connect_attempts']!;
        if (branch) sim.applyFault({ fault: 'roll-out-fix', target: 'fix/default-backoff' });
        sim.runUntil(atSeconds(120));
        return sim.report(0).totals['grpc.client.connect_attempts']! - before;
      };
      // Measured: 238,030 attempts as shipped, 35,050 with the rollout (the alerting pods roll a quarter at a time).
      expect(attempts(true) * 4).toBeLessThan(attempts(false));
      expect(() => createSim(scenario).applyFault({ fault: 'roll-out-fix', target: 'fix/rp-filter-off' })).toThrow(
        'target: fix "rp-filter-off": params.node.rpFilter is not a gRPC client\'s pod template',
      );
    }, 120_000);
  });

  describe('switch-over steps: the talk saw 30, 60 or 90 s after each deletion', () => {
    // 200 clients instead of 2,000: the steps come from the resolution clock and the record, not from the load.
    const FEW = 'params.alerting.replicas=200';
    /** The share of switch-overs 25 to 35 s after the SIGTERM of their pod: one resolution interval. */
    const oneStep = (r: RunReport) => (r.totals['grpc.client.switchover_s.le_35']! - r.totals['grpc.client.switchover_s.le_25']!) / r.totals['grpc.client.switchover_s.count']!;

    it('as shipped, batches 10 s apart share the first batch’s resolution clock, so later ones wait 40 or 50 s', () => {
      const r = run([], BASE_UNTIL, false, [FEW]).report;
      expect(r.totals['grpc.client.switchover_s.count']).toBe(200 * OLD_IPS.length);
      expect(oneStep(r)).toBeLessThanOrEqual(0.5);
      expect(r.totals['grpc.client.switchover_s.le_50']! - r.totals['grpc.client.switchover_s.le_35']!).toBeGreaterThanOrEqual(200 * 2 * BATCH);
    });

    it('batches 30 s apart (pods Ready after 30 s) each get a resolution of their own: every address goes one step after its SIGTERM', () => {
      const readyS = RESOLUTION_S;
      const lastSigterm = ROLLOUT_AT + 4 * readyS;
      const r = run([], lastSigterm + RESOLUTION_S + 2, false, [FEW, `topology.deployments.metric.readySeconds=${readyS}`]).report;
      expect(r.totals['grpc.client.switchover_s.count']).toBe(200 * OLD_IPS.length);
      expect(oneStep(r)).toBe(1);
    });
  });

  describe('on the node that held a deleted address, a second after the pod is gone', () => {
    /**
     * Builds the world (no timeline, no sampling), deletes the last five old pods at 1 s without a grace period (how
     * a pod went does not change what happens to SYNs for its address; the grace period would only add ten seconds
     * of resets first) and runs until the clients are in one of their (synchronised) connection attempts to the dead
     * addresses; then reads, for every client socket dialling one from another node, whether the receiving node's
     * conntrack and its hypervisor's table hold that SYN's flow. It reads sockets and table entries one by one, so it
     * runs the per-packet model, where every attempt has both (a cohort's attempts have neither until asked).
     */
    function afterDeletion(sets: string[]) {
      const { ctx, w } = worldOf(TEXT, [...sets, 'params.engine.cohorts=false']);
      ctx.sched.runUntil(atSeconds(1));
      const victims = batch(0).map((p) => w.workloads.findPod(p.name)!);
      for (const pod of victims) w.workloads.deletePod(pod, 0, 'test');
      ctx.sched.runUntil(atSeconds(2));
      const gone = w.workloads.pods.filter((p) => p.deployment === 'metric' && p.phase === 'gone');
      const remoteDials = () => {
        const out: { socket: Socket; dead: Pod }[] = [];
        for (const socket of w.tcp.sockets.values()) {
          if (socket.state !== TcpState.synSent || socket.synSends === 0 || socket.stack.ns < 0) continue;
          const dead = gone.find((p) => p.ip === socket.remoteIp);
          if (dead && w.workloads.pods[socket.stack.ns]!.host !== dead.host) out.push({ socket, dead });
        }
        return out;
      };
      // The clients redial in step (300 ms attempt, 300 ms wait): move on to an attempt, then give its SYNs 10 ms to
      // arrive, well inside the attempt's 300 ms.
      for (let i = 0; i < 100 && remoteDials().length === 0; i++) ctx.sched.runUntil((ctx.sched.now + seconds(0.01)) as SimTime);
      ctx.sched.runUntil((ctx.sched.now + seconds(0.01)) as SimTime);
      const now = ctx.sched.now;
      let inNodeConntrack = 0;
      let inHypervisor = 0;
      const dials = remoteDials();
      for (const { socket, dead } of dials) {
        const tuple = [Proto.tcp, socket.stack.ip, socket.localPort, socket.remoteIp, socket.remotePort, now] as const;
        if (dead.host.conntrack.lookup(...tuple) >= 0) inNodeConntrack++;
        if (dead.host.hypervisor!.table.lookup(...tuple) >= 0) inHypervisor++;
      }
      return { drops: ctx.drops.totals(), gone, dialling: dials.length, inNodeConntrack, inHypervisor };
    }

    let without: ReturnType<typeof afterDeletion> | undefined;
    const withoutFix = () => (without ??= afterDeletion([]));

    it('without a fix: rp_filter drops the SYNs as martians; the hypervisor tracks them, the node’s conntrack never does', () => {
      const r = withoutFix();
      expect(r.gone.map((p) => formatIpv4(p.ip)).sort()).toEqual(
        batch(0)
          .map((p) => p.ip)
          .sort(),
      );
      // Nearly every client (those on the dead pods' own instances aside) dials every dead address.
      expect(r.dialling).toBeGreaterThan(0.95 * CLIENTS * BATCH);
      expect(r.drops['rp_filter_martian']).toBeGreaterThan(r.dialling);
      expect(r.drops['source_dest_check'] ?? 0).toBe(0);
      expect(r.inNodeConntrack).toBe(0);
      expect(r.inHypervisor).toBe(r.dialling);
    }, 60_000);

    it.each(['ip-on-pod-interface', 'rp-filter-off'])(
      'with %s: the same SYNs pass rp_filter and enter the node’s conntrack; the hypervisor tracks them as before',
      (fix) => {
        const withFix = afterDeletion(fixSets(fix));
        expect(withFix.drops['rp_filter_martian'] ?? 0).toBe(0);
        expect(withFix.dialling).toBe(withoutFix().dialling);
        expect(withFix.inNodeConntrack).toBe(withFix.dialling);
        // Past the filter the kernel sends them on, and the cloud refuses a packet from an address that is not the
        // instance's: the verdict moves, the flood and the hypervisor's table do not.
        expect(withFix.drops['source_dest_check']).toBeGreaterThan(withFix.dialling);
        expect(withFix.inHypervisor).toBe(withoutFix().inHypervisor);
      },
      60_000,
    );
  });

  describe('the fixes', () => {
    it('default-backoff (the real fix): >10× fewer connection attempts to the old addresses, no allowance exceeded, no DNS refusals', () => {
      const r = run(['default-backoff'], BASE_UNTIL).report;
      const b = base.report;
      // Over the whole flood (it is over by the second step) the flow log shows more than ten times fewer new flows
      // to the old addresses. Counted in SYN packets the cut is smaller, about 7×: each attempt now has the default
      // 20 s to connect, so the kernel retransmits its SYN to a silent address four times.
      expect(sum(flowsToOldIps(r)) * 10).toBeLessThan(sum(flowsToOldIps(b)));
      expect(max(flowsToOldIps(r)) * 5).toBeLessThan(max(flowsToOldIps(b)));
      expect(total(r, 'tcp.syn.sent') * 5).toBeLessThan(total(b, 'tcp.syn.sent'));
      expect(r.totals['hypervisor.conntrack_allowance_exceeded']).toBe(0);
      for (const p of OLD_PODS) expect(max(values(r, `hypervisor.conntrack.used{instance=${p.node}}`)), p.node).toBeLessThan(ALLOWANCE / 4);
      expect(b.totals['dns.nodelocal.refused']).toBeGreaterThan(0);
      expect(r.totals['dns.nodelocal.refused']).toBe(0);
      expect(r.totals['dns.nodelocal.forward.healthcheck_failures']).toBe(0);
      expect(r.totals['grpc.server.errors']).toBe(0);
      expect(r.totals['grpc.client.failed']).toBe(0);
      // What it does not change: the clients leave the old addresses at the same re-resolutions as before.
      const steps = (x: RunReport) => values(x, 'grpc.client.switchover_s.count').flatMap((n, second) => (n > 0 ? [second] : []));
      expect(steps(r)).toEqual([FIRST_STEP, SECOND_STEP]);
      expect(r.totals['grpc.client.switchover_s.count']).toBe(CLIENTS * OLD_IPS.length);
    }, 300_000);

    it('pick-first: channels stop redialling every address in the background; no flood, no drops', () => {
      const r = run(['pick-first'], SECOND_STEP).report;
      expect(sum(flowsToOldIps(r)) * 50).toBeLessThan(sum(flowsToOldIps(base.report, 1, SECOND_STEP)));
      expect(r.totals['hypervisor.conntrack_allowance_exceeded']).toBe(0);
      expect(r.totals['dns.nodelocal.refused']).toBe(0);
      expect(r.totals['grpc.server.errors']).toBe(0);
    }, 300_000);

    // The base run's instances start dropping at 51 s, and node-local DNS answers REFUSED from 72 s.
    const PAST_FIRST_REFUSALS = FIRST_STEP + 4;

    it('bigger-instance: the drops as good as vanish and DNS stays healthy; the SYN flood stays, and the bill doubles', () => {
      const b = base.report;
      const window: [number, number] = [0, PAST_FIRST_REFUSALS];
      expect(drops(b, 'hypervisor_conntrack_exceeded', ...window)).toBeGreaterThan(50_000);
      expect(total(b, 'dns.nodelocal.refused', ...window)).toBeGreaterThan(1000);
      expect(total(b, 'grpc.server.errors', ...window)).toBeGreaterThan(100);
      // Past the third batch's moment (88 s): the last of the bursts in which the old pods' instances touch the new limit.
      const r = run(['bigger-instance'], 95).report;
      // The flood now fits in the larger table but for three moments, each just before the clients leave an old
      // address, when half of what the instance counts are reset flows whose CLOSE has timed out but that its lazy
      // collector has not found yet: a few thousand drops, not millions, as the fix's own expectations say.
      expect(r.totals['hypervisor.conntrack_allowance_exceeded']).toBeLessThan(0.05 * drops(b, 'hypervisor_conntrack_exceeded', 0, 95));
      const own = r.expect.slice(-3);
      expect(own.map((e) => e.description)).toEqual([
        expect.stringMatching(/^With twice the allowance/),
        expect.stringMatching(/^\.\.\. a few thousand drops/),
        expect.stringMatching(/^\.\.\. and node-local DNS never refuses/),
      ]);
      expect(own.filter((e) => !e.held)).toEqual([]);
      expect(r.totals['dns.nodelocal.refused']).toBe(0);
      expect(r.totals['dns.nodelocal.forward.healthcheck_failures']).toBe(0);
      expect(r.totals['grpc.server.errors']).toBe(0);
      expect(r.totals['grpc.client.failed']).toBe(0);
      expect(sum(flowsToOldIps(r, 1, PAST_FIRST_REFUSALS))).toBeGreaterThanOrEqual(sum(flowsToOldIps(b, 1, PAST_FIRST_REFUSALS)));
      expect(r.totals['cluster.cost_per_hour']).toBeCloseTo(2 * b.totals['cluster.cost_per_hour']!, 6);
    }, 300_000);

    it('network-optimized: the tables fill later and DNS copes for longer, but they still fill; the flood stays', () => {
      const b = base.report;
      // Past the point where the second batch's instances reach even the larger allowance.
      const until = FIRST_KILL + 40;
      const r = run(['network-optimized'], until).report;
      const allowance = Number(SCENARIO.fixes['network-optimized']!.set['params.instance.conntrackAllowance']);
      const firstDrop = (x: RunReport) => values(x, 'packets.dropped{reason=hypervisor_conntrack_exceeded}').findIndex((n) => n > 0);
      // It helps: the instances drop later and far less, and node-local DNS has not yet failed where it did without.
      expect(firstDrop(r)).toBeGreaterThan(firstDrop(b));
      expect(drops(r, 'hypervisor_conntrack_exceeded') * 3).toBeLessThan(drops(b, 'hypervisor_conntrack_exceeded', 0, until));
      expect(total(b, 'dns.nodelocal.refused', 0, until)).toBeGreaterThan(1000);
      expect(r.totals['dns.nodelocal.refused']).toBe(0);
      expect(r.totals['grpc.server.errors']).toBe(0);
      // It does not cure: the old pods' instances reach the larger allowance as well, and once the second batch's
      // are full their hypervisors drop new flows by the ten thousand a second again.
      for (const p of [...batch(0), ...batch(1)]) {
        expect(total(r, `hypervisor.conntrack_allowance_exceeded{instance=${p.node}}`), p.node).toBeGreaterThan(0);
        expect(max(values(r, `hypervisor.conntrack.used{instance=${p.node}}`)), p.node).toBeGreaterThan(0.9 * allowance);
      }
      expect(max(values(r, 'packets.dropped{reason=hypervisor_conntrack_exceeded}', until - 5))).toBeGreaterThan(10_000);
      expect(sum(flowsToOldIps(r))).toBeGreaterThanOrEqual(sum(flowsToOldIps(b, 1, until)));
      const cost = r.totals['cluster.cost_per_hour']!;
      const baseCost = b.totals['cluster.cost_per_hour']!;
      expect(cost).toBeGreaterThan(1.2 * baseCost);
      expect(cost).toBeLessThan(1.3 * baseCost);
    }, 300_000);

    it('deregister-on-sigterm: the second batch leaves the record a run sooner and the clients leave it a step sooner', () => {
      const b = base.report;
      const until = FIRST_STEP + 3;
      const r = run(['deregister-on-sigterm'], until).report;
      const second = batch(1).map((p) => p.ip);
      // At the first step the clients now leave the second batch's addresses as well as the first's ...
      const leftAt = (x: RunReport) => values(x, 'grpc.client.switchover_s.count')[FIRST_STEP]!;
      expect(leftAt(b)).toBeLessThanOrEqual(CLIENTS * BATCH);
      expect(leftAt(r)).toBeGreaterThanOrEqual(leftAt(b) + 0.9 * CLIENTS * BATCH);
      // ... twenty seconds after their SIGTERM instead of fifty ...
      expect(r.totals['grpc.client.switchover_s.le_20']).toBeGreaterThanOrEqual(0.9 * CLIENTS * BATCH);
      expect(b.totals['grpc.client.switchover_s.le_20']).toBeLessThan(0.1 * CLIENTS * BATCH);
      // ... so those addresses get no more SYNs, where without the fix they get thousands a second until the next.
      expect(sum(flowsTo(r, second, FIRST_STEP + 1, until))).toBeLessThan(100);
      expect(sum(flowsTo(b, second, FIRST_STEP + 1, until))).toBeGreaterThan(CLIENTS * BATCH);
      expect(drops(r, 'rp_filter_martian', FIRST_STEP + 1, until)).toBeLessThan(0.75 * drops(b, 'rp_filter_martian', FIRST_STEP + 1, until));
      // Up to then it is the same flood: the clients had not looked the name up since the first GOAWAYs.
      expect(sameWithin(sum(flowsToOldIps(r, 1, FIRST_STEP)), sum(flowsToOldIps(b, 1, FIRST_STEP)), 0.01)).toBe(true);
    }, 300_000);

    it('faster-resolution: with a 5 s TTL the clients leave each old address within seconds of its withdrawal', () => {
      const b = base.report;
      // external-dns withdraws the first batch on its first run after they are killed.
      const withdrawn = Math.ceil(FIRST_KILL / SCENARIO.params.externalDns.intervalS) * SCENARIO.params.externalDns.intervalS;
      const until = withdrawn + 2;
      const r = run(['faster-resolution'], until).report;
      const first = batch(0).map((p) => p.ip);
      // The clients look up five times as often ...
      expect(total(r, 'grpc.client.resolutions', FIRST_DELETION, until)).toBeGreaterThanOrEqual(4 * total(b, 'grpc.client.resolutions', FIRST_DELETION, until));
      // ... so every client leaves the first batch's addresses within a second of their withdrawal, ten seconds
      // before the base run's first step: 20 to 25 s after their SIGTERM instead of 30 ...
      const counts = values(r, 'grpc.client.switchover_s.count');
      expect(counts[withdrawn]).toBe(CLIENTS * BATCH);
      expect(sum(values(b, 'grpc.client.switchover_s.count', 0, FIRST_STEP))).toBe(0);
      expect(r.totals['grpc.client.switchover_s.le_20']).toBe(0);
      expect(r.totals['grpc.client.switchover_s.le_25']).toBe(CLIENTS * BATCH);
      // ... and sends them no more SYNs, where without the fix they get tens of thousands a second.
      expect(sum(flowsTo(r, first, withdrawn + 1, until))).toBe(0);
      expect(sum(flowsTo(b, first, withdrawn + 1, until))).toBeGreaterThan(CLIENTS * BATCH);
      // Until the withdrawal it is the same flood.
      expect(sameWithin(sum(flowsToOldIps(r, 1, withdrawn)), sum(flowsToOldIps(b, 1, withdrawn)), 0.01)).toBe(true);
    }, 300_000);
  });
});

function min(xs: number[]): number {
  return xs.reduce((a, b) => Math.min(a, b), Infinity);
}

function sameWithin(a: number, b: number, fraction: number): boolean {
  return Math.abs(a - b) <= fraction * Math.max(a, b);
}
