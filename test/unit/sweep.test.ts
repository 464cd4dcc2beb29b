import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepMerge } from '../../src/cli/sweep';
import { parseMergeArgs, parseSweepArgs, type MergeArgs } from '../../src/cli/sweep-args';
import { atSeconds, createSim, impactOf, planSweep, rankRows, runVariant, type SweepHeader, type SweepPlan, type SweepRow, type VariantImpact } from '../../src/sim';
import { withLinks } from '../../src/cli/sweep-links';
import { parseUrlParams } from '../../src/state/url-params';
import { loadWithAdditions } from '../../src/worker/load-with-additions';
import { expectRefused, refusedBy, sim, STACK } from '../fixtures/cli';
import { loadText } from '../fixtures/scenario-run';

const tmp = mkdtempSync(join(tmpdir(), 'netmortem-sweep-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const SANDBOX = loadText(readFileSync(new URL('../../public/scenarios/bare-metal-sandbox.yaml', import.meta.url), 'utf8'));
const DANGEROUS = ['power-off-node node/node-a', 'remove-node node/node-a', 'drain-node node/node-a', 'crash-loop deployment/traefik', 'delete-pod pod/traefik-0'];
const HARMLESS = 'set-forwarded-header lb/bigip';
const FAULTS = ['delete-pod', 'crash-loop', 'drain-node', 'remove-node', 'join-node', 'set-forwarded-header', 'power-off-node'];
const name = (i: VariantImpact): string => i.faults.map((f) => `${f.fault} ${f.target}`).join(' + ');

describe('a sweep over bare-metal-sandbox', () => {
  let plan: SweepPlan;
  let rows: SweepRow[];
  beforeAll(() => {
    plan = planSweep(SANDBOX, [], { faults: FAULTS, pairs: false, at: 20, for: 20 });
    const impacts = plan.variants.map((v) => impactOf(plan, runVariant(plan, v)));
    rows = rankRows(impacts.map((i): SweepRow => ({ record: 'variant', ...i, scenario: 'bare-metal-sandbox', seed: 11, fixes: [], sets: [], at: 20, for: 20, command: '' })));
    // A few seconds of runs alone; past vitest's 10 s for hooks once when a bench shared the two cores.
  }, 120_000);
  const rankOf = (variant: string): number => rows.find((r) => name(r) === variant)!.rank!;

  it('tries each fault on every target of its kind, pods as they run when it lands', () => {
    expect(plan.variants.filter((v) => v.faults[0]!.fault === 'delete-pod').map((v) => v.faults[0]!.target)).toEqual(['pod/traefik-0', 'pod/traefik-1', 'pod/traefik-2']);
    expect(plan.variants.filter((v) => v.faults[0]!.fault === 'power-off-node')).toHaveLength(4);
    expect(plan.untargeted).toEqual([]);
  });

  it('ranks faults that take a serving node or pod away above a header setting that hurts no one', () => {
    const harmless = rows.find((r) => name(r) === HARMLESS)!;
    expect(harmless.score).toBe(0);
    expect(harmless.recoveredAfterS).toBe(0);
    for (const variant of DANGEROUS) {
      expect(rows.find((r) => name(r) === variant)!.score, variant).toBeGreaterThan(0);
      expect(rankOf(variant), variant).toBeLessThan(rankOf(HARMLESS));
    }
  });

  it('measures failures, p99 and recovery against the unfaulted run', () => {
    const power = rows.find((r) => name(r) === 'power-off-node node/node-a')!;
    expect(power.failedRequests!.baseline).toBe(0);
    expect(power.failedRequests!.extra).toBeGreaterThan(100);
    // The router keeps the dark node as a next hop for MetalLB's 90 s hold time: longer than the window.
    expect(power.recoveredAfterS).toBeNull();
    const pod = rows.find((r) => name(r) === 'delete-pod pod/traefik-0')!;
    expect(pod.recoveredAfterS).toBeGreaterThan(0);
    expect(pod.recoveredAfterS).toBeLessThan(20);
    expect(pod.p99Ms!['requests.latency_ms']!.baseline).toBeGreaterThan(0);
  });

  it("opens each row with the why chains its faults added: a dark node's row names the router's held next hop and its hold timer", () => {
    const power = rows.find((r) => name(r) === 'power-off-node node/node-a')!;
    const [first] = power.why!;
    expect(first!.cause).toMatchObject({ kind: 'node_down', entity: 'router/tor', baseline: 0 });
    expect(first!.steps.map((s) => s.text)).toEqual([
      expect.stringMatching(/^sent [\d,]+ packets to ECMP next hop 10\.0\.0\.11 \(node\/node-a\)/),
      expect.stringMatching(/^lost power at 20\.0 s: its MetalLB speaker could withdraw nothing/),
      // Keepalives every 30 s from the session's start at 0 s: the last before 20 s was at 0 s, so the timer fires at 90 s.
      'kept 10.0.0.11 as a next hop, stale, until its BGP hold timer fired at 90.0 s: 90 s after the last KEEPALIVE, received at 0.0 s',
    ]);
    expect(first!.remedy!.sources).toContain('docs/sources/load-balancers.md#bfd');
    // Draining a node under externalTrafficPolicy Local leaves it without a local endpoint while it still gets a share.
    expect(rows.find((r) => name(r) === 'drain-node node/node-a')!.why![0]!.cause).toMatchObject({ kind: 'no_local_endpoint', entity: 'node/node-a', baseline: 0 });
    expect(rows.find((r) => name(r) === HARMLESS)!.why).toEqual([]);
  });

  it('keeps a fault its target cannot take as a row that says why, ranked last', () => {
    const join = rows.filter((r) => r.faults[0]!.fault === 'join-node');
    expect(join).toHaveLength(4);
    expect(join[0]!.refused).toBe('join-node on node/node-a: target: node "node-a" is already in the cluster and schedulable');
    expect(rows.slice(-4)).toEqual(join);
  });
});

describe('the measures', () => {
  it('reads the latency buckets of the window as the run counted them', () => {
    const plan = planSweep(SANDBOX, [], { faults: [], pairs: false, at: 0, for: 20 });
    const sim = createSim(SANDBOX);
    sim.runUntil(atSeconds(20));
    const totals = sim.report(0).totals;
    const h = plan.baseline.window.latency['requests.latency_ms']!;
    expect(h.total).toBe(totals['requests.latency_ms.count']);
    let cumulative = 0;
    h.bounds.forEach((bound, i) => {
      cumulative += h.counts[i]!;
      const counted = totals[`requests.latency_ms.le_${bound}`];
      if (counted !== undefined) expect(cumulative, `le_${bound}`).toBe(counted);
    });
    expect(plan.baseline.window.failed.reduce((a, b) => a + b, 0)).toBe(totals['requests.failed']);
  });

  it('lands a pair together, and refuses it naming the fault that could not land', () => {
    const plan = planSweep(SANDBOX, [], { faults: ['delete-pod', 'join-node'], pairs: true, at: 20, for: 5 });
    expect(plan.variants).toHaveLength(7 + 21);
    const pair = (a: string, b: string) => plan.variants.find((v) => v.faults.length === 2 && v.faults[0]!.target === a && v.faults[1]!.target === b)!;
    const both = impactOf(plan, runVariant(plan, pair('pod/traefik-0', 'pod/traefik-1')));
    const one = impactOf(plan, runVariant(plan, plan.variants[0]!));
    expect(both.refused).toBeUndefined();
    expect(both.digest).not.toBe(one.digest);
    expect(impactOf(plan, runVariant(plan, pair('pod/traefik-2', 'node/node-b'))).refused).toBe('join-node on node/node-b: target: node "node-b" is already in the cluster and schedulable');
  });
});

/** The table a sweep or merge wrote, and its stderr. */
async function sweepTo(out: string, ...flags: string[]): Promise<string> {
  const exit = await sim(['sweep', 'bare-metal-sandbox', '--faults', 'delete-pod,power-off-node,join-node,set-forwarded-header', '--at', '20', '--for', '10', '--out', out, ...flags]);
  expect(exit.stderr).not.toMatch(STACK);
  expect(exit.code, exit.stderr).toBe(0);
  return exit.stderr;
}

describe('npm run sim -- sweep', () => {
  const file = (name: string): string => join(tmp, name);

  it('writes the same ranked table from one, two and four jobs, and three shards merged, and each row replays to its digest', async () => {
    const progress = await sweepTo(file('one.jsonl'));
    expect(progress).toContain('sweep bare-metal-sandbox: 12/12 variants done');
    await sweepTo(file('two.jsonl'), '--jobs', '2');
    await sweepTo(file('four.jsonl'), '--jobs', '4');
    for (const i of [0, 1, 2]) await sweepTo(file(`shard${i}.jsonl`), '--shard', `${i}/3`);
    const merged = await sim(['sweep-merge', file('shard2.jsonl'), file('shard0.jsonl'), file('shard1.jsonl'), '--out', file('merged.jsonl')]);
    expect(merged.code, merged.stderr).toBe(0);

    const one = readFileSync(file('one.jsonl'), 'utf8');
    expect(readFileSync(file('two.jsonl'), 'utf8')).toBe(one);
    expect(readFileSync(file('four.jsonl'), 'utf8')).toBe(one);
    expect(readFileSync(file('merged.jsonl'), 'utf8')).toBe(one);
    const [header, ...rows] = one
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as SweepRow & { variants: number });
    expect(header!.variants).toBe(12);
    expect(rows.map((r) => r.rank)).toEqual(rows.map((_, i) => i + 1));

    const top = rows[0]!;
    expect(top.command).toBe(`npm run sim -- bare-metal-sandbox --seed 11 --fault 20:${top.faults[0]!.fault}:${top.faults[0]!.target} --until 30`);
    const replay = await sim(top.command.split(' ').slice(4));
    expect((JSON.parse(replay.stdout) as { digest: string }).digest).toBe(top.digest);
  }, 120_000);

  it('refuses bad input with one line naming the flag, exit status 2', async () => {
    expectRefused(await sim(['sweep', 'bare-metal-sandbox', '--shard', '3/3']), '--shard: I is 0-based, so 3/3 needs I from 0 to 2');
    expectRefused(await sim(['sweep', 'bare-metal-sandbox', '--at', '290', '--for', '20']), '--for: 290 s + 20 s runs past the end of the scenario (300 s); at most 10 s');
  }, 20_000);

  it('checks every flag before a run', () => {
    const refused = (argv: string[]): string => refusedBy(parseSweepArgs, argv);
    expect(refused(['x', '--jobs', '0'])).toBe('--jobs: expected a whole number from 1 to 256, got "0"');
    expect(refused(['x', '--shard', '1'])).toBe('--shard: expected I/N with I from 0 to N-1 (0-based: 0/3, 1/3, 2/3), got "1"');
    expect(refused(['x', '--shard', '-1/3'])).toBe('--shard: I: expected a whole number from 0, got "-1"');
    expect(refused(['x', '--faults', 'delete-pod,nope'])).toBe('--faults: no fault "nope" in the catalog (see --list)');
    expect(refused(['x', '--at', '1e3'])).toBe('--at: expected a number of seconds from 0, got "1e3"');
    expect(refused(['x', '--for', '0'])).toBe('--for: expected a number of seconds above 0, got "0"');
    expect(refused(['x', '--pairs=1'])).toBe('--pairs: takes no value, got "--pairs=1"');
    expect(refused([])).toBe('sweep: missing scenario: give a file path or a shipped scenario id (see --list)');
    expect(parseSweepArgs(['x', '--shard', '2/3', '--jobs', '4', '--pairs'])).toMatchObject({ scenario: 'x', shard: { index: 2, count: 3 }, jobs: 4, pairs: true });
  });

  // Merges the first test's files.
  it("links each row to its run in the app with --app, and the link replays to the row's digest", async () => {
    const merged = await sim([
      'sweep-merge',
      file('shard0.jsonl'),
      file('shard1.jsonl'),
      file('shard2.jsonl'),
      '--fix-top',
      '0',
      '--app',
      'https://example.org/nm/?old=1#x',
      '--out',
      file('linked.jsonl'),
      '--html',
      file('linked.html'),
    ]);
    expect(merged.code, merged.stderr).toBe(0);
    const [first, ...lines] = readFileSync(file('linked.jsonl'), 'utf8').trimEnd().split('\n');
    const header = JSON.parse(first!) as SweepHeader;
    const rows = lines.map((line) => JSON.parse(line) as SweepRow);
    const top = rows[0]!;
    expect(top.link).toMatch(/^https:\/\/example\.org\/nm\/\?scenario=bare-metal-sandbox\.yaml&seed=/);
    const params = parseUrlParams(new URL(top.link!).search);
    expect(params.errors).toEqual([]);
    expect(params).toMatchObject({ scenario: 'bare-metal-sandbox.yaml', seed: header.seed, fixes: [], t: 30 });
    expect(params.timeline).toEqual(top.faults.map((f) => ({ at: 20, fault: f.fault, target: f.target })));
    // The app loads a link's timeline additions as the worker does; its run reaches the row's digest.
    const text = readFileSync(new URL('../../public/scenarios/bare-metal-sandbox.yaml', import.meta.url), 'utf8');
    const loaded = loadWithAdditions(text, 'bare-metal-sandbox.yaml', { seed: params.seed, timeline: params.timeline }, 'timeline');
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const run = createSim(loaded.scenario, { fixes: [] });
    run.runUntil(atSeconds(30));
    expect(run.report(0).digest).toBe(top.digest);
    expect(readFileSync(file('linked.html'), 'utf8')).toContain(`<a href="${top.link!.replaceAll('&', '&amp;')}">open this run in Netmortem</a>`);

    // A scenario from a file travels inside the link.
    const own = file('own.yaml');
    writeFileSync(own, text);
    const [linked] = withLinks('file:///srv/nm/index.html', { ...header, source: own }, [top]);
    const inline = parseUrlParams(new URL(linked!.link!).search).inline;
    expect(inline).toEqual({ name: 'own.yaml', text });
    expect(() => parseSweepArgs(['x', '--app', 'example.org'])).toThrow(
      '--app: expected the address the app is served at, like https://example.org/netmortem/ or file:///srv/netmortem/index.html, got "example.org"',
    );
  }, 60_000);

  it('merges only whole sweeps: every variant once, all of one sweep', () => {
    // Bad input is refused before sweepMerge returns its promise.
    const merge = (...files: string[]): string => refusedBy((argv) => sweepMerge(parseMergeArgs(argv) as MergeArgs), [...files.map(file), '--out', file('out.jsonl')]);
    expect(merge('shard0.jsonl', 'shard1.jsonl')).toBe("sweep-merge: 4 of the sweep's 12 variants are in none of the files (index 2, 5, 8, 11); give every shard's output");
    expect(merge('shard0.jsonl', 'shard1.jsonl', 'shard0.jsonl')).toMatch(/variant 0 is also in ".*shard0.jsonl"; give each shard once$/);
    expect(merge('one.jsonl', 'nope.jsonl')).toMatch(/nope.jsonl": cannot be read \(no such file\)$/);
    const [header, ...rows] = readFileSync(file('shard1.jsonl'), 'utf8').split('\n');
    writeFileSync(file('longer.jsonl'), [header!.replace('"for":10', '"for":11'), ...rows].join('\n'));
    expect(merge('shard0.jsonl', 'longer.jsonl')).toMatch(/longer.jsonl": is not of the same sweep as ".*shard0.jsonl" \(for differs\)$/);
    writeFileSync(file('beyond.jsonl'), [header, rows[0]!.replace('"index":1,', '"index":12,')].join('\n'));
    expect(merge('shard0.jsonl', 'beyond.jsonl')).toMatch(/beyond.jsonl": variant index 12 is not one of the sweep's \(0 to 11\)$/);
  });
});
