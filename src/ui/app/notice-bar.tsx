import { notify, useApp } from '../../state/app-store';
import { CloseIcon } from '../components/icons';
import { button } from '../components/styles';

/** A line under the header for news that is not an error: the run was restored, the worker was restarted. */
export function NoticeBar() {
  const notice = useApp((s) => s.notice);
  if (!notice) return null;
  return (
    <div
      role="status"
      data-testid="notice"
      className="flex items-center gap-3 border-b border-indigo-200 bg-indigo-50 px-4 py-2 text-sm text-indigo-950 dark:border-indigo-900 dark:bg-indigo-950/60 dark:text-indigo-100"
    >
      <p className="min-w-0 flex-1" data-testid="notice-message">
        {notice.message}
      </p>
      {notice.action && (
        <button
          type="button"
          className={button}
          data-testid="notice-action"
          onClick={() => {
            notify(null);
            notice.action!.run();
          }}
        >
          {notice.action.label}
        </button>
      )}
      <button
        type="button"
        onClick={() => notify(null)}
        aria-label="Dismiss"
        className="inline-flex size-8 items-center justify-center rounded-md hover:bg-indigo-100 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:hover:bg-indigo-900"
      >
        <CloseIcon />
      </button>
    </div>
  );
}
