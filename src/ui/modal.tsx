import type { ReactNode, Ref } from 'react';

/**
 * A dialog over a dimmed page: a click outside or Escape closes it. `width` is a Tailwind max-width class; `ref`
 * reaches the dialog element, to move focus into it.
 */
export function Modal({ labelledBy, testId, width, onClose, ref, children }: { labelledBy: string; testId: string; width: string; onClose: () => void; ref?: Ref<HTMLDivElement>; children: ReactNode }) {
  return (
    <div className="fixed inset-0 z-30 grid place-items-center bg-slate-900/40 p-4" onClick={onClose}>
      <div
        ref={ref}
        role="dialog"
        aria-modal="true"
        aria-labelledby={labelledBy}
        data-testid={testId}
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          if (e.key !== 'Escape') return;
          e.stopPropagation();
          onClose();
        }}
        className={`w-full ${width} rounded-lg border border-slate-200 bg-white p-4 shadow-2xl dark:border-slate-700 dark:bg-slate-900`}
      >
        {children}
      </div>
    </div>
  );
}
