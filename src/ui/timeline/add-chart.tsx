import { useId, useState, type FormEvent } from 'react';
import { useApp } from '../../state/app-store';
import { frameStore } from '../../state/frame-store';
import { addChart } from '../../state/timeline';
import { smallButton } from '../components/styles';
import { checkNewChart } from './new-chart';

/** "+ chart": pick a series the run has recorded and add it as a rate or level chart for this session. */
export function AddChart() {
  const scenarioId = useApp((s) => s.summary?.id ?? null);
  const [open, setOpen] = useState(false);
  const [metric, setMetric] = useState('');
  const [kind, setKind] = useState<'rate' | 'level'>('rate');
  const [problem, setProblem] = useState('');
  const [names, setNames] = useState<readonly string[]>([]);
  const listId = useId();
  const panelId = useId();

  const toggle = (): void => {
    if (!open) setNames(frameStore.getState().series.names());
    setProblem('');
    setOpen(!open);
  };

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (!scenarioId) return;
    const result = checkNewChart(metric, kind, frameStore.getState().series.names());
    if (!result.ok) {
      setProblem(result.message);
      return;
    }
    addChart(scenarioId, result.spec);
    setMetric('');
    setProblem('');
    setOpen(false);
  };

  return (
    <div className="relative">
      <button type="button" data-testid="add-chart" className={smallButton} aria-expanded={open} aria-controls={panelId} disabled={!scenarioId} onClick={toggle}>
        + chart
      </button>
      {open && (
        <form
          id={panelId}
          onSubmit={submit}
          aria-label="Add a chart"
          onKeyDown={(e) => {
            if (e.key === 'Escape') setOpen(false);
          }}
          className="absolute right-0 z-20 mt-1 w-80 space-y-2 rounded-md border border-slate-200 bg-white p-3 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          <label className="block text-xs font-semibold text-slate-600 dark:text-slate-300">
            metric ({names.length} recorded)
            <input
              data-testid="add-chart-metric"
              list={listId}
              value={metric}
              autoFocus
              onChange={(e) => setMetric(e.target.value)}
              aria-invalid={problem !== ''}
              aria-describedby={problem ? `${panelId}-problem` : undefined}
              className="mt-1 block w-full rounded border border-slate-300 bg-white px-2 py-1 font-mono text-xs text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100"
            />
            <datalist id={listId}>
              {names.map((n) => (
                <option key={n} value={n} />
              ))}
            </datalist>
          </label>
          <fieldset className="flex gap-3 text-xs text-slate-700 dark:text-slate-200">
            <legend className="sr-only">kind</legend>
            {(['rate', 'level'] as const).map((k) => (
              <label key={k} className="flex items-center gap-1">
                <input
                  type="radio"
                  name="kind"
                  value={k}
                  checked={kind === k}
                  onChange={() => setKind(k)}
                  className="accent-indigo-600 focus-visible:outline-2 focus-visible:outline-indigo-500"
                />
                {k === 'rate' ? 'rate (per second)' : 'level (as sampled)'}
              </label>
            ))}
          </fieldset>
          {problem && (
            <p id={`${panelId}-problem`} role="alert" data-testid="add-chart-problem" className="text-xs text-red-700 dark:text-red-300">
              {problem}
            </p>
          )}
          <div className="flex justify-end gap-2">
            <button type="button" className={smallButton} onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="submit" data-testid="add-chart-submit" className={smallButton}>
              Add
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
