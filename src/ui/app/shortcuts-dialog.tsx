import { useEffect, useRef } from 'react';
import { appStore, useApp } from '../../state/app-store';
import { Modal } from '../components/modal';
import { KEYMAP } from './keymap';

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
    <Modal ref={ref} title="Keyboard shortcuts" testId="shortcuts" width="max-w-lg" onClose={close}>
      <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1.5 text-sm">
        {KEYMAP.map((s) => (
          <div key={s.what} className="contents">
            <dt className="flex flex-wrap gap-1">
              {s.keys.map((k) => (
                <kbd key={k} className="rounded border border-slate-300 bg-slate-50 px-1.5 font-mono text-xs text-slate-700 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-200">
                  {k}
                </kbd>
              ))}
            </dt>
            <dd className="text-slate-700 dark:text-slate-300">{s.what}</dd>
          </div>
        ))}
      </dl>
    </Modal>
  );
}
