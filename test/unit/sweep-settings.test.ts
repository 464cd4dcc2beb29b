import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSweepArgs } from '../../src/cli/sweep-args';
import {
  atSeconds,
  createSim,
  FAULT_IDS,
  impactOf,
  loadScenario,
  planSweep,
  RISKY_SETTINGS,
  runVariant,
  type RunReport,
  type Scenario,
  type SweepPlan,
  type Variant,
  type VariantImpact,
} from '../../src/sim';
import { withSets } from '../../src/sim/scenario/load';
import { expectRefused, refusedBy, sim, STACK } from '../fixtures/cli';
import { clusterDns, grpcClient, grpcServer, httpServer, nodes, scenarioText, service, type ParamsInput } from '../fixtures/scenario-builder';
import { loadText } from '../fixtures/scenario-run';

const tmp = mkdtempSync(join(tmpdir(), 'netmortem-sweep-settings-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A shipped scenario loaded as `npm run sim -- <id> --fix …` loads it. */
function shipped(id: string, fixes: string[]): Scenario {
  const loaded = loadScenario(readFileSync(new URL(`../../public/scenarios/${id}.yaml`, import.meta.url), 'utf8'), `${id}.yaml`, { faultIds: FAULT_IDS, fixes });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  return loaded.scenario;
}

const named = (v: Variant): string => [...v.faults.map((f) => `${f.fault} ${f.target}`), ...(v.setting ? [`${v.setting.id} ${v.setting.target}`] : [])].join(' + ');
function find(plan: SweepPlan, name: string): Variant {
  const found = plan.variants.find((v) => named(v) === name);
  if (!found) throw new Error(`no variant ${name} in ${plan.variants.map(named).join(', ')}`);
  return found;
}
const measure = (plan: SweepPlan, name: string): VariantImpact => impactOf(plan, runVariant(plan, find(plan, name)));

/** The variant's run as its command line makes it, to read what the sweep does not keep: its report. */
function reportOf(plan: SweepPlan, name: string): RunReport {
  const v = find(plan, name);
  const scenario = withSets(plan.scenario, v.setting?.sets ?? []);
  const timeline = [...scenario.timeline, ...v.faults.map((f) => ({ at: plan.options.at, fault: f.fault, target: f.target, params: {} }))];
  const run = createSim({ ...scenario, timeline }, { fixes: plan.fixes });
  run.runUntil(atSeconds(plan.options.at + plan.options.for));
  return run.report(0);
}
const total = (r: RunReport, metric: string, from = 0): number => (r.series[metric]?.values ?? []).slice(from).reduce((a, b) => a + b, 0);

describe('a setting’s overrides on a loaded scenario', () => {
  it('give what a load with them gives: no overrides change no shipped scenario, and overrides land as --set lands them', () => {
    const { scenarios } = JSON.parse(readFileSync(new URL('../../public/scenarios/index.json', import.meta.url), 'utf8')) as { scenarios: { id: string }[] };
    for (const { id } of scenarios) {
      const scenario = shipped(id, []);
      expect(JSON.stringify(withSets(scenario, [])), id).toBe(JSON.stringify(scenario));
    }
    const set = ['topology.services.traefik.externalTrafficPolicy=Local', 'params.lb.activation=immediate'];
    const loaded = loadScenario(readFileSync(new URL('../../public/scenarios/f5-unknown-health.yaml', import.meta.url), 'utf8'), 'f5.yaml', {
      fixes: ['etp-cluster', 'activate-after-healthy'],
      sets: set,
    });
    expect(loaded.ok && JSON.stringify(withSets(shipped('f5-unknown-health', ['etp-cluster', 'activate-after-healthy']), set))).toBe(loaded.ok && JSON.stringify(loaded.scenario));
    expect(() => withSets(shipped('demo', []), ['topology.services.web.externalTrafficPolicy=Local'])).toThrow(
      '--set topology.services.web.externalTrafficPolicy=Local: Local needs type NodePort or LoadBalancer',
    );
  });
});

describe('the risky settings catalog', () => {
  it('gives each setting an id, a one-line why and the docs section behind it', () => {
    expect(RISKY_SETTINGS.map((s) => s.id)).toEqual(['fixed-reconnect', 'etp-local-unknown-members', 'cpu-limit-expiring-kernel', 'stateless-ecmp']);
    for (const s of RISKY_SETTINGS) {
      expect(s.why, s.id).not.toContain('\n');
      expect(s.source, s.id).toMatch(/^docs\/sources\/[a-z-]+\.md#[a-z0-9-]+$/);
    }
  });
});

// Twenty gRPC clients (pick_first, gRPC's backoff: the defaults) on three small cloud instances query three metric
// pods found through external-dns; pod addresses sit on an interface without an IPv4 address (Cilium ENI).
const GRPC = (alerting: ParamsInput[string] = {}): string =>
  scenarioText({
    id: 'grpc-settings',
    duration: 90,
    topology: {
      nodes: nodes(3, { platform: 'cloud' }),
      deployments: {
        index: httpServer(1),
        metric: grpcServer(3, { port: 9090, dependencies: ['index'], terminationGracePeriodSeconds: 10 }),
        alerting: grpcClient(20, 'metric.example.com:9090'),
      },
      services: { index: service('index', '10.96.0.30') },
      dns: clusterDns({ nodeLocal: true, externalDns: { hostname: 'metric.example.com', deployment: 'metric' } }),
    },
    params: { node: { podNetwork: 'eni' }, externalDns: { intervalS: 15 }, instance: { conntrackAllowance: 300 }, dns: { maxConcurrent: 5 }, alerting },
  });

describe('fixed-reconnect: round_robin channels that redial every 300 ms', () => {
  let plan: SweepPlan;
  beforeAll(() => {
    plan = planSweep(loadText(GRPC()), [], { faults: ['rolling-update'], settings: ['fixed-reconnect'], pairs: true, at: 30, for: 60 });
  });
  const ROLL = 'rolling-update deployment/metric';
  const SETTING = 'fixed-reconnect deployment/alerting';

  it('applies to each gRPC client deployment, as params overrides from time 0', () => {
    expect(find(plan, SETTING).setting!.sets).toEqual(['params.alerting.lbPolicy=round_robin', 'params.alerting.reconnect=fixed', 'params.alerting.minConnectTimeoutMs=300']);
    // Alone, then with each of the three rolling updates, after the faults' own singles and pairs.
    expect(plan.variants.map(named).slice(-4)).toEqual([SETTING, `rolling-update deployment/index + ${SETTING}`, `${ROLL} + ${SETTING}`, `rolling-update deployment/alerting + ${SETTING}`]);
  });

  it('is harmless alone, and turns a rollout into a storm of SYNs that fills the instances’ tracked-connection allowance', () => {
    expect(measure(plan, SETTING).score).toBe(0);
    const alone = measure(plan, ROLL);
    const exposed = measure(plan, `${ROLL} + ${SETTING}`);
    expect(alone.recoveredAfterS).toBeGreaterThan(0);
    expect(exposed.score).toBeGreaterThan(1.5 * alone.score!);
    expect(exposed.recoveredAfterS).toBeNull();
    // Why: after the old pods are gone (41 s) the clients redial their addresses every 300 ms instead of backing off,
    // the SYNs fill each instance's 300 tracked connections, and the hypervisor drops new flows (DNS among them).
    const backoff = reportOf(plan, ROLL);
    const fixed = reportOf(plan, `${ROLL} + ${SETTING}`);
    expect(total(fixed, 'grpc.client.connect_attempts', 41)).toBeGreaterThan(10 * total(backoff, 'grpc.client.connect_attempts', 41));
    expect(backoff.drops.hypervisor_conntrack_exceeded ?? 0).toBe(0);
    expect(fixed.drops.hypervisor_conntrack_exceeded).toBeGreaterThan(1000);
  }, 60_000);

  it('is not a variant where the clients already have it', () => {
    const incident = planSweep(loadText(GRPC({ lbPolicy: 'round_robin', reconnect: 'fixed', minConnectTimeoutMs: 300 })), [], { faults: [], pairs: true, at: 30, for: 5 });
    expect(incident.settings.inEffect).toEqual([{ id: 'fixed-reconnect', target: 'deployment/alerting' }]);
    expect(incident.variants.filter((v) => v.setting)).toEqual([]);
  });
});

describe('etp-local-unknown-members: externalTrafficPolicy Local behind a pool that sends to members of unknown health', () => {
  // etp-cluster is the fix; the setting puts back what the story runs with, and node-f joins at 40 s.
  let plan: SweepPlan;
  beforeAll(() => {
    plan = planSweep(shipped('f5-unknown-health', ['etp-cluster']), ['etp-cluster'], { faults: [], pairs: false, at: 30, for: 60 });
  });
  const SETTING = 'etp-local-unknown-members service/traefik';

  it('applies to a Service whose node ports a load balancer pools, and fails connections to a node that joins', () => {
    expect(plan.variants.map(named)).toEqual([SETTING]);
    expect(plan.variants[0]!.setting!.sets).toEqual(['topology.services.traefik.externalTrafficPolicy=Local']);
    const impact = measure(plan, SETTING);
    expect(impact.failedConnections!.baseline).toBe(0);
    expect(impact.failedConnections!.extra).toBeGreaterThan(100);
    // Why: the pool adds node-f with health unknown and sends it new connections; under Local its kube-proxy has no
    // endpoint to give them, so they are dropped until the monitor's 16 s mark it down. Under Cluster it forwards.
    expect(reportOf(plan, SETTING).drops.no_local_endpoint).toBeGreaterThan(100);
    expect(plan.baseline.window.failedConnections.reduce((a, b) => a + b, 0)).toBe(0);
  });

  it('is not a variant in the story itself, which runs with it', () => {
    const story = planSweep(shipped('f5-unknown-health', []), [], { faults: [], pairs: false, at: 30, for: 5 });
    expect(story.settings.inEffect).toEqual([{ id: 'etp-local-unknown-members', target: 'service/traefik' }]);
    expect(story.variants).toEqual([]);
  });
});

describe('cpu-limit-expiring-kernel: a CPU limit on a multi-threaded pod, on a kernel from 4.18 to 5.3', () => {
  it('adds half a core of limit to a pod without one, and throttles it far below its quota', () => {
    const plan = planSweep(shipped('cfs-throttling', ['no-cpu-limit']), ['no-cpu-limit'], { faults: [], pairs: false, at: 15, for: 45 });
    const SETTING = 'cpu-limit-expiring-kernel deployment/api';
    // The kernel is already 4.18-5.3 in this scenario: only the limit is missing.
    expect(plan.variants.map((v) => v.setting!.sets)).toEqual([['topology.deployments.api.cpuLimit=0.5']]);
    const impact = measure(plan, SETTING);
    expect(impact.failedRequests!.extra).toBe(0);
    // Requests that wait for CPU: slower than every one but the slowest hundredth of the unlimited run.
    expect(impact.score).toBeGreaterThan(10);
    expect(impact.p99Ms!['requests.latency_ms']!.variant).toBeGreaterThan(1.2 * impact.p99Ms!['requests.latency_ms']!.baseline!);
    // Why: the threads take 5 ms slices on dozens of the 48 cores and what each core keeps expires every period, so
    // the pod is throttled in most periods while it uses under a quarter of its 50 ms quota.
    const r = reportOf(plan, SETTING);
    const periods = total(r, 'cpu.periods{deployment=api}', 15);
    expect(total(r, 'cpu.throttled_periods{deployment=api}', 15)).toBeGreaterThan(periods / 2);
    expect(total(r, 'cpu.usage_ms{deployment=api}', 15)).toBeLessThan(total(r, 'cpu.quota_ms{deployment=api}', 15) / 4);
  });

  it('keeps a limit the scenario gives and only changes the kernel; is not a variant where both are there', () => {
    const fixedKernel = planSweep(shipped('cfs-throttling', ['kernel-fixed']), ['kernel-fixed'], { faults: [], pairs: false, at: 15, for: 5 });
    expect(fixedKernel.variants.map((v) => v.setting!.sets)).toEqual([['params.cpu.kernel=expiring']]);
    const story = planSweep(shipped('cfs-throttling', []), [], { faults: [], pairs: false, at: 15, for: 5 });
    expect(story.settings.inEffect).toEqual([{ id: 'cpu-limit-expiring-kernel', target: 'deployment/api' }]);
    expect(story.variants).toEqual([]);
  });
});

describe('stateless-ecmp: a router without resilient hashing in front of MetalLB speakers', () => {
  const SANDBOX = readFileSync(new URL('../../public/scenarios/bare-metal-sandbox.yaml', import.meta.url), 'utf8');
  const ADD = 'add-bgp-speaker node/node-c';
  const SETTING = 'stateless-ecmp router/tor';

  it('resets half of the established flows when a third next hop is added, against a third with resilient hashing', () => {
    // The router given resilient hashing by --set, as the resilient-hashing fix of ecmp-resets does.
    const plan = planSweep(loadText(SANDBOX, ['topology.routers.0.ecmp=resilient']), [], { faults: ['add-bgp-speaker'], settings: ['stateless-ecmp'], pairs: true, at: 20, for: 40 });
    expect(find(plan, SETTING).setting!.sets).toEqual(['topology.routers.0.ecmp=hash-threshold']);
    expect(measure(plan, SETTING).score).toBe(0);
    // Four users keep 16 connections each to the LoadBalancer address; a new next hop appended to the group moves 1/2
    // of the flows under hash-threshold and 1/3 under resilient hashing, and the node they land on resets each one.
    const flows = 4 * 16;
    const resilient = measure(plan, ADD).failedConnections!.extra / flows;
    const stateless = measure(plan, `${ADD} + ${SETTING}`).failedConnections!.extra / flows;
    expect(resilient).toBeGreaterThan(0.25);
    expect(resilient).toBeLessThan(0.42);
    expect(stateless).toBeGreaterThan(0.42);
    expect(stateless).toBeLessThan(0.6);
  });

  it('is not a variant where the router already hashes without it', () => {
    const plain = planSweep(loadText(SANDBOX), [], { faults: [], pairs: false, at: 20, for: 5 });
    expect(plain.settings.inEffect).toEqual([
      { id: 'etp-local-unknown-members', target: 'service/traefik' },
      { id: 'stateless-ecmp', target: 'router/tor' },
    ]);
    expect(plain.settings.untargeted).toEqual(['fixed-reconnect', 'cpu-limit-expiring-kernel']);
    expect(plain.variants).toEqual([]);
  });
});

describe('npm run sim -- sweep with risky settings', () => {
  const file = (name: string): string => join(tmp, name);
  const sweep = async (out: string, ...flags: string[]): Promise<void> => {
    const exit = await sim([
      'sweep',
      'f5-unknown-health',
      '--fix',
      'etp-cluster',
      '--faults',
      'recreate-pool',
      '--pairs',
      '--at',
      '30',
      '--for',
      '60',
      '--fix-top',
      '0',
      '--out',
      out,
      ...flags,
    ]);
    expect(exit.stderr).not.toMatch(STACK);
    expect(exit.code, exit.stderr).toBe(0);
  };

  it('writes the same table from one and two jobs and three shards merged; a setting row names it and replays to its digest', async () => {
    await sweep(file('one.jsonl'), '--csv', file('one.csv'));
    await sweep(file('two.jsonl'), '--jobs', '2');
    for (const i of [0, 1, 2]) await sweep(file(`shard${i}.jsonl`), '--shard', `${i}/3`);
    // Fixes on the worst rows are sweep.test.ts's to check; here they would only add runs.
    const merged = await sim(['sweep-merge', file('shard1.jsonl'), file('shard2.jsonl'), file('shard0.jsonl'), '--fix-top', '0', '--out', file('merged.jsonl')]);
    expect(merged.code, merged.stderr).toBe(0);
    const one = readFileSync(file('one.jsonl'), 'utf8');
    expect(readFileSync(file('two.jsonl'), 'utf8')).toBe(one);
    expect(readFileSync(file('merged.jsonl'), 'utf8')).toBe(one);

    type Line = { record: string; setting?: { id: string; target: string; sets: string[] }; faults: { fault: string }[]; score: number; digest: string; command: string; sets: string[] };
    const [header, ...rows] = one
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Line & Record<string, unknown>);
    expect(header).toMatchObject({ settings: null, untargetedSettings: ['fixed-reconnect', 'cpu-limit-expiring-kernel', 'stateless-ecmp'], settingsInEffect: [], variants: 3 });
    // The setting with the pool recreated: every member starts unknown again, node-f among them.
    expect(rows.map((r) => [r.faults.map((f) => f.fault).join(), r.setting?.id ?? ''])).toEqual([
      ['recreate-pool', 'etp-local-unknown-members'],
      ['', 'etp-local-unknown-members'],
      ['recreate-pool', ''],
    ]);
    const top = rows[0]!;
    expect(top.score).toBeGreaterThan(rows[2]!.score);
    expect(top.sets).toEqual(['topology.services.traefik.externalTrafficPolicy=Local']);
    expect(top.command).toBe(
      'npm run sim -- f5-unknown-health --seed 5 --fix etp-cluster --set topology.services.traefik.externalTrafficPolicy=Local --fault 30:recreate-pool:lb/bigip --until 90  # risky setting etp-local-unknown-members on service/traefik',
    );
    const replay = await sim([
      'f5-unknown-health',
      '--seed',
      '5',
      '--fix',
      'etp-cluster',
      '--set',
      'topology.services.traefik.externalTrafficPolicy=Local',
      '--fault',
      '30:recreate-pool:lb/bigip',
      '--until',
      '90',
    ]);
    expect((JSON.parse(replay.stdout) as { digest: string }).digest).toBe(top.digest);
    const csv = readFileSync(file('one.csv'), 'utf8').split('\r\n');
    expect(csv[0]).toMatch(/^rank,score,faults,setting,outcome,/);
    expect(csv[1]).toMatch(/^1,\d+,recreate-pool lb\/bigip,etp-local-unknown-members service\/traefik,ran,/);
  }, 120_000);

  it('sweeps faults only with --no-settings', async () => {
    await sweep(file('none.jsonl'), '--no-settings');
    const header = JSON.parse(readFileSync(file('none.jsonl'), 'utf8').split('\n')[0]!) as Record<string, unknown>;
    expect(header).toMatchObject({ settings: [], untargetedSettings: [], settingsInEffect: [], variants: 1 });
  }, 60_000);

  it('checks --settings and --no-settings before a run', async () => {
    const refused = (argv: string[]): string => refusedBy(parseSweepArgs, argv);
    expect(refused(['x', '--settings', 'fixed-reconnect,nope'])).toBe(
      '--settings: no risky setting "nope" (known: fixed-reconnect, etp-local-unknown-members, cpu-limit-expiring-kernel, stateless-ecmp)',
    );
    expect(refused(['x', '--settings', 'fixed-reconnect,fixed-reconnect'])).toBe('--settings: "fixed-reconnect" is listed twice');
    expect(refused(['x', '--settings', 'fixed-reconnect', '--no-settings'])).toBe('--no-settings: cannot be given with --settings');
    expect(refused(['x', '--no-settings', '--settings', 'fixed-reconnect'])).toBe('--settings: cannot be given with --no-settings');
    expect(refused(['x', '--no-settings=1'])).toBe('--no-settings: takes no value, got "--no-settings=1"');
    expect(parseSweepArgs(['x', '--settings', 'cpu-limit-expiring-kernel'])).toMatchObject({ settings: ['cpu-limit-expiring-kernel'] });
    expect(parseSweepArgs(['x'])).not.toHaveProperty('settings');
    expectRefused(await sim(['sweep', 'cfs-throttling', '--settings', 'cpu-limit']), '--settings: no risky setting "cpu-limit"');
  }, 20_000);
});
