import { useEffect, useRef } from 'react';
import { appStore, useApp } from '../../state/app-store';
import { Modal } from '../components/modal';
import type { KeyScope } from './key-scopes';
import { KEYMAP } from './keymap';

const SECTIONS: { scope: KeyScope; title: string }[] = [
  { scope: 'run', title: 'Anywhere in the app' },
  { scope: 'control', title: 'On the focused control' },
  { scope: 'presenter', title: 'In presenter mode' },
  { scope: 'editor', title: 'In the scenario editor' },
];

const close = (): void => appStore.setState({ help: false });

/** The keyboard shortcuts, opened with `?` or the header's button. */
export function ShortcutsDialog() {
  const open = useApp((s) => s.help);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (open) ref.current?.querySelector<HTMLElement>('button')?.focus();
  }, [open]);
  if (!open) return null;
  return (
    <Modal ref={ref} title="Keyboard shortcuts" testId="shortcuts" width="max-w-4xl" onClose={close}>
      {/* Two columns from 640 px: the whole list then fits a 768 px tall screen without scrolling. */}
      <div className="gap-x-8 sm:columns-2">
        {SECTIONS.map(({ scope, title }) => (
          <section key={scope} className="mb-2.5 break-inside-avoid">
            <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">{title}</h3>
            {/* The keys' column is as wide as its widest key, and each key as wide as its label: nothing stretches or wraps inside a key. */}
            <dl className="grid grid-cols-[max-content_minmax(0,1fr)] items-start gap-x-4 gap-y-1 text-sm">
              {KEYMAP.filter((a) => a.scope === scope).map((a) => (
                <div key={a.what} className="contents">
                  <dt className="flex flex-wrap items-start gap-1">
                    {a.keys.map((k) => (
                      <kbd
                        key={k}
                        data-testid="shortcut-key"
                        className="rounded border border-slate-300 bg-slate-50 px-1.5 font-mono text-xs whitespace-nowrap text-slate-700 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-200"
                      >
                        {k}
                      </kbd>
                    ))}
                  </dt>
                  <dd className="leading-snug text-slate-700 dark:text-slate-300">{a.what}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
      </div>
    </Modal>
  );
}
