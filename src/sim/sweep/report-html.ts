import { formatCount } from '../core/format';
import type { FixEffect } from './fixes';
import type { PerStep } from './impact';
import { bestFix, rootCause, type SweepHeader, type SweepRow } from './table';
import type { RowWhy } from './why';
import { windowStart } from './window';

/** How many rows the report charts and explains one by one, unless told otherwise; the table below holds them all. */
export const REPORT_TOP = 5;
/** How many rows the bar chart of scores shows. */
const CHART_ROWS = 15;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text as HTML text or attribute value: every character markup could read is an entity. */
const esc = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
const num = (n: number): string => formatCount(Math.round(n * 1000) / 1000);
/** What the variant changed: its risky setting, if any, and its faults. */
const faultsOf = (row: SweepRow): string => [...(row.setting ? [`setting ${row.setting.id} on ${row.setting.target}`] : []), ...row.faults.map((f) => `${f.fault} ${f.target}`)].join(' + ');
const recovery = (s: number | null | undefined): string => (s === undefined ? '' : s === null ? 'not within the run' : `${num(s)} s`);
const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/**
 * The sweep's report as one self-contained HTML page, also well-formed XML: no script, no request (a
 * Content-Security-Policy forbids any),
 * inline CSS with light and dark colours, inline SVG charts. It states what was swept and the unfaulted run, charts the
 * worst rows' scores, explains the `top` worst one by one (failures per step against the unfaulted run, why chains with
 * the remedy known for their cause, the scenario's fixes as measured), then lists every row. Every text is escaped.
 */
