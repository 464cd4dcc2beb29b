import { useState } from 'react';
import type { LogEvent, Severity } from '../sim/api';
import { useFrame } from '../state/frame-store';
import { formatEventTime } from './format';
import { panel, panelTitle } from './styles';

const severityStyle: Record<Severity, string> = {
  debug: 'bg-slate-100 text-slate-500 dark:bg-slate-800 dark:text-slate-400',
  info: 'bg-sky-100 text-sky-800 dark:bg-sky-900/60 dark:text-sky-200',
  warn: 'bg-amber-100 text-amber-800 dark:bg-amber-900/60 dark:text-amber-200',
  error: 'bg-red-100 text-red-800 dark:bg-red-900/60 dark:text-red-200',
};

const SHOWN = 150;

function Entry({ event }: { event: LogEvent }) {
  return (
    <li
      data-testid="event-log-entry"
      data-severity={event.severity}
      className="grid grid-cols-[5rem_3.5rem_minmax(0,1fr)] items-baseline gap-x-2.5 border-b border-slate-100 px-3 py-1 text-sm last:border-0 dark:border-slate-800/70"
    >
      <span className="font-mono text-xs text-slate-500 tabular-nums dark:text-slate-400">{formatEventTime(event.t)}</span>
      <span className={`justify-self-start rounded px-1.5 text-[11px] font-semibold uppercase ${severityStyle[event.severity]}`}>
        {event.severity}
      </span>
      <span className="min-w-0 break-words text-slate-800 dark:text-slate-200">
        <span className="mr-2 font-mono text-xs text-slate-500 dark:text-slate-400">{event.entity}</span>
        {event.message}
        {event.reason && !event.message.includes(event.reason) && (
          <code className="ml-1.5 rounded bg-slate-100 px-1 text-xs break-all text-slate-600 dark:bg-slate-800 dark:text-slate-300">
            {event.reason}
          </code>
        )}
        {event.cause && (
          <span data-testid="event-cause" className="block text-xs text-slate-500 dark:text-slate-400">
            {event.cause}
          </span>
        )}
      </span>
    </li>
  );
}

/** Newest events first, coloured by severity; debug events only on request. */
export function EventLog() {
  const events = useFrame((s) => s.events);
  const seen = useFrame((s) => s.eventsSeen);
  const [showDebug, setShowDebug] = useState(false);
  const shown = (showDebug ? events : events.filter((e) => e.severity !== 'debug')).slice(0, SHOWN);

  return (
    <section className={panel} aria-label="Event log">
      <div className={panelTitle}>
        <h2>
          Events <span className="ml-1 font-normal normal-case text-slate-400 tabular-nums">{seen.toLocaleString('en-US')}</span>
        </h2>
        <label className="flex items-center gap-1.5 text-xs font-normal normal-case tracking-normal">
          <input type="checkbox" checked={showDebug} onChange={(e) => setShowDebug(e.target.checked)} className="accent-indigo-600" />
          debug
        </label>
      </div>
      <ol data-testid="event-log" className="min-h-0 flex-1 overflow-y-auto" aria-live="off">
        {shown.map((e) => (
          <Entry key={e.seq} event={e} />
        ))}
        {shown.length === 0 && <li className="px-3 py-4 text-sm text-slate-500 dark:text-slate-400">No events yet.</li>}
      </ol>
    </section>
  );
}
