import { useId, type ReactNode, type Ref } from 'react';
import { PanelClose } from './panel-close';
import { ScrollArea } from './scroll-area';

/**
 * A dialog over a dimmed page, titled, with a close button: a click outside, the button or Escape closes it.
 * `width` is a Tailwind max-width class; `ref` reaches the dialog element, to move focus into it.
 */
export function Modal({
  title,
  testId,
  width,
  onClose,
  ref,
  children,
}: {
  title: ReactNode;
  testId: string;
  width: string;
  onClose: () => void;
  ref?: Ref<HTMLDivElement>;
  children: ReactNode;
}) {
  const titleId = useId();
  return (
    <div className="fixed inset-0 z-30 grid place-items-center bg-slate-900/40 p-4" onClick={onClose}>
      <div
        ref={ref}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid={testId}
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          if (e.key !== 'Escape') return;
          e.stopPropagation();
          onClose();
        }}
        className={`flex max-h-[calc(100dvh-2rem)] w-full ${width} flex-col rounded-lg border border-slate-200 bg-white p-4 shadow-2xl dark:border-slate-700 dark:bg-slate-900`}
      >
        <div className="mb-2 flex shrink-0 items-center justify-between">
          <h2 id={titleId} className="text-base font-semibold text-slate-900 dark:text-white">
            {title}
          </h2>
          <PanelClose onClick={onClose} label="Close" />
        </div>
        {/* Taller than the window, the content scrolls under a title that stays, and says so. */}
        <ScrollArea className="min-h-0">{children}</ScrollArea>
      </div>
    </div>
  );
}
