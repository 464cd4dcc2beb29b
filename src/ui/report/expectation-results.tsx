import type { ExpectResult } from '../../sim';
import { formatCount } from '../components/format';
import { CheckIcon, CrossIcon } from '../components/icons';
import { ReportPopover } from '../components/report-popover';

const condition = (e: ExpectResult): string => `${e.agg}(${e.metric}) ${e.op} ${e.value}`;

/** Integers as counts; other values to four significant digits, with the exact value in the tooltip. */
function formatActual(actual: number | null): string {
  if (actual === null) return 'n/a';
  return Number.isInteger(actual) ? formatCount(actual) : String(Number(actual.toPrecision(4)));
}

function Verdict({ held }: { held: boolean }) {
  return (
    <span
      className={`inline-flex shrink-0 items-center gap-1 rounded-full px-1.5 py-0.5 text-xs font-semibold ${
        held ? 'bg-emerald-100 text-emerald-800 dark:bg-emerald-900/60 dark:text-emerald-200' : 'bg-red-100 text-red-800 dark:bg-red-900/60 dark:text-red-200'
      }`}
    >
      {held ? <CheckIcon /> : <CrossIcon />}
      {held ? 'held' : 'failed'}
    </span>
  );
}

/** The scenario's expectations as the run report judged them: a one-line tally that opens into one row each. */
export function ExpectationResults({ results }: { results: ExpectResult[] }) {
  const held = results.filter((e) => e.held).length;
  const allHeld = held === results.length;
  return (
    <ReportPopover
      title="Expectations"
      tone={allHeld ? 'text-emerald-700 dark:text-emerald-300' : 'text-red-700 dark:text-red-300'}
      summary={
        <>
          {allHeld ? <CheckIcon /> : <CrossIcon />}
          <span data-testid="expect-tally">
            {held}/{results.length} expectations held
          </span>
        </>
      }
    >
      <ul className="max-h-80 divide-y divide-slate-100 overflow-y-auto dark:divide-slate-800">
        {results.map((e, i) => (
          <li key={i} data-testid="expect-result" data-held={e.held} className="flex items-start gap-3 px-3 py-2">
            <Verdict held={e.held} />
            <div className="min-w-0 flex-1">
              <p className="text-sm leading-snug text-slate-800 dark:text-slate-100">{e.description || condition(e)}</p>
              <p className="mt-0.5 font-mono text-xs text-slate-500 dark:text-slate-400">{condition(e)}</p>
            </div>
            <div className="shrink-0 text-right leading-tight">
              <div className="text-xs text-slate-500 dark:text-slate-400">actual</div>
              <div
                data-testid="expect-actual"
                title={e.actual === null ? (e.missing ?? 'nothing was measured for this check') : String(e.actual)}
                className="font-mono text-sm font-semibold tabular-nums text-slate-800 dark:text-slate-100"
              >
                {formatActual(e.actual)}
              </div>
            </div>
          </li>
        ))}
      </ul>
    </ReportPopover>
  );
}
