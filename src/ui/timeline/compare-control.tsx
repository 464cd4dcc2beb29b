import { useId } from 'react';
import { useApp } from '../../state/app-store';
import { useCompare } from '../../state/compare';
import { smallButton } from '../components/styles';
import { closeCompare, startCompare, toggleCompare } from './compare-client';

const NO_FIXES: { name: string; description: string }[] = [];

/** The "Compare" control: pick a fix to toggle in a second run that follows this one. */
export function CompareControl() {
  const fixes = useApp((s) => s.summary?.fixes) ?? NO_FIXES;
  const aFixes = useApp((s) => s.fixes);
  const open = useCompare((s) => s.open);
  const fix = useCompare((s) => s.fix);
  const status = useCompare((s) => s.status);
  const selectId = useId();

  return (
    <div className="flex items-center gap-1.5">
      <button
        type="button"
        data-testid="compare-toggle"
        className={`${smallButton} aria-pressed:bg-indigo-50 aria-pressed:text-indigo-800 dark:aria-pressed:bg-indigo-950 dark:aria-pressed:text-indigo-200`}
        aria-pressed={open}
        aria-keyshortcuts="c"
        title={open ? 'Close the comparison and stop run B (c)' : 'Compare this run with one where a fix is toggled (c)'}
        disabled={fixes.length === 0}
        onClick={toggleCompare}
      >
        {open ? 'Close compare' : 'Compare'}
      </button>
      {open && (
        <>
          <label htmlFor={selectId} className="sr-only">
            Fix to toggle in run B
          </label>
          <select
            id={selectId}
            data-testid="compare-fix"
            value={fix ?? ''}
            onChange={(e) => {
              if (e.target.value === '') closeCompare();
              else void startCompare(e.target.value);
            }}
            className="h-7 max-w-[14rem] rounded-md border border-slate-300 bg-white px-1.5 text-xs text-slate-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-100"
          >
            <option value="">B: pick a fix…</option>
            {fixes.map((f) => (
              <option key={f.name} value={f.name}>
                {aFixes.includes(f.name) ? `B: without ${f.name}` : `B: with ${f.name}`}
              </option>
            ))}
          </select>
          {status === 'starting' && <span className="text-xs text-slate-500 dark:text-slate-400">starting run B…</span>}
        </>
      )}
    </div>
  );
}
