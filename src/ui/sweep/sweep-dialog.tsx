import { memo, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { bestFix, FIX_TOP, MAX_FIX_TOP, type SweepRow } from '../../sim';
import { useApp } from '../../state/app-store';
import { MAX_LINK_CHARS } from '../../state/share-link';
import { Modal } from '../components/modal';
import { accentButton, button, smallButton, textField } from '../components/styles';
import { counted, formatCount } from '../components/format';
import { closeSweep } from './sweep-open';
import { variantName } from './rows';
import { cancelSweep, downloadCsv, downloadReport, openRow, poolSize, rowLink, startSweep, useSweep, type SweepState } from './sweep-state';

type SortKey = 'rank' | 'faults' | 'requests' | 'connections' | 'p99' | 'recovery';
type Sort = { key: SortKey; descending: boolean };

const COLUMNS: { key: SortKey; label: string; numeric: boolean }[] = [
  { key: 'rank', label: 'Rank (score)', numeric: true },
  { key: 'faults', label: 'Faults and targets', numeric: false },
  { key: 'requests', label: 'Failed requests, extra', numeric: true },
  { key: 'connections', label: 'Failed connections, extra', numeric: true },
  { key: 'p99', label: 'p99 before → after', numeric: true },
  { key: 'recovery', label: 'Recovery', numeric: true },
];

const faultsText = (row: SweepRow): string => variantName(row);
const worstP99 = (row: SweepRow): number => Math.max(-1, ...Object.values(row.p99Ms ?? {}).map((p) => p.variant ?? -1));

/** A row's value in a column, for sorting; the rank's order is the ranking itself. */
function sortValue(row: SweepRow, key: SortKey): number | string {
  switch (key) {
    case 'rank':
      return row.rank ?? 0;
    case 'faults':
      return faultsText(row);
    case 'requests':
      return row.failedRequests?.extra ?? 0;
    case 'connections':
      return row.failedConnections?.extra ?? 0;
    case 'p99':
      return worstP99(row);
    case 'recovery':
      return row.recoveredAfterS === null ? Infinity : (row.recoveredAfterS ?? 0);
  }
}

/** The rows in the chosen column's order, ties by rank; refused variants stay last whatever the column. */
export function sortRows(rows: readonly SweepRow[], sort: Sort): SweepRow[] {
  const ran = rows.filter((r) => r.refused === undefined);
  const refused = rows.filter((r) => r.refused !== undefined);
  const sign = sort.descending ? -1 : 1;
  ran.sort((a, b) => {
    const x = sortValue(a, sort.key);
    const y = sortValue(b, sort.key);
    const order = typeof x === 'string' ? x.localeCompare(y as string) : x === y ? 0 : x < (y as number) ? -1 : 1;
    return sign * order || (a.rank ?? 0) - (b.rank ?? 0);
  });
  return [...ran, ...refused];
}

function recoveryText(row: SweepRow): string {
  if (row.recoveredAfterS === null) return 'not within the run';
  if (row.recoveredAfterS === 0) return 'never left normal';
  return `${row.recoveredAfterS} s`;
}

function p99Text(row: SweepRow): string {
  const parts = Object.entries(row.p99Ms ?? {}).map(([name, p]) => `${name.replace(/\.latency_ms$|_ms$/, '')} ${p.baseline ?? '–'} → ${p.variant ?? '–'} ms`);
  return parts.length > 0 ? parts.join('; ') : '–';
}

const signed = (n: number | undefined): string => (n === undefined ? '–' : `${n > 0 ? '+' : ''}${formatCount(n)}`);

/** Which option field a refusal names (`at: …`), so that field is marked. */
const fieldOf = (message: string | null): string | undefined => /^(at|for|faults|fixTop):/.exec(message ?? '')?.[1];

function Options({ durationS, running }: { durationS: number; running: boolean }) {
  const catalog = useApp((s) => s.catalog);
  const error = useSweep((s) => s.error);
  // Reopened, the form shows the sweep the table holds; the first time, the CLI's defaults (a quarter in, to the end).
  const last = useSweep((s) => s.run);
  const [at, setAt] = useState(() => String(last?.at ?? Math.floor(durationS / 4)));
  const [forS, setFor] = useState(() => String(last?.for ?? durationS - Math.floor(durationS / 4)));
  const [all, setAll] = useState(true);
  const [chosen, setChosen] = useState<string[]>([]);
  const [pairs, setPairs] = useState(false);
  const [settings, setSettings] = useState(true);
  const [fixTop, setFixTop] = useState(String(FIX_TOP));
  const [local, setLocal] = useState<string | null>(null);
  const problem = local ?? error;
  const invalid = fieldOf(problem);

  const start = (): void => {
    const numbers = { at: Number(at), for: Number(forS) };
    for (const [field, text] of [
      ['at', at],
      ['for', forS],
    ] as const) {
      if (text.trim() === '' || !Number.isFinite(numbers[field])) {
        setLocal(`${field}: expected simulated seconds, got "${text}"`);
        return;
      }
    }
    const top = Number(fixTop);
    if (fixTop.trim() === '' || !Number.isInteger(top) || top < 0 || top > MAX_FIX_TOP) {
      setLocal(`fixTop: expected a whole number of rows from 0 to ${MAX_FIX_TOP}, got "${fixTop}"`);
      return;
    }
    if (!all && chosen.length === 0) {
      setLocal('faults: choose at least one fault, or sweep all of them');
      return;
    }
    setLocal(null);
    startSweep({ ...(all ? {} : { faults: chosen }), ...(settings ? {} : { settings: [] }), pairs, at: numbers.at, for: numbers.for }, top);
  };

  return (
    <form
      className="flex flex-col gap-3"
      onSubmit={(e) => {
        e.preventDefault();
        start();
      }}
    >
      <div className="flex flex-wrap items-end gap-4">
        <label className="flex flex-col gap-1 text-sm text-slate-700 dark:text-slate-200">
          Faults land at (s)
          <input className={`${textField} w-24`} inputMode="decimal" value={at} onChange={(e) => setAt(e.target.value)} aria-invalid={invalid === 'at' || undefined} data-testid="sweep-at" />
        </label>
        <label className="flex flex-col gap-1 text-sm text-slate-700 dark:text-slate-200">
          Run on for (s)
          <input
            className={`${textField} w-24`}
            inputMode="decimal"
            value={forS}
            onChange={(e) => setFor(e.target.value)}
            aria-invalid={invalid === 'for' || undefined}
            data-testid="sweep-for"
          />
        </label>
        <label
          className="flex flex-col gap-1 text-sm text-slate-700 dark:text-slate-200"
          title="Each of the scenario's own fixes is tried on this many of the worst rows: a run per fix and row; 0 tries none"
        >
          Fixes on the worst
          <input
            className={`${textField} w-24`}
            inputMode="numeric"
            value={fixTop}
            onChange={(e) => setFixTop(e.target.value)}
            aria-invalid={invalid === 'fixTop' || undefined}
            data-testid="sweep-fix-top"
          />
        </label>
        <label className="flex h-8 items-center gap-2 text-sm text-slate-700 dark:text-slate-200">
          <input type="checkbox" checked={pairs} onChange={(e) => setPairs(e.target.checked)} data-testid="sweep-pairs" />
          Pairs too (every two faults together)
        </label>
        <label className="flex h-8 items-center gap-2 text-sm text-slate-700 dark:text-slate-200">
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} data-testid="sweep-all-faults" />
          Every fault in the catalog
        </label>
        <label className="flex h-8 items-center gap-2 text-sm text-slate-700 dark:text-slate-200">
          <input type="checkbox" checked={settings} onChange={(e) => setSettings(e.target.checked)} data-testid="sweep-settings" />
          Risky settings too
        </label>
        <button type="submit" className={accentButton} disabled={running} data-testid="sweep-start">
          Run the sweep
        </button>
      </div>
      {!all && (
        <fieldset className="flex flex-wrap gap-x-4 gap-y-1" aria-invalid={invalid === 'faults' || undefined} data-testid="sweep-faults">
          <legend className="mb-1 text-sm text-slate-700 dark:text-slate-200">Faults to try</legend>
          {catalog.map((f) => (
            <label key={f.id} className="flex items-center gap-1.5 text-sm text-slate-700 dark:text-slate-200">
              <input type="checkbox" value={f.id} checked={chosen.includes(f.id)} onChange={(e) => setChosen((c) => (e.target.checked ? [...c, f.id] : c.filter((id) => id !== f.id)))} />
              {f.label}
            </label>
          ))}
        </fieldset>
      )}
      {problem && (
        <p role="alert" className="text-sm whitespace-pre-line text-red-700 dark:text-red-300" data-testid="sweep-error">
          {problem}
        </p>
      )}
    </form>
  );
}

