import { useId } from 'react';
import { useApp } from '../../state/app-store';
import { describeB, useCompare } from '../../state/compare';
import { smallButton } from '../components/styles';
import { clockLabel } from './time-scale';
import { frameStore } from '../../state/frame-store';
import { closeCompare, startCompare, toggleCompare } from './compare-client';

const NO_FIXES: { name: string; description: string; rollout: string | null }[] = [];

/** The "Compare" control: pick a fix to toggle in a second run that follows this one, or to roll out from now. */
export function CompareControl() {
  const fixes = useApp((s) => s.summary?.fixes) ?? NO_FIXES;
  const aFixes = useApp((s) => s.fixes);
  const open = useCompare((s) => s.open);
  const fix = useCompare((s) => s.fix);
  const branchAt = useCompare((s) => s.branchAt);
  const status = useCompare((s) => s.status);
  // A fault's branch comes from the palette, not this list: it shows here as the one choice it is.
  const faultBranch = useCompare((s) => (s.fault ? describeB(s, (us) => clockLabel(us / 1e6)) : null));
  const selectId = useId();
  const chosen = faultBranch !== null ? 'fault' : fix === null ? '' : `${branchAt === null ? 'start' : 'now'}:${fix}`;

  return (
    <div className="flex items-center gap-1.5">
      <button
        type="button"
        data-testid="compare-toggle"
        className={`${smallButton} aria-pressed:bg-indigo-50 aria-pressed:text-indigo-800 dark:aria-pressed:bg-indigo-950 dark:aria-pressed:text-indigo-200`}
        aria-pressed={open}
        aria-keyshortcuts="c"
        title={open ? 'Close the comparison and stop run B (c)' : 'Compare this run with one where a fix is toggled (c)'}
        disabled={fixes.length === 0 && !open}
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
            value={chosen}
            onChange={(e) => {
              const [from, name] = e.target.value.split(/:(.*)/s);
              if (from === 'fault') return;
              if (!name) closeCompare();
              else void startCompare(name, from === 'now' ? frameStore.getState().t : null);
            }}
            className="h-7 max-w-[14rem] rounded-md border border-slate-300 bg-white px-1.5 text-xs text-slate-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-100"
          >
            <option value="">B: pick a fix…</option>
            {faultBranch !== null && (
              <option value="fault" title="Run B is this run until then, with this fault applied there (from a fault's “In B only”)">
                {faultBranch}
              </option>
            )}
            {fixes.map((f) => (
              <option key={f.name} value={`start:${f.name}`}>
                {aFixes.includes(f.name) ? `B: without ${f.name}` : `B: with ${f.name}`}
              </option>
            ))}
            {fixes
              .filter((f) => f.rollout === null && !aFixes.includes(f.name))
              .map((f) => (
                <option key={`now:${f.name}`} value={`now:${f.name}`} title="Run B is this run until now, then rolls the fix out to its clients">
                  {branchAt !== null && fix === f.name ? `B: ${f.name} from ${clockLabel(branchAt / 1e6)}` : `B: ${f.name} from now`}
                </option>
              ))}
          </select>
          {status === 'starting' && <span className="text-xs text-slate-500 dark:text-slate-400">starting run B…</span>}
        </>
      )}
    </div>
  );
}
