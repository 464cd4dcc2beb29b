import { CloseIcon } from './icons';

/** The × in a panel's title bar (or a popover's corner): one look and focus ring for every close. */
export function PanelClose({ onClick, label, title }: { onClick: () => void; label: string; title?: string }) {
  return (
    <button
      type="button"
      onClick={onClick}
      aria-label={label}
      title={title ?? label}
      className="-my-1 -mr-1.5 inline-flex size-7 shrink-0 items-center justify-center rounded-md text-slate-500 hover:bg-slate-100 hover:text-slate-700 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-400 dark:hover:bg-slate-800 dark:hover:text-slate-200"
    >
      <CloseIcon />
    </button>
  );
}