function Progress({ state }: { state: SweepState }) {
  const [now, setNow] = useState(() => performance.now());
  const live = state.phase === 'planning' || state.phase === 'running' || state.phase === 'fixing';
  useEffect(() => {
    if (!live) return;
    const id = setInterval(() => setNow(performance.now()), 500);
    return () => clearInterval(id);
  }, [live]);
  if (state.phase === 'idle' || state.phase === 'refused') return null;
  const elapsed = Math.max(0, (state.endedAt ?? now) - state.startedAt) / 1000;
  const status =
    state.phase === 'planning'
      ? 'Running the scenario without faults and listing the variants…'
      : state.phase === 'cancelled'
        ? state.fixRuns > 0
          ? `Trying the fixes was cancelled at ${state.fixRunsDone} of ${state.fixRuns} runs; every variant's row is kept.`
          : `The sweep was cancelled at ${state.done} of ${state.total} variants; the rows done are kept.`
        : state.phase === 'fixing'
          ? `${formatCount(state.total)} variants; trying the scenario's fixes on the worst rows: ${formatCount(state.fixRunsDone)} of ${formatCount(state.fixRuns)} runs`
          : `${formatCount(state.done)} of ${formatCount(state.total)} variants${state.fixRuns > 0 ? `, and ${formatCount(state.fixRuns)} runs with the scenario's fixes` : ''}`;
  const [done, total] = state.phase === 'fixing' ? [state.fixRunsDone, state.fixRuns] : [state.done, state.total];
  return (
    <div className="flex flex-wrap items-center gap-3" data-testid="sweep-progress" data-phase={state.phase}>
      <div
        role="progressbar"
        aria-label={state.phase === 'fixing' ? 'Fix runs done' : 'Variants done'}
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={done}
        className="h-2 min-w-40 flex-1 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-700"
      >
        <div className="h-full bg-indigo-600 dark:bg-indigo-400" style={{ width: `${total === 0 ? 0 : (100 * done) / total}%` }} />
      </div>
      <span className="text-sm text-slate-700 tabular-nums dark:text-slate-200" data-testid="sweep-status" aria-live="polite">
        {status} · {elapsed.toFixed(1)} s
      </span>
      {live && (
        <button type="button" className={button} onClick={cancelSweep} data-testid="sweep-cancel">
          Cancel
        </button>
      )}
    </div>
  );
}

