import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSweepArgs } from '../../src/cli/sweep-args';
import { UsageError } from '../../src/cli/args';
import { whyBeyond, type SweepHeader, type SweepRow, type WhyChain } from '../../src/sim';
import { sim, STACK } from '../fixtures/cli';

const tmp = mkdtempSync(join(tmpdir(), 'netmortem-sweep-report-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const file = (name: string): string => join(tmp, name);

async function run(argv: string[]): Promise<string> {
  const exit = await sim(argv);
  expect(exit.stderr).not.toMatch(STACK);
  expect(exit.code, exit.stderr).toBe(0);
  return exit.stderr;
}

const rowsOf = (path: string): SweepRow[] =>
  readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as SweepRow);
const named = (rows: SweepRow[], faults: string): SweepRow => rows.find((r) => r.faults.map((f) => `${f.fault} ${f.target}`).join(' + ') === faults)!;

/** The elements the report is made of. */
const REPORT_TAGS = [
  'html',
  'head',
  'meta',
  'title',
  'style',
  'body',
  'main',
  'h1',
  'h2',
  'h3',
  'h4',
  'dl',
  'dt',
  'dd',
  'section',
  'p',
  'svg',
  'g',
  'text',
  'rect',
  'line',
  'polyline',
  'figure',
  'figcaption',
  'span',
  'div',
  'ol',
  'li',
  'strong',
  'code',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
];

const chain = (kind: string, entity: string, count: number): WhyChain => ({ symptom: `${kind} at ${entity}`, cause: { kind, entity, count }, steps: [{ entity, text: `${count} times` }] });

describe("a row's why chains", () => {
  it('are those of facts the unfaulted run lacks or has at most half of, the biggest first, one per kind', () => {
    const baseline = [chain('rp_filter_martian', 'node/node-a', 3), chain('node_down', 'router/tor', 10)];
    const variant = [
      chain('rp_filter_martian', 'node/node-a', 5),
      chain('rp_filter_martian', 'node/node-b', 3),
      chain('node_down', 'router/tor', 20),
      chain('service_no_endpoints', 'node/node-c', 174),
      chain('service_no_endpoints', 'node/node-a', 87),
    ];
    expect(whyBeyond(baseline, variant).map((c) => [c.cause.kind, c.cause.entity, c.cause.count, c.cause.baseline])).toEqual([
      ['service_no_endpoints', 'node/node-c', 174, 0],
      ['node_down', 'router/tor', 20, 10],
      ['rp_filter_martian', 'node/node-b', 3, 0],
    ]);
    expect(whyBeyond(baseline, baseline)).toEqual([]);
  });
});

// The demo's clients redial 300 ms after a failure, and kube-proxy learns of a gone endpoint 1 s after: a rolling
// update of web sends redials to the old pods' addresses, whose SYNs die as martians until the 5 s connect timeout.
describe('the fixes of the scenario, tried on the worst rows', () => {
  const sweep = ['sweep', 'demo', '--faults', 'rolling-update,delete-pod', '--fix-top', '2'];
  let rows: SweepRow[];
  let progress: string;
  beforeAll(async () => {
    progress = await run([...sweep, '--out', file('one.jsonl'), '--csv', file('one.csv'), '--html', file('one.html')]);
    rows = rowsOf(file('one.jsonl'));
  }, 60_000);

  it('lower the score of a variant whose symptom a fix cures, and say it removes the symptom', () => {
    const update = named(rows, 'rolling-update deployment/web');
    expect(update.rank).toBe(1);
    expect(update.why![0]!.cause).toMatchObject({ kind: 'rp_filter_martian', entity: 'node/node-b', baseline: 0 });
    const effect = (fix: string) => update.fixEffects!.find((e) => e.fix === fix)!;
    expect(update.fixEffects!.map((e) => e.fix)).toEqual(['wait-for-propagation', 'short-connect-timeout', 'faster-propagation']);
    // Endpoints reach kube-proxy in 100 ms, before any redial: no SYN meets a gone address, and most of the harm goes.
    expect(effect('faster-propagation')).toMatchObject({ symptom: { count: 0, baseline: 0 }, removesSymptom: true });
    expect(effect('faster-propagation').score! / update.score!).toBeLessThan(0.25);
    // Clients that wait 1.5 s redial after kube-proxy has dropped the endpoint: the same.
    expect(effect('wait-for-propagation')).toMatchObject({ symptom: { count: 0 }, removesSymptom: true });
    expect(effect('wait-for-propagation').score! / update.score!).toBeLessThan(0.5);
    // A 1 s connect timeout still sends the redials to the gone addresses; each fails sooner.
    expect(effect('short-connect-timeout').removesSymptom).toBe(false);
    expect(effect('short-connect-timeout').symptom!.count).toBeGreaterThan(0);
    expect(progress).toContain('sweep demo: 3 fixes on the 2 worst: 9/9 runs done');
  });

  it('only on the rows asked for, and a fix run replays to its digest', async () => {
    expect(rows.filter((r) => r.fixEffects !== undefined).map((r) => r.rank)).toEqual([1, 2]);
    const update = named(rows, 'rolling-update deployment/web');
    const replay = await sim([...update.command.split(' ').slice(4), '--fix', 'faster-propagation']);
    expect((JSON.parse(replay.stdout) as { digest: string }).digest).toBe(update.fixEffects!.find((e) => e.fix === 'faster-propagation')!.digest);
  }, 30_000);

  it('give the same table from two jobs, and from shards merged (which try the fixes again)', async () => {
    await run([...sweep, '--jobs', '2', '--out', file('two.jsonl'), '--html', file('two.html')]);
    for (const i of [0, 1]) await run([...sweep, '--shard', `${i}/2`, '--out', file(`shard${i}.jsonl`)]);
    await run(['sweep-merge', file('shard1.jsonl'), file('shard0.jsonl'), '--fix-top', '2', '--out', file('merged.jsonl'), '--html', file('merged.html')]);
    const one = readFileSync(file('one.jsonl'), 'utf8');
    expect(readFileSync(file('two.jsonl'), 'utf8')).toBe(one);
    expect(readFileSync(file('merged.jsonl'), 'utf8')).toBe(one);
    expect(readFileSync(file('merged.html'), 'utf8')).toBe(readFileSync(file('one.html'), 'utf8'));
    expect(rowsOf(file('shard0.jsonl')).every((r) => r.fixEffects === undefined)).toBe(true);
  }, 90_000);

  it("put the row's root cause and its best measured fix in the CSV", () => {
    const [head, first] = readFileSync(file('one.csv'), 'utf8').split('\r\n');
    const columns = head!.split(',');
    expect(columns).toContain('root_cause');
    const cells = first!.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, ''));
    expect(cells[columns.indexOf('faults')]).toBe('rolling-update deployment/web');
    expect(cells[columns.indexOf('root_cause')]).toMatch(/^"?rp_filter_martian at node\/node-b: deployment\/client its clients redial 300 ms after a connection fails/);
    expect(cells[columns.indexOf('best_fix')]).toBe('faster-propagation');
  });

  it("keeps each step's failures, whose sums are the window's, for the report's charts", () => {
    const header = JSON.parse(readFileSync(file('one.jsonl'), 'utf8').split('\n')[0]!) as SweepHeader;
    const total = (values: number[]): number => values.reduce((a, b) => a + b, 0);
    expect(total(header.baseline.perStep.failed)).toBe(header.baseline.failedRequests);
    expect(total(header.baseline.perStep.failedConnections)).toBe(header.baseline.failedConnections);
    for (const row of rows) {
      expect(total(row.perStep!.failed), row.command).toBe(row.failedRequests!.variant);
      expect(row.perStep!.failed).toHaveLength(header.baseline.perStep.failed.length);
    }
  });

  it('is written as an HTML report that charts the worst rows and explains them, with nothing to fetch', () => {
    const html = readFileSync(file('one.html'), 'utf8');
    expect(html.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'" />`);
    expect(html).toContain('<h2 id="risk-');
    expect(html.match(/<svg /g)).toHaveLength(1 + rows.filter((r) => r.score! > 0).slice(0, 5).length);
    expect(html).toContain('faster-propagation');
    expect(html).not.toMatch(/<script|\bsrc=|\bhref=|url\(|@import|https?:/i);
  });
});

describe('the report of an imported scenario with hostile names', () => {
  it('escapes every name it shows', async () => {
    // A file name may hold anything but a slash.
    const hostile = `x"><script>alert(1)<img src=x onerror=alert(2)>&amp;'.yaml`;
    const path = file(hostile);
    copyFileSync(new URL('../../public/scenarios/demo.yaml', import.meta.url), path);
    const title = '</title><svg onload=alert(3)>';
    await run(['sweep', path, '--faults', 'delete-pod', '--for', '10', '--set', `title=${title}`, '--html', file('hostile.html')]);
    const html = readFileSync(file('hostile.html'), 'utf8');
    // Every tag is one the report writes, and no tag has an attribute it does not write.
    const tags = new Set([...html.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => m[1]!.toLowerCase()));
    expect([...tags].filter((t) => !REPORT_TAGS.includes(t))).toEqual([]);
    const attributes = new Set([...html.matchAll(/<[a-zA-Z][^>]*>/g)].flatMap((m) => [...m[0].matchAll(/\s([a-zA-Z-]+)=/g)].map((a) => a[1]!)));
    expect([...attributes].filter((a) => a.startsWith('on') || a === 'src' || a === 'href')).toEqual([]);
    expect(html).toContain('x&quot;&gt;&lt;script&gt;alert(1)&lt;img src=x onerror=alert(2)&gt;&amp;amp;&#39;.yaml');
    expect(html).toContain('--set title=&lt;/title&gt;&lt;svg onload=alert(3)&gt;');
  }, 30_000);

  it('is refused for a shard, which holds part of the table', () => {
    expect(() => parseSweepArgs(['demo', '--shard', '0/2', '--html', 'x.html'])).toThrow(UsageError);
    expect(() => parseSweepArgs(['demo', '--fix-top', '-1'])).toThrow('--fix-top: expected a whole number from 0 to 1000, got "-1"');
  });
});
