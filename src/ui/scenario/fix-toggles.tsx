import { useApp } from '../../state/app-store';
import { toggleFix } from '../../state/fix-selection';
import type { ScenarioSummary } from '../../worker/protocol';
import { setFixes } from '../services/sim-client';

/** One checkbox per fix the scenario offers; changing the selection reloads the scenario and restarts the run. */
export function FixToggles({ available }: { available: ScenarioSummary['fixes'] }) {
  const active = useApp((s) => s.fixes);
  return (
    <fieldset className="min-w-0">
      <legend className="flex w-full items-center justify-between text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">
        <span>Fixes</span>
        <span
          data-testid="active-fixes"
          className={`rounded-full px-2 py-0.5 normal-case tracking-normal ${
            active.length > 0 ? 'bg-indigo-100 text-indigo-800 dark:bg-indigo-900/70 dark:text-indigo-200' : 'bg-slate-100 font-medium text-slate-600 dark:bg-slate-800 dark:text-slate-300'
          }`}
        >
          {active.length === 0 ? 'none applied' : `${active.length} of ${available.length} applied`}
        </span>
      </legend>
      <div className="mt-1.5 space-y-0.5">
        {available.map((f) => (
          <label
            key={f.name}
            className="flex cursor-pointer items-start gap-2.5 rounded-md border border-transparent px-2 py-1 hover:bg-slate-50 has-checked:border-indigo-200 has-checked:bg-indigo-50 dark:hover:bg-slate-800/70 dark:has-checked:border-indigo-800 dark:has-checked:bg-indigo-950/60"
          >
            <input
              type="checkbox"
              data-testid="fix-toggle"
              data-fix={f.name}
              checked={active.includes(f.name)}
              onChange={(e) => void setFixes(toggleFix(available, active, f.name, e.target.checked))}
              className="mt-0.5 size-4 shrink-0 cursor-pointer accent-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:accent-indigo-400"
            />
            <span className="min-w-0">
              <span className="block font-mono text-sm font-semibold break-words text-slate-800 dark:text-slate-100">{f.name}</span>
              <span className="block text-xs leading-snug text-slate-600 dark:text-slate-400">{f.description}</span>
            </span>
          </label>
        ))}
      </div>
      <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">Changing the selection restarts the run.</p>
    </fieldset>
  );
}