function SortButton({ column, sort, onSort }: { column: (typeof COLUMNS)[number]; sort: Sort; onSort: (s: Sort) => void }) {
  const active = sort.key === column.key;
  return (
    <button
      type="button"
      className="inline-flex items-center gap-1 rounded text-left font-semibold hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500"
      onClick={() => onSort({ key: column.key, descending: active ? !sort.descending : column.numeric && column.key !== 'rank' })}
      data-testid={`sweep-sort-${column.key}`}
    >
      {column.label}
      <span aria-hidden="true" className="w-3 text-slate-400">
        {active ? (sort.descending ? '▼' : '▲') : ''}
      </span>
    </button>
  );
}

const cell = 'px-2 py-1.5 align-top';

/** What the scenario's fixes did to a row they were tried on: the one that lowered its score most, or that none did. */
function FixLine({ row }: { row: SweepRow }) {
  if (!row.fixEffects) return null;
  const best = bestFix(row.fixEffects, row.score);
  return (
    <div className="font-sans text-xs text-emerald-800 dark:text-emerald-300" data-testid="sweep-row-fix">
      {best
        ? `with fix ${best.fix}: score ${formatCount(best.score!)}${best.removesSymptom ? ', main symptom gone' : ''}`
        : `none of the scenario's ${row.fixEffects.length} fixes lowered its score`}
    </div>
  );
}

