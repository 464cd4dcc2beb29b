import type { WhyChain } from '../../sim';
import { ReportPopover } from '../components/report-popover';

/** The run's causal chains, from each main symptom down to what set it off, as the simulation recorded them. */
export function WhyChains({ chains }: { chains: WhyChain[] }) {
  return (
    <ReportPopover title="Why" tone="text-amber-800 dark:text-amber-300" summary={<span data-testid="why-summary">Why: {chains[0]!.symptom}</span>}>
      <div className="max-h-80 divide-y divide-slate-100 overflow-y-auto dark:divide-slate-800">
        {chains.map((chain, c) => (
          <section key={c} data-testid="why-chain" className="px-3 py-2">
            <h3 className="text-sm font-semibold text-slate-800 dark:text-slate-100">{chain.symptom}</h3>
            <ol className="mt-1 space-y-1">
              {chain.steps.map((step, i) => (
                <li key={i} data-testid="why-step" className="grid grid-cols-[1.25rem_minmax(0,1fr)] gap-x-1 text-sm leading-snug">
                  <span className="text-right font-mono text-xs text-slate-400 tabular-nums">{i === 0 ? '' : '←'}</span>
                  <span className="min-w-0 text-slate-700 dark:text-slate-200">
                    <code className="mr-1.5 font-mono text-xs text-slate-500 dark:text-slate-400">{step.entity}</code>
                    {step.text}
                  </span>
                </li>
              ))}
            </ol>
          </section>
        ))}
      </div>
    </ReportPopover>
  );
}
