import { useCallback, useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';

interface Overflow {
  above: boolean;
  below: boolean;
}

// The mask fades the content itself, so the cue works on any panel's background, tinted or not.
const FADES = {
  none: '',
  below: '[mask-image:linear-gradient(to_bottom,#000_calc(100%-2.5rem),transparent)]',
  above: '[mask-image:linear-gradient(to_top,#000_calc(100%-1.5rem),transparent)]',
  both: '[mask-image:linear-gradient(to_bottom,transparent,#000_1.5rem,#000_calc(100%-2.5rem),transparent)]',
} as const;

/**
 * A box that scrolls its content and shows that it does: an edge fades where content runs past it, and a "more below"
 * button scrolls on. While it scrolls it is a Tab stop, so arrows and Page keys move it. `className` sizes the box
 * (flex share, max height); the content keeps its natural height.
 */
export function ScrollArea({
  children,
  className = '',
  contentClassName = '',
  scrollerClassName = '',
  label,
  testId,
  scrollerRef,
}: {
  children: ReactNode;
  className?: string;
  /** Classes of the box around the content, e.g. to let it fill the height (`flex min-h-full flex-col`). */
  contentClassName?: string;
  /** Classes of the scrolling element itself, e.g. scroll snapping. */
  scrollerClassName?: string;
  label?: string;
  testId?: string;
  /** The scrolling element, for a caller that measures it. */
  scrollerRef?: RefObject<HTMLDivElement | null>;
}) {
  const own = useRef<HTMLDivElement>(null);
  const scroller = scrollerRef ?? own;
  const content = useRef<HTMLDivElement>(null);
  const [overflow, setOverflow] = useState<Overflow>({ above: false, below: false });
  const measure = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    const above = el.scrollTop > 1;
    const below = el.scrollHeight - el.scrollTop - el.clientHeight > 1;
    setOverflow((o) => (o.above === above && o.below === below ? o : { above, below }));
  }, [scroller]);
  useEffect(() => {
    const resize = new ResizeObserver(measure);
    // Content held at the box's height (one chart at a time) grows by children, not by its own size.
    const added = new MutationObserver(measure);
    if (scroller.current) resize.observe(scroller.current);
    if (content.current) {
      resize.observe(content.current);
      added.observe(content.current, { childList: true });
    }
    measure();
    return () => {
      resize.disconnect();
      added.disconnect();
    };
  }, [measure, scroller]);
  const scrolls = overflow.above || overflow.below;
  const fade = overflow.above && overflow.below ? 'both' : overflow.above ? 'above' : overflow.below ? 'below' : 'none';
  return (
    <div className={`relative flex min-h-0 flex-col ${className}`} data-testid={testId}>
      <div
        ref={scroller}
        onScroll={measure}
        tabIndex={scrolls ? 0 : undefined}
        role={label && scrolls ? 'region' : undefined}
        aria-label={label && scrolls ? label : undefined}
        data-scroll-area=""
        data-more-below={overflow.below || undefined}
        className={`min-h-0 flex-1 overflow-y-auto overscroll-contain focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-500 ${FADES[fade]} ${scrollerClassName}`}
      >
        <div ref={content} className={contentClassName}>
          {children}
        </div>
      </div>
      {overflow.below && (
        <button
          type="button"
          tabIndex={-1}
          aria-hidden="true"
          data-testid="scroll-cue"
          onClick={() => scroller.current?.scrollBy({ top: scroller.current.clientHeight * 0.8, behavior: 'smooth' })}
          className="absolute right-2 bottom-1 z-10 rounded-full border border-slate-300 bg-white/95 px-2 py-0.5 text-xs font-medium text-slate-600 shadow-sm hover:bg-slate-50 hover:text-slate-900 dark:border-slate-600 dark:bg-slate-800/95 dark:text-slate-300 dark:hover:bg-slate-700 dark:hover:text-white"
        >
          more ↓
        </button>
      )}
    </div>
  );
}