/** One variant's line; redrawn only when its row (a new rank) or whether it is the opened one changes. */
const Row = memo(function Row({ row, opened }: { row: SweepRow; opened: boolean }) {
  const link = rowLink(row);
  return (
    <tr className="border-b border-slate-100 dark:border-slate-800" data-testid="sweep-row" data-index={row.index} data-digest={row.digest ?? ''}>
      <td className={`${cell} tabular-nums`}>{row.refused === undefined ? `${row.rank} (${formatCount(row.score ?? 0)})` : '–'}</td>
      <td className={`${cell} font-mono text-xs break-words`} data-testid="sweep-row-faults">
        {faultsText(row)}
        {row.refused !== undefined && <div className="font-sans text-xs text-amber-800 dark:text-amber-300">refused: {row.refused}</div>}
        <FixLine row={row} />
      </td>
      <td className={`${cell} tabular-nums`} data-testid="sweep-row-requests">
        {signed(row.failedRequests?.extra)}
      </td>
      <td className={`${cell} tabular-nums`}>{signed(row.failedConnections?.extra)}</td>
      <td className={`${cell} text-xs tabular-nums`}>{row.refused === undefined ? p99Text(row) : '–'}</td>
      <td className={cell}>{row.refused === undefined ? recoveryText(row) : '–'}</td>
      <td className={`${cell} whitespace-nowrap`}>
        {row.refused === undefined && (
          <button type="button" className={smallButton} onClick={() => void openRow(row)} data-testid="sweep-open-row" aria-label={`Open the run of ${faultsText(row)} with its why`}>
            Open{opened ? ' again' : ''}
          </button>
        )}{' '}
        {link && row.refused === undefined && link.length > MAX_LINK_CHARS && (
          <span className="text-xs text-slate-600 dark:text-slate-400" title="Longer than links are kept reliably: open the row, then Share offers the run as a scenario file">
            no link (too long)
          </span>
        )}
        {link && row.refused === undefined && link.length <= MAX_LINK_CHARS && (
          <a
            href={link}
            target="_blank"
            rel="noopener"
            className="text-xs text-indigo-700 underline dark:text-indigo-300"
            data-testid="sweep-row-link"
            aria-label={`Share link that replays ${faultsText(row)}`}
          >
            link
          </a>
        )}
      </td>
    </tr>
  );
});

/** The ranked rows; drawn from a deferred copy, so React draws a grown table in slices that give way to the page. */
// Model choice: a screenful or three; a table of thousands of rows costs the page seconds of layout as it grows.
const PAGE_ROWS = 100;

