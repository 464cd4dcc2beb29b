import { useEffect, useRef } from 'react';
import { appStore, useApp } from '../../state/app-store';
import { Modal } from '../components/modal';
import { loadShipped } from '../services/startup';

const close = (): void => appStore.setState({ gallery: null });

/** The shipped scenarios to choose from; a link that could not be replayed opens it with what was wrong. */
export function GalleryDialog() {
  const gallery = useApp((s) => s.gallery);
  const scenarios = useApp((s) => s.scenarios);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (gallery) ref.current?.querySelector<HTMLElement>('[data-testid="gallery-item"]')?.focus();
  }, [gallery]);
  if (!gallery) return null;
  return (
    <Modal ref={ref} title={gallery.reason ? 'This link could not be replayed' : 'Scenarios'} testId="gallery" width="max-w-xl" onClose={close}>
      {gallery.reason && (
        <div role="alert" className="mb-3 text-sm text-slate-700 dark:text-slate-200">
          <p className="mb-1">Nothing of it was run. What is wrong:</p>
          <pre data-testid="gallery-reason" className="rounded-md bg-red-50 p-2 font-mono text-xs whitespace-pre-wrap text-red-800 dark:bg-red-950/50 dark:text-red-200">
            {gallery.reason}
          </pre>
          <p className="mt-2">Ask for the link again, or pick a scenario:</p>
        </div>
      )}
      <ul className="max-h-[50vh] space-y-1 overflow-y-auto">
        {scenarios.map((s) => (
          <li key={s.file}>
            <button
              type="button"
              data-testid="gallery-item"
              className="w-full rounded-md px-2 py-1.5 text-left text-sm text-slate-800 hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-100 dark:hover:bg-slate-800"
              onClick={() => {
                close();
                void loadShipped(s.file);
              }}
            >
              {s.title}
            </button>
          </li>
        ))}
      </ul>
    </Modal>
  );
}
