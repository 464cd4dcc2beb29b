import { DROP_REASON_IDS, explainDrop } from '../../sim';
import type { FrameState } from '../../state/frame-store';
import { formatCount } from '../components/format';
import { usePacedFrame } from '../services/paced-frame';
import { askWhy } from '../services/sim-client';
import { panel, panelTitle } from '../components/styles';
import { ScrollArea } from '../components/scroll-area';
import { DropGlyph } from '../topology/drop-marks-legend';

const explanations: Record<string, string> = Object.fromEntries(DROP_REASON_IDS.map((id) => [id, explainDrop(id)]));

/** Reasons packets were dropped for, most dropped first. */
export function droppedReasons(drops: Record<string, number>): [string, number][] {
  return Object.entries(drops)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

const selectDrops = (s: FrameState): Record<string, number> => s.drops;

/** A reason id that may wrap after each underscore (a narrow column), and nowhere else. */
function Breakable({ id }: { id: string }) {
  return id.split('_').map((part, i, all) => (
    <span key={i}>
      {part}
      {i < all.length - 1 && (
        <>
          _<wbr />
        </>
      )}
    </span>
  ));
}

/** Packets dropped so far, by reason id, with the sim's one-sentence explanation of each; `className` sizes the panel. */
export function DropsPanel({ className = '' }: { className?: string }) {
  const drops = usePacedFrame(selectDrops);
  const rows = droppedReasons(drops);
  const total = rows.reduce((sum, [, n]) => sum + n, 0);

  return (
    <section className={`${panel} ${className}`} aria-label="Dropped packets" data-testid="drops-panel" data-empty={rows.length === 0 || undefined}>
      <div className={panelTitle}>
        <h2>Dropped packets</h2>
        <span className="font-mono text-sm font-semibold normal-case tracking-normal text-slate-700 tabular-nums dark:text-slate-200">{formatCount(total)}</span>
      </div>
      <ScrollArea className="flex-1" label="Dropped packets by reason">
        <ul data-testid="drops">
          {rows.map(([reason, count]) => (
            <li key={reason} className="border-b border-slate-100 px-3 py-2 last:border-0 dark:border-slate-800/70" title={explanations[reason]}>
              {/* The count and its why keep to the right, on the reason's line while there is room, under it when not. */}
              <div className="flex flex-wrap items-baseline gap-x-2">
                <span className="inline-flex min-w-0 items-center gap-1.5">
                  <DropGlyph reason={reason} />
                  <code className="text-sm font-semibold text-red-700 dark:text-red-300">
                    <Breakable id={reason} />
                  </code>
                </span>
                <span className="ml-auto inline-flex items-baseline gap-2">
                  <span className="font-mono text-sm tabular-nums text-slate-700 dark:text-slate-200">{formatCount(count)}</span>
                  <button
                    type="button"
                    data-testid="why-button"
                    data-reason={reason}
                    onClick={() => void askWhy(reason)}
                    title={`Why: the chain behind ${reason}, where it happened most`}
                    className="rounded border border-amber-300 px-1.5 text-xs font-medium text-amber-800 hover:bg-amber-50 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-amber-700 dark:text-amber-300 dark:hover:bg-amber-950"
                  >
                    why?
                  </button>
                </span>
              </div>
              {explanations[reason] && <p className="mt-0.5 text-xs leading-snug text-slate-500 dark:text-slate-400">{explanations[reason]}</p>}
            </li>
          ))}
          {rows.length === 0 && <li className="px-3 py-4 text-sm text-slate-500 dark:text-slate-400">No packets dropped.</li>}
        </ul>
      </ScrollArea>
    </section>
  );
}