const Table = memo(function Table({ rows }: { rows: SweepRow[] }) {
  const [sort, setSort] = useState<Sort>({ key: 'rank', descending: false });
  const [shown, setShown] = useState(PAGE_ROWS);
  const sorted = useMemo(() => sortRows(rows, sort), [rows, sort]);
  const opened = useSweep((s) => s.opened?.index);
  if (rows.length === 0) return null;
  return (
    <>
      {/* Fixed column widths: a row added lays out on its own, without measuring every other row again. */}
      <table className="w-full min-w-[44rem] table-fixed border-collapse text-sm text-slate-700 dark:text-slate-200" data-testid="sweep-table">
        <colgroup>
          <col className="w-[9%]" />
          <col className="w-[27%]" />
          <col className="w-[11%]" />
          <col className="w-[12%]" />
          <col className="w-[17%]" />
          <col className="w-[12%]" />
          <col className="w-[12%]" />
        </colgroup>
        <thead className="sticky top-0 bg-white text-xs text-slate-600 dark:bg-slate-900 dark:text-slate-300">
          <tr className="border-b border-slate-200 dark:border-slate-700">
            {COLUMNS.map((column) => (
              <th key={column.key} scope="col" className={`${cell} text-left`} aria-sort={sort.key === column.key ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
                <SortButton column={column} sort={sort} onSort={setSort} />
              </th>
            ))}
            <th scope="col" className={`${cell} text-left font-semibold`}>
              Run
            </th>
          </tr>
        </thead>
        <tbody>
          {sorted.slice(0, shown).map((row) => (
            <Row key={row.index} row={row} opened={opened === row.index} />
          ))}
        </tbody>
      </table>
      {sorted.length > shown && (
        <div className="flex items-center gap-2 py-2 text-sm text-slate-600 dark:text-slate-300">
          <span data-testid="sweep-shown">
            Showing {formatCount(shown)} of {formatCount(sorted.length)} rows (every row is in the CSV).
          </span>
          <button type="button" className={smallButton} onClick={() => setShown((n) => n + PAGE_ROWS)} data-testid="sweep-more">
            Show {formatCount(Math.min(PAGE_ROWS, sorted.length - shown))} more
          </button>
        </div>
      )}
    </>
  );
});

/** The sweep: options, the pool's progress, and the ranked table that fills as the workers report. */
export default function SweepDialog() {
  const summary = useApp((s) => s.summary);
  const seed = useApp((s) => s.seed);
  const fixes = useApp((s) => s.fixes);
  const state = useSweep((s) => s);
  const rows = useDeferredValue(state.rows);
  const dialog = useRef<HTMLDivElement>(null);
  useEffect(() => dialog.current?.querySelector<HTMLInputElement>('input')?.focus(), []);
  if (!summary) return null;
  const running = state.phase === 'planning' || state.phase === 'running' || state.phase === 'fixing';
  const workers = running || state.phase !== 'idle' ? state.workers : poolSize();
  return (
    <Modal ref={dialog} title={`Sweep ${summary.title.split(': ')[0]}`} testId="sweep-dialog" width="max-w-6xl" onClose={closeSweep}>
      <div className="flex flex-col gap-3">
        <p className="text-sm text-slate-600 dark:text-slate-300" data-testid="sweep-intro">
          Tries each catalog fault on each target it can take, and each risky setting the model knows where the scenario lacks it, in the run as loaded now (seed {seed}
          {fixes.length > 0 ? `, fixes ${fixes.join(', ')}` : ''}), runs each variant for the time given, and ranks them by what clients suffered beyond the run without faults; then it tries
          each of the scenario's own fixes on the worst rows (as many as you choose). It runs on <span data-testid="sweep-workers">{counted(workers, 'worker')}</span>, one per logical core
          this browser reports ({navigator.hardwareConcurrency || 1}).
        </p>
        <Options durationS={summary.durationSeconds} running={running} />
        <Progress state={state} />
        {state.untargeted.length > 0 && <p className="text-xs text-slate-600 dark:text-slate-400">Nothing to land on in this scenario: {state.untargeted.join(', ')}.</p>}
        {state.settingsInEffect.length > 0 && (
          <p className="text-xs text-slate-600 dark:text-slate-400">
            Risky settings this scenario already has (not tried again): {state.settingsInEffect.map((s) => `${s.id} on ${s.target}`).join(', ')}.
          </p>
        )}
        {state.failures.length > 0 && (
          <ul role="alert" className="list-disc pl-5 text-sm text-red-700 dark:text-red-300" data-testid="sweep-failures">
            {state.failures.map((f) => (
              <li key={f.index}>{f.message}</li>
            ))}
          </ul>
        )}
        {state.opened?.digest !== undefined && (
          <p className="text-sm text-slate-700 dark:text-slate-200" data-testid="sweep-opened">
            The run of variant {state.opened.index + 1} reached digest <code data-testid="sweep-opened-digest">{state.opened.digest}</code>
            {(() => {
              const row = state.rows.find((r) => r.index === state.opened!.index);
              return row ? (row.digest === state.opened.digest ? ', the same as its row.' : `, not its row's ${row.digest}.`) : '.';
            })()}
          </p>
        )}
        {state.opened?.problem && (
          <p role="alert" className="text-sm text-red-700 dark:text-red-300">
            {state.opened.problem}
          </p>
        )}
        {state.rows.length > 0 && (
          <div className="flex items-center gap-2">
            <button type="button" className={smallButton} onClick={() => downloadCsv(state.rows)} data-testid="sweep-csv">
              Export CSV
            </button>
            <button type="button" className={smallButton} onClick={() => downloadReport(state.rows)} data-testid="sweep-report">
              Export report
            </button>
            <span className="text-xs text-slate-600 dark:text-slate-400" data-testid="sweep-caption">
              {state.run &&
                `${state.run.scenario}, seed ${state.run.seed}${state.run.fixes.length > 0 ? ` with ${state.run.fixes.join(', ')}` : ''}, faults at ${state.run.at} s for ${state.run.for} s. `}
              Ranked by score: extra failed requests + failed connections + requests slower than the unfaulted p99.
            </span>
          </div>
        )}
        <Table rows={rows} />
      </div>
    </Modal>
  );
}
