import type { ChangeEvent } from 'react';
import { useApp } from '../../state/app-store';
import { FolderIcon } from '../components/icons';
import { loadScenario } from '../services/sim-client';
import { loadShipped } from '../services/startup';
import { button } from '../components/styles';

/** The shipped-scenario <select> and the open-file button. */
export function ScenarioPicker() {
  const scenarios = useApp((s) => s.scenarios);
  const selected = useApp((s) => s.selectedFile);
  const loadedFile = useApp((s) => s.loadedFile);
  const busy = useApp((s) => s.busy);

  const onPick = (event: ChangeEvent<HTMLSelectElement>): void => {
    const file = event.target.value;
    if (file) void loadShipped(file);
  };

  const onOpen = async (event: ChangeEvent<HTMLInputElement>): Promise<void> => {
    const input = event.target;
    const file = input.files?.[0];
    // Clearing lets the same file be chosen again after it was fixed on disk.
    input.value = '';
    if (!file) return;
    await loadScenario({ text: await file.text(), fileName: file.name, pickerValue: '' });
  };

  const custom = selected === '' && loadedFile !== null;

  return (
    <div className="flex items-center gap-2">
      <label htmlFor="scenario-picker" className="sr-only">
        Scenario
      </label>
      <select
        id="scenario-picker"
        data-testid="scenario-picker"
        value={custom ? '' : selected}
        onChange={onPick}
        disabled={busy && scenarios.length === 0}
        className="h-9 w-44 rounded-md lg:w-56 2xl:w-72 border border-slate-300 bg-white px-2 text-sm font-medium text-slate-800 shadow-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-100"
      >
        {custom && <option value="">{loadedFile} (opened file)</option>}
        {/* Until a scenario is loaded the picker shows no file, so "demo.yaml selected" also means "demo.yaml loaded". */}
        {loadedFile === null && <option value="">{scenarios.length === 0 ? 'Loading scenarios…' : 'Loading…'}</option>}
        {scenarios.map((s) => (
          <option key={s.file} value={s.file}>
            {s.title}
          </option>
        ))}
      </select>
      <label className={`${button} cursor-pointer has-focus-visible:outline-2 has-focus-visible:outline-indigo-500`} title="Open scenario file… (.yaml, .yml or .json)">
        <FolderIcon />
        <span className="hidden 2xl:inline">Open file…</span>
        <input type="file" accept=".yaml,.yml,.json" data-testid="open-file" aria-label="Open scenario file…" className="sr-only" onChange={(e) => void onOpen(e)} />
      </label>
    </div>
  );
}
