import type { KeyboardEvent } from 'react';
import type { ExpectResult } from '../sim/api';
import { formatCount } from './format';
import { CheckIcon, ChevronUpIcon, CrossIcon } from './icons';

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
        held
          ? 'bg-emerald-100 text-emerald-800 dark:bg-emerald-900/60 dark:text-emerald-200'
          : 'bg-red-100 text-red-800 dark:bg-red-900/60 dark:text-red-200'
      }`}
    >
      {held ? <CheckIcon /> : <CrossIcon />}
      {held ? 'held' : 'failed'}
    </span>
  );
}

function closeOnEscape(event: KeyboardEvent<HTMLDetailsElement>): void {
  const details = event.currentTarget;
  if (event.key !== 'Escape' || !details.open) return;
  details.open = false;
  details.querySelector('summary')?.focus();
}

/** The scenario's expectations as the run report judged them: a one-line tally that opens into one row each. */
export function ExpectationResults({ results }: { results: ExpectResult[] }) {
  const held = results.filter((e) => e.held).length;
  const allHeld = held === results.length;
  return (
    <details className="group relative" onKeyDown={closeOnEscape}>
      <summary
        className={`flex cursor-pointer list-none items-center gap-1.5 rounded-md px-1.5 py-0.5 font-medium hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:hover:bg-slate-800 [&::-webkit-details-marker]:hidden ${
          allHeld ? 'text-emerald-700 dark:text-emerald-300' : 'text-red-700 dark:text-red-300'
        }`}
      >
        {allHeld ? <CheckIcon /> : <CrossIcon />}
        <span data-testid="expect-tally">
          {held}/{results.length} expectations held
        </span>
        <ChevronUpIcon className="size-4 transition-transform group-open:rotate-180" />
      </summary>
      {/* Opens upwards: the report line sits at the bottom of the window. */}
      <div className="absolute bottom-full left-0 z-20 mb-2 w-[38rem] max-w-[calc(100vw-2rem)] overflow-hidden rounded-lg border border-slate-200 bg-white shadow-lg dark:border-slate-700 dark:bg-slate-900">
        <div className="border-b border-slate-200 px-3 py-1.5 text-xs font-semibold uppercase tracking-wide text-slate-500 dark:border-slate-800 dark:text-slate-400">
          Expectations
        </div>
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
      </div>
    </details>
  );
}
