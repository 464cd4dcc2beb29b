import { memo, useState, type KeyboardEvent } from 'react';
import type { LogEvent, Severity } from '../../sim';
import type { FrameState } from '../../state/frame-store';
import { selectEntity } from '../../state/selection';
import { setCursor } from '../../state/timeline';
import { DEFAULT_FILTER, kindsOf, matchesFilter, SEVERITIES, type EventFilter } from './event-filter';
import { formatEventTime } from '../components/format';
import { usePacedFrame } from '../services/paced-frame';
import { panel } from '../components/styles';
import { ScrollArea } from '../components/scroll-area';

const severityStyle: Record<Severity, string> = {
  debug: 'bg-slate-100 text-slate-500 dark:bg-slate-800 dark:text-slate-400',
  info: 'bg-sky-100 text-sky-800 dark:bg-sky-900/60 dark:text-sky-200',
  warn: 'bg-amber-100 text-amber-800 dark:bg-amber-900/60 dark:text-amber-200',
  error: 'bg-red-100 text-red-800 dark:bg-red-900/60 dark:text-red-200',
};

const SHOWN = 150;

const control =
  'h-7 rounded-md border border-slate-300 bg-white px-1.5 text-xs font-normal normal-case tracking-normal text-slate-800 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-100';

/** Selecting an event selects its entity and puts the timeline's crosshair on its time. */
function pick(event: LogEvent): void {
  selectEntity(event.entity);
  setCursor(event.t / 1e6);
}

/** A row renders once: events never change, and a new frame only adds rows above it. */
const Entry = memo(function Entry({ event, first }: { event: LogEvent; first: boolean }) {
  return (
    <li
      data-testid="event-log-entry"
      data-severity={event.severity}
      data-kind={event.kind}
      data-event-entity={event.entity}
      className="border-b border-slate-100 last:border-0 dark:border-slate-800/70"
    >
      <button
        type="button"
        tabIndex={first ? 0 : -1}
        onClick={() => pick(event)}
        title={`Select ${event.entity} and put the crosshair at ${formatEventTime(event.t)}`}
        className="grid w-full grid-cols-[5rem_3.5rem_minmax(0,1fr)] items-baseline gap-x-2.5 px-3 py-1 text-left text-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-500 dark:hover:bg-slate-800/60"
      >
        <span className="font-mono text-xs text-slate-500 tabular-nums dark:text-slate-400">{formatEventTime(event.t)}</span>
        <span className={`justify-self-start rounded px-1.5 text-[11px] font-semibold uppercase ${severityStyle[event.severity]}`}>{event.severity}</span>
        <span className="min-w-0 break-words text-slate-800 dark:text-slate-200">
          <span className="mr-2 font-mono text-xs text-slate-500 dark:text-slate-400">{event.entity}</span>
          {event.message}
          {event.reason && !event.message.includes(event.reason) && (
            <code className="ml-1.5 rounded bg-slate-100 px-1 text-xs break-all text-slate-600 dark:bg-slate-800 dark:text-slate-300">{event.reason}</code>
          )}
          {event.cause && (
            <span data-testid="event-cause" className="block text-xs text-slate-500 dark:text-slate-400">
              {event.cause}
            </span>
          )}
        </span>
      </button>
    </li>
  );
});

/** One Tab stop for the whole list: the arrow keys walk its entries. */
function moveFocus(event: KeyboardEvent<HTMLOListElement>): void {
  const step = event.key === 'ArrowDown' ? 1 : event.key === 'ArrowUp' ? -1 : 0;
  if (step === 0) return;
  const buttons = [...event.currentTarget.querySelectorAll('button')];
  const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
  const next = buttons[Math.min(buttons.length - 1, Math.max(0, at + step))];
  if (!next) return;
  event.preventDefault();
  next.focus();
}

const selectEvents = (s: FrameState): LogEvent[] => s.events;
const selectSeen = (s: FrameState): number => s.eventsSeen;

/** Newest events first, coloured by severity, filtered by entity, kind and severity; debug events only on request. */
export function EventLog() {
  const events = usePacedFrame(selectEvents);
  const seen = usePacedFrame(selectSeen);
  const [filter, setFilter] = useState<EventFilter>(DEFAULT_FILTER);
  const shown = events.filter((e) => matchesFilter(e, filter)).slice(0, SHOWN);
  const kinds = kindsOf(events);
  const set = (patch: Partial<EventFilter>): void => setFilter({ ...filter, ...patch });

  return (
    <section className={panel} aria-label="Event log">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1 border-b border-slate-200 px-3 py-1.5 text-xs font-semibold uppercase tracking-wide text-slate-500 dark:border-slate-800 dark:text-slate-400">
        <h2 className="mr-auto">
          Events <span className="ml-1 font-normal normal-case text-slate-500 tabular-nums dark:text-slate-400">{seen.toLocaleString('en-US')}</span>
        </h2>
        <input
          type="search"
          data-testid="event-filter-entity"
          aria-label="Filter events by entity"
          placeholder="entity, e.g. pod/web"
          value={filter.entity}
          onChange={(e) => set({ entity: e.target.value })}
          className={`${control} w-40`}
        />
        <select data-testid="event-filter-kind" aria-label="Filter events by kind" value={filter.kind} onChange={(e) => set({ kind: e.target.value })} className={`${control} max-w-[11rem]`}>
          <option value="">every kind</option>
          {filter.kind !== '' && !kinds.includes(filter.kind) && <option value={filter.kind}>{filter.kind}</option>}
          {kinds.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
        <select
          data-testid="event-filter-severity"
          aria-label="Least severity shown"
          value={filter.minSeverity}
          onChange={(e) => set({ minSeverity: e.target.value as Severity })}
          className={control}
        >
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s === 'error' ? 'error only' : s === 'debug' ? 'all, with debug' : `${s} and worse`}
            </option>
          ))}
        </select>
      </div>
      {/* Its own stacking context: the count and filters above repaint without its 150 rows. */}
      <ScrollArea className="flex-1" scrollerClassName="isolate">
        <ol data-testid="event-log" aria-live="off" aria-label="Events, newest first; arrow keys move between them" onKeyDown={moveFocus}>
          {shown.map((e, i) => (
            <Entry key={e.seq} event={e} first={i === 0} />
          ))}
          {shown.length === 0 && <li className="px-3 py-4 text-sm text-slate-500 dark:text-slate-400">{events.length === 0 ? 'No events yet.' : 'No events match the filters.'}</li>}
        </ol>
      </ScrollArea>
    </section>
  );
}