export function sweepReportHtml(header: SweepHeader, rows: readonly SweepRow[], top = REPORT_TOP): string {
  const ranked = [...rows].sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity) || a.index - b.index);
  const harmful = ranked.filter((r) => r.refused === undefined && r.score! > 0);
  const title = `Sweep of ${header.scenario}`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8" />',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'" />`,
    '<meta name="viewport" content="width=device-width, initial-scale=1" />',
    `<title>${esc(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<main>',
    `<h1>${esc(title)}</h1>`,
    summary(header, ranked),
    '<section aria-labelledby="risks">',
    '<h2 id="risks">Top risks by score</h2>',
    harmful.length === 0 ? '<p>No variant did harm beyond the unfaulted run.</p>' : scoreChart(harmful.slice(0, CHART_ROWS)),
    '</section>',
    ...harmful.slice(0, top).map((row) => riskSection(header, row)),
    '<section aria-labelledby="table">',
    '<h2 id="table">Every variant, ranked</h2>',
    table(ranked),
    '</section>',
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function summary(header: SweepHeader, rows: readonly SweepRow[]): string {
  const refused = rows.filter((r) => r.refused !== undefined).length;
  const items: [string, string][] = [
    ['Scenario', `${header.scenario} (${header.source}), seed ${header.seed}`],
    ['Loaded with', [...header.fixes.map((f) => `--fix ${f}`), ...header.sets.map((s) => `--set ${s}`)].join(' ') || 'nothing but its own settings'],
    ['Faults', `${header.faults === null ? 'every fault of the catalog' : header.faults.join(', ')}${header.pairs ? ', alone and in pairs' : ', one at a time'}`],
    ['When', `landing at ${num(header.at)} s, measured for ${num(header.for)} s after (to ${num(header.at + header.for)} s)`],
    ['Variants', `${num(header.variants)}${rows.length !== header.variants ? ` (${num(rows.length)} in this table)` : ''}, ${num(refused)} refused by their target`],
    ['Risky settings', header.settings === null ? 'every risky setting the model knows, where the scenario does not have it' : header.settings.join(', ') || 'none'],
    ['Nothing to land on', [...header.untargeted, ...header.untargetedSettings].join(', ') || 'none'],
    ['Settings it already has', header.settingsInEffect.map((s) => `${s.id} on ${s.target}`).join(', ') || 'none'],
    [
      'Unfaulted run',
      `digest ${header.baseline.digest}; ${num(header.baseline.failedRequests)} failed requests and ${num(header.baseline.failedConnections)} failed connections in the same window`,
    ],
    ['Fixes tried', header.fixTop === undefined ? 'none (a shard)' : header.fixTop === 0 ? 'none' : `the scenario's own fixes on the ${num(header.fixTop)} worst rows that did harm`],
  ];
  return `<dl class="summary">${items.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl>`;
}

/** Horizontal bars of the rows' scores, the worst first. */
function scoreChart(rows: readonly SweepRow[]): string {
  const rowH = 24;
  const labelW = 330;
  const barW = 440;
  const width = labelW + barW + 80;
  const height = rows.length * rowH + 8;
  const max = Math.max(...rows.map((r) => r.score!));
  const bars = rows.map((row, i) => {
    const y = i * rowH + 4;
    const w = Math.max(1, (row.score! / max) * barW);
    const label = `#${row.rank ?? '?'} ${faultsOf(row)}`;
    const shown = label.length > 46 ? `${label.slice(0, 45)}…` : label;
    return (
      `<g><title>${esc(`${label}: score ${num(row.score!)}`)}</title>` +
      `<text x="${labelW - 8}" y="${y + rowH / 2 + 4}" text-anchor="end" class="label">${esc(shown)}</text>` +
      `<rect x="${labelW}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 8}" class="bar"/>` +
      `<text x="${(labelW + w + 6).toFixed(1)}" y="${y + rowH / 2 + 4}" class="value">${esc(num(row.score!))}</text></g>`
    );
  });
  return `<svg class="chart" role="img" aria-label="Scores of the worst variants" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">${bars.join('')}</svg>`;
}

function riskSection(header: SweepHeader, row: SweepRow): string {
  const id = `risk-${row.index}`;
  const facts = [
    `score ${num(row.score!)}`,
    `${num(row.failedRequests!.extra)} more failed requests (${num(row.failedRequests!.variant)} against ${num(row.failedRequests!.baseline)})`,
    `${num(row.failedConnections!.extra)} more failed connections`,
    `recovered: ${recovery(row.recoveredAfterS)}`,
  ];
  return [
    `<section aria-labelledby="${id}" class="risk">`,
    `<h2 id="${id}">#${esc(String(row.rank ?? '?'))} ${esc(faultsOf(row))}</h2>`,
    `<p class="facts">${facts.map(esc).join(' · ')}</p>`,
    failureChart(header, row),
    '<h3>Why</h3>',
    row.why && row.why.length > 0 ? row.why.map(whyBlock).join('\n') : '<p>The run recorded no chain of its own beyond the unfaulted run.</p>',
    '<h3>The scenario\u2019s fixes, measured</h3>',
    fixTable(row),
    `<p class="replay">Replay: <code>${esc(row.command)}</code>${row.link ? ` or <a href="${esc(row.link)}">open this run in Netmortem</a>` : ''}</p>`,
    '</section>',
  ].join('\n');
}

/** Failures (failed requests and connections) in each metrics step of the window, the variant's against the unfaulted run's. */
function failureChart(header: SweepHeader, row: SweepRow): string {
  if (!row.perStep || row.perStep.failed.length === 0) return '<p>No per-step figures in this row.</p>';
  const failures = (p: PerStep): number[] => p.failed.map((f, k) => f + (p.failedConnections[k] ?? 0));
  const base = failures(header.baseline.perStep);
  const mine = failures(row.perStep);
  const step = header.baseline.stepSeconds;
  const t0 = windowStart(header.at, step) * step;
  const n = Math.max(mine.length, base.length);
  const width = 760;
  const height = 170;
  const left = 56;
  const right = 12;
  const topPad = 12;
  const bottom = 34;
  const max = Math.max(1, ...mine, ...base);
  const x = (k: number): number => left + ((k + 1) / n) * (width - left - right);
  const y = (v: number): number => topPad + (1 - v / max) * (height - topPad - bottom);
  const line = (values: readonly number[]): string => values.map((v, k) => `${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const faultX = left + ((header.at - t0) / (n * step)) * (width - left - right);
  const label = `Failed requests and connections per ${num(step)} s step from ${num(t0)} s to ${num(t0 + n * step)} s: ${num(sum(mine))} in this variant, ${num(sum(base))} unfaulted`;
  return [
    `<figure><svg class="chart" role="img" aria-label="${esc(label)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">`,
    `<line x1="${left}" y1="${y(0)}" x2="${width - right}" y2="${y(0)}" class="axis"/>`,
    `<line x1="${left}" y1="${topPad}" x2="${left}" y2="${y(0)}" class="axis"/>`,
    `<text x="${left - 6}" y="${topPad + 4}" text-anchor="end" class="tick">${esc(num(max))}</text>`,
    `<text x="${left - 6}" y="${y(0) + 4}" text-anchor="end" class="tick">0</text>`,
    `<text x="${left}" y="${height - 12}" class="tick">${esc(num(t0))} s</text>`,
    `<text x="${width - right}" y="${height - 12}" text-anchor="end" class="tick">${esc(num(t0 + n * step))} s</text>`,
    // A setting alone is on from time 0: no fault lands during the measured steps.
    row.faults.length === 0
      ? ''
      : `<line x1="${faultX.toFixed(1)}" y1="${topPad}" x2="${faultX.toFixed(1)}" y2="${y(0)}" class="fault"/>` +
        `<text x="${(faultX + 4).toFixed(1)}" y="${topPad + 10}" class="tick">fault at ${esc(num(header.at))} s</text>`,
    `<polyline points="${line(base)}" class="baseline"/>`,
    `<polyline points="${line(mine)}" class="variant"/>`,
    '</svg>',
    `<figcaption><span class="key variant-key"></span> this variant <span class="key baseline-key"></span> unfaulted run — ${esc(label)}</figcaption></figure>`,
  ].join('');
}

function whyBlock(chain: RowWhy): string {
  const counts = `${num(chain.cause.count)} times in this run, ${num(chain.cause.baseline)} unfaulted`;
  const steps = chain.steps.map((s) => `<li><span class="entity">${esc(s.entity)}</span> ${esc(s.text)}</li>`).join('');
  const remedy = chain.remedy
    ? `<div class="remedy"><strong>What helps, in general:</strong> ${esc(chain.remedy.text)} <span class="sources">(${chain.remedy.sources.map((s) => `<code>${esc(s)}</code>`).join(', ')})</span></div>`
    : '<div class="remedy">The project knows no general remedy for this kind of fact.</div>';
  return `<div class="why"><h4>${esc(chain.symptom)} <span class="count">(${esc(chain.cause.kind)}: ${esc(counts)})</span></h4><ol>${steps}</ol>${remedy}</div>`;
}

function fixTable(row: SweepRow): string {
  const effects: readonly FixEffect[] = row.fixEffects ?? [];
  if (effects.length === 0) return '<p>No fix of the scenario was tried on this row (the scenario has none the sweep did not apply, or --fix-top left it out).</p>';
  const best = bestFix(effects, row.score);
  const lines = effects.map((e) => {
    if (e.score === undefined) return `<tr><td>${esc(e.fix)}</td><td colspan="4">${esc(e.refused ?? '')}</td></tr>`;
    const symptom = e.symptom ? `${num(e.symptom.count)} (unfaulted with the fix: ${num(e.symptom.baseline)})` : '';
    const removes = e.removesSymptom === undefined ? '' : e.removesSymptom ? 'yes' : 'no';
    return `<tr${e === best ? ' class="best"' : ''}><td>${esc(e.fix)}</td><td class="n">${esc(num(e.score))}</td><td>${esc(recovery(e.recoveredAfterS))}</td><td>${esc(symptom)}</td><td>${removes}</td></tr>`;
  });
  return `<table class="fixes"><thead><tr><th>Fix</th><th>Score with it (${esc(num(row.score!))} without)</th><th>Recovered</th><th>Main symptom with it</th><th>Removes it</th></tr></thead><tbody>${lines.join('')}</tbody></table>`;
}

function table(rows: readonly SweepRow[]): string {
  const head = ['Rank', 'Score', 'Faults', 'Failed requests +', 'Failed connections +', 'Recovered', 'Root cause', 'Best fix', 'Replay'];
  const body = rows.map((row) => {
    const best = bestFix(row.fixEffects, row.score);
    const cells =
      row.refused !== undefined
        ? [`<td class="n">${esc(String(row.rank ?? ''))}</td>`, '<td></td>', `<td>${esc(faultsOf(row))}</td>`, `<td colspan="5">refused: ${esc(row.refused)}</td>`]
        : [
            `<td class="n">${esc(String(row.rank ?? ''))}</td>`,
            `<td class="n">${esc(num(row.score!))}</td>`,
            `<td>${esc(faultsOf(row))}</td>`,
            `<td class="n">${esc(num(row.failedRequests!.extra))}</td>`,
            `<td class="n">${esc(num(row.failedConnections!.extra))}</td>`,
            `<td>${esc(recovery(row.recoveredAfterS))}</td>`,
            `<td>${esc(rootCause(row))}</td>`,
            `<td>${best ? esc(`${best.fix} (${num(best.score!)})`) : ''}</td>`,
          ];
    return `<tr>${cells.join('')}<td><code>${esc(row.command)}</code></td></tr>`;
  });
  return `<div class="scroll"><table class="ranked"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${body.join('')}</tbody></table></div>`;
}

const STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1b1f24; --muted: #5b6470; --line: #d6dae0; --panel: #f5f7fa;
  --bar: #c2410c; --variant: #c2410c; --baseline: #64748b; --fault: #7c3aed; --best: #e7f6ec; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #14171c; --fg: #e6e9ee; --muted: #9aa4b2; --line: #333a44; --panel: #1d2229;
    --bar: #fb923c; --variant: #fb923c; --baseline: #94a3b8; --fault: #a78bfa; --best: #163322; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 26px; margin: 0 0 12px; }
h2 { font-size: 20px; margin: 32px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 18px 0 6px; }
h4 { font-size: 15px; margin: 0 0 4px; }
code { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.summary { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; padding: 12px 16px; background: var(--panel); border-radius: 8px; }
.summary dt { color: var(--muted); }
.summary dd { margin: 0; overflow-wrap: anywhere; }
.chart { max-width: 100%; height: auto; display: block; }
.chart text { fill: var(--fg); font-size: 12px; }
.chart .tick { fill: var(--muted); font-size: 11px; }
.chart .bar { fill: var(--bar); }
.chart .axis { stroke: var(--line); }
.chart .fault { stroke: var(--fault); stroke-dasharray: 4 3; }
.chart polyline { fill: none; stroke-width: 2; }
.chart .variant { stroke: var(--variant); }
.chart .baseline { stroke: var(--baseline); stroke-dasharray: 6 4; }
figure { margin: 8px 0; }
figcaption { color: var(--muted); font-size: 13px; }
.key { display: inline-block; width: 18px; height: 0; border-top: 3px solid var(--variant); vertical-align: middle; margin: 0 4px 0 8px; }
.key.baseline-key { border-top: 3px dashed var(--baseline); }
.facts { color: var(--muted); margin: 0 0 4px; }
.why { background: var(--panel); border-radius: 8px; padding: 10px 14px; margin: 8px 0; }
.why ol { margin: 4px 0 8px; padding-left: 22px; }
.why .entity { font-weight: 600; }
.why .count { color: var(--muted); font-weight: 400; font-size: 13px; }
.remedy { border-left: 3px solid var(--fault); padding-left: 10px; }
.sources { color: var(--muted); }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
tr.best td { background: var(--best); }
.scroll { overflow-x: auto; }
.replay { color: var(--muted); }
`;
