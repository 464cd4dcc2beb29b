import { boundProblems } from '../../sim';
import { dismissError, useApp } from '../../state/app-store';
import { AlertIcon, CloseIcon } from '../components/icons';
import { restartWorker } from '../services/sim-client';

/** Shows the current error: invalid input (one `path: problem` per line) or a dead/hung worker with a restart. */
export function ErrorBanner() {
  const error = useApp((s) => s.error);
  if (!error) return null;
  // Loader errors come bounded; messages from elsewhere (a link, the worker) are bounded the same way here.
  const lines = boundProblems(error.message.split('\n').filter((l) => l.trim() !== ''));
  return (
    <div
      data-testid="error-banner"
      role="alert"
      className="flex items-start gap-3 border-b border-red-200 bg-red-50 px-4 py-3 text-red-900 dark:border-red-900 dark:bg-red-950/70 dark:text-red-100"
    >
      <span className="mt-0.5 text-red-600 dark:text-red-400">
        <AlertIcon />
      </span>
      <div className="min-w-0 flex-1">
        <p className="font-semibold">{error.title}</p>{' '}
        {lines.length === 1 ? (
          <p className="mt-0.5 font-mono text-sm break-words">{lines[0]}</p>
        ) : (
          <ul className="mt-1 max-h-40 list-disc space-y-0.5 overflow-auto pl-5 font-mono text-sm">
            {lines.map((line, i) => (
              <li key={i} className="break-words">
                {line}{' '}
              </li>
            ))}
          </ul>
        )}
      </div>{' '}
      <div className="flex shrink-0 items-center gap-2">
        {error.restartable && (
          <button
            type="button"
            data-testid="restart-worker"
            onClick={() => void restartWorker()}
            className="inline-flex h-9 items-center rounded-md bg-red-600 px-3 text-sm font-semibold text-white shadow-sm hover:bg-red-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-600"
          >
            Restart simulation
          </button>
        )}
        <button
          type="button"
          data-testid="dismiss-error"
          onClick={dismissError}
          aria-label="Dismiss error"
          className="inline-flex size-9 items-center justify-center rounded-md text-red-700 hover:bg-red-100 focus-visible:outline-2 focus-visible:outline-red-600 dark:text-red-300 dark:hover:bg-red-900"
        >
          <CloseIcon />
        </button>
      </div>
    </div>
  );
}
