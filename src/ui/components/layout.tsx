import { useEffect, useState, type ReactNode } from 'react';

/** The window's size, followed as it changes: which layout the app uses depends on it. */
export function useViewport(): { width: number; height: number } {
  const read = () => ({ width: window.innerWidth, height: window.innerHeight });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = (): void => setSize(read());
    window.addEventListener('resize', onResize);
    // A resize between the first render and this effect would otherwise be missed until the next one.
    onResize();
    return () => window.removeEventListener('resize', onResize);
  }, []);
  return size;
}

/** Whether the element given to the returned ref is at least `px` tall, followed as it is resized. */
export function useTallerThan(px: number): [(el: HTMLElement | null) => void, boolean] {
  const [el, setEl] = useState<HTMLElement | null>(null);
  const [taller, setTaller] = useState(true);
  useEffect(() => {
    if (!el) return;
    const check = (): void => setTaller(el.clientHeight >= px);
    check();
    const resize = new ResizeObserver(check);
    resize.observe(el);
    return () => resize.disconnect();
  }, [el, px]);
  return [setEl, taller];
}

/**
 * Desktop: everything side by side. Projector (a short screen): the picture keeps most of the height and the timeline
 * and event log share a tabbed dock. Wiki iframe (a narrow screen): one column, the picture on top, everything else in
 * the dock.
 */
export type LayoutKind = 'desktop' | 'projector' | 'narrow';

export function layoutFor(size: { width: number; height: number }): LayoutKind {
  if (size.width < 1100) return 'narrow';
  return size.height < 800 ? 'projector' : 'desktop';
}

export interface DockTab {
  id: string;
  label: string;
  content: ReactNode;
}

/**
 * Panels that share one place, one at a time; arrow keys move between the tabs. `everyTabStop`: each tab is its own Tab
 * stop, for a layout whose arrow keys mean something else (presenter mode's steps).
 */
export function Dock({
  tabs,
  label,
  show,
  everyTabStop = false,
  className = '',
}: {
  tabs: DockTab[];
  label: string;
  show?: { id: string } | null;
  everyTabStop?: boolean;
  className?: string;
}) {
  const [active, setActive] = useState(tabs[0]!.id);
  // A new `show` request (a selection, a why) brings its tab forward.
  useEffect(() => {
    if (show) setActive(show.id);
  }, [show]);
  const current = tabs.find((t) => t.id === active) ?? tabs[0]!;
  const onKey = (event: React.KeyboardEvent<HTMLDivElement>): void => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    event.preventDefault();
    event.stopPropagation();
    const at = tabs.indexOf(current);
    const next = tabs[(at + (event.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length]!;
    setActive(next.id);
    document.getElementById(`dock-tab-${next.id}`)?.focus();
  };
  return (
    <div className={`flex min-h-0 flex-col gap-1.5 ${className}`}>
      <div role="tablist" aria-label={label} className="flex shrink-0 gap-1" onKeyDown={onKey}>
        {tabs.map((t) => (
          <button
            key={t.id}
            id={`dock-tab-${t.id}`}
            type="button"
            role="tab"
            data-testid="dock-tab"
            aria-selected={t.id === current.id}
            aria-controls={`dock-panel-${t.id}`}
            tabIndex={everyTabStop || t.id === current.id ? 0 : -1}
            onClick={() => setActive(t.id)}
            className="rounded-md px-2.5 py-1 text-xs font-semibold tracking-wide text-slate-500 uppercase hover:bg-slate-200/70 focus-visible:outline-2 focus-visible:outline-indigo-500 aria-selected:bg-white aria-selected:text-indigo-700 aria-selected:shadow-sm dark:text-slate-400 dark:hover:bg-slate-800 dark:aria-selected:bg-slate-900 dark:aria-selected:text-indigo-300"
          >
            {t.label}
          </button>
        ))}
      </div>
      <div id={`dock-panel-${current.id}`} role="tabpanel" aria-labelledby={`dock-tab-${current.id}`} className="flex min-h-0 flex-1 flex-col [&>*]:min-h-0 [&>*]:flex-1">
        {current.content}
      </div>
    </div>
  );
}
