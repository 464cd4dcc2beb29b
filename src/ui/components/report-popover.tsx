import type { KeyboardEvent, ReactNode } from 'react';
import { ChevronUpIcon } from './icons';

function closeOnEscape(event: KeyboardEvent<HTMLDetailsElement>): void {
  const details = event.currentTarget;
  if (event.key !== 'Escape' || !details.open) return;
  details.open = false;
  details.querySelector('summary')?.focus();
}

/**
 * A one-line summary on the report line that opens upwards into a panel (the line sits at the bottom of the window);
 * Escape closes it and gives the focus back to the summary.
 */
export function ReportPopover({ summary, title, tone, children }: { summary: ReactNode; title: string; tone: string; children: ReactNode }) {
  return (
    <details className="group relative" onKeyDown={closeOnEscape}>
      <summary
        className={`flex cursor-pointer list-none items-center gap-1.5 rounded-md px-1.5 py-0.5 font-medium hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:hover:bg-slate-800 [&::-webkit-details-marker]:hidden ${tone}`}
      >
        {summary}
        <ChevronUpIcon className="size-4 transition-transform group-open:rotate-180" />
      </summary>
      <div className="absolute bottom-full left-0 z-20 mb-2 w-[38rem] max-w-[calc(100vw-2rem)] overflow-hidden rounded-lg border border-slate-200 bg-white shadow-lg dark:border-slate-700 dark:bg-slate-900">
        <div className="border-b border-slate-200 px-3 py-1.5 text-xs font-semibold uppercase tracking-wide text-slate-500 dark:border-slate-800 dark:text-slate-400">{title}</div>
        {children}
      </div>
    </details>
  );
}
