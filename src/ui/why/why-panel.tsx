import { useApp } from '../../state/app-store';
import { revealEntity } from '../../state/selection';
import { closeWhy, useWhy } from '../../state/why';
import { formatClock } from '../components/format';
import { PanelClose } from '../components/panel-close';
import { seek } from '../services/sim-client';
import { panel, panelTitle } from '../components/styles';
import { ScrollArea } from '../components/scroll-area';

/**
 * The chain behind the symptom someone clicked, step by step down to its root; each step's entity is a link to the picture,
 * and its time, where it has one, takes the run there.
 * `fill`: share the column's height with what is beside it (presenter mode) instead of keeping the chain's own height.
 */
export function WhyPanel({ fill = false }: { fill?: boolean }) {
  const asked = useWhy((s) => s.asked);
  const chain = useWhy((s) => s.chain);
  const selected = useApp((s) => s.selected);
  if (!asked) return null;
  return (
    // Keeps its chain's height (up to its own scroll limit) while the panels below keep theirs; on a short screen it gives way first.
    <section className={`${panel} ${fill ? 'min-h-0 flex-[3]' : 'min-h-[8rem]'}`} aria-label="Why" data-testid="why-panel">
      <div className={panelTitle}>
        <h2>Why</h2>
        <PanelClose onClick={closeWhy} label="Close why" />
      </div>
      <ScrollArea className={fill ? 'flex-1' : 'max-h-72'} label="Why chain">
        <div className="px-3 py-2">
          {chain === undefined && <p className="text-sm text-slate-500 dark:text-slate-400">Reading the recorded causes…</p>}
          {chain === null && (
            <p className="text-sm text-slate-500 dark:text-slate-400">
              Nothing of the kind <code>{asked.kind}</code> was recorded{asked.entity ? ` at ${asked.entity}` : ''} yet.
            </p>
          )}
          {chain && (
            <>
              <h3 className="text-sm font-semibold text-slate-800 dark:text-slate-100" data-testid="why-symptom">
                {chain.symptom}
              </h3>
              <ol className="mt-1 space-y-1.5">
                {chain.steps.map((step, i) => (
                  <li key={i} data-testid="why-step" className="grid grid-cols-[1.1rem_minmax(0,1fr)] gap-x-1 text-sm leading-snug">
                    <span className="text-right font-mono text-xs text-slate-400" aria-hidden="true">
                      {i === 0 ? '•' : '←'}
                    </span>
                    <span className="min-w-0 text-slate-700 dark:text-slate-200">
                      <button
                        type="button"
                        data-testid="why-step-entity"
                        onClick={() => revealEntity(step.entity)}
                        aria-current={selected === step.entity ? 'true' : undefined}
                        title={`Show ${step.entity} in the picture`}
                        className="mr-1.5 rounded font-mono text-xs text-indigo-700 underline decoration-dotted underline-offset-2 hover:decoration-solid focus-visible:outline-2 focus-visible:outline-indigo-500 aria-[current=true]:font-semibold dark:text-indigo-300"
                      >
                        {step.entity}
                      </button>
                      {step.at !== undefined && (
                        <button
                          type="button"
                          data-testid="why-step-time"
                          onClick={() => void seek(step.at!).then((ok) => ok && revealEntity(step.entity))}
                          title={`Go to ${formatClock(step.at)}, when this last happened, and show ${step.entity} there`}
                          className="mr-1.5 rounded font-mono text-xs text-slate-500 underline decoration-dotted underline-offset-2 tabular-nums hover:decoration-solid focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-400"
                        >
                          at {formatClock(step.at)}
                        </button>
                      )}
                      {step.text}
                    </span>
                  </li>
                ))}
              </ol>
            </>
          )}
        </div>
      </ScrollArea>
    </section>
  );
}
