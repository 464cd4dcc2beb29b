/** Shared class lists, so every control looks and focuses alike. */
const buttonLook =
  'inline-flex items-center justify-center gap-1.5 rounded-md border border-slate-300 bg-white px-2.5 text-sm font-medium text-slate-700 shadow-sm transition-colors hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 disabled:cursor-not-allowed disabled:opacity-50 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-200 dark:hover:bg-slate-700';

export const button = `${buttonLook} h-9`;

export const iconButton = `${button} w-9 px-0`;

/** An icon button a size down, where room is short (a wiki page's embed). */
export const smallIconButton = `${buttonLook} h-8 w-8 px-0`;

/** Sized by its user (the play button is h-10 w-12 in the header). */
export const primaryButton =
  'inline-flex items-center justify-center rounded-md bg-indigo-600 text-white shadow-sm transition-colors hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 disabled:cursor-not-allowed disabled:opacity-50 aria-pressed:bg-indigo-700 dark:bg-indigo-500 dark:hover:bg-indigo-400 dark:aria-pressed:bg-indigo-600';

/** A panel that holds fixed popovers: no stacking context of its own, so their z-index reaches over every other panel. */
export const openPanel = 'flex min-h-0 flex-col overflow-hidden rounded-lg border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900';

/**
 * Every other panel is its own stacking context, so Chromium repaints only the panel a change is in: without it the
 * clock's text, changing in every frame while the run plays, repainted the event log's rows and every chart.
 */
export const panel = `${openPanel} isolate`;

export const panelTitle =
  'flex items-center justify-between gap-2 border-b border-slate-200 px-3 py-2 text-xs font-semibold uppercase tracking-wide text-slate-500 dark:border-slate-800 dark:text-slate-400';

/** A compact button for panel toolbars (timeline, compare). */
export const smallButton =
  'inline-flex h-7 shrink-0 items-center whitespace-nowrap justify-center gap-1 rounded-md border border-slate-300 bg-white px-2 text-xs font-medium text-slate-700 shadow-sm transition-colors hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 disabled:cursor-not-allowed disabled:opacity-50 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-200 dark:hover:bg-slate-700';

/** The one action a dialog or screen leads to (run it, use it). */
export const accentButton =
  'inline-flex h-9 items-center justify-center gap-1.5 rounded-md bg-indigo-600 px-3 text-sm font-semibold text-white shadow-sm transition-colors hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 disabled:cursor-not-allowed disabled:opacity-50 dark:bg-indigo-500 dark:hover:bg-indigo-400';

/** A one-line text input or select in a form; red-edged while it holds something invalid. */
export const textField =
  'h-8 rounded-md border border-slate-300 bg-white px-2 text-sm text-slate-800 focus-visible:outline-2 focus-visible:outline-indigo-500 aria-invalid:border-red-500 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-100';
