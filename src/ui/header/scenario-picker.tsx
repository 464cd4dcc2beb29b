import { useRef, type ChangeEvent } from 'react';
import { useTextFits } from '../components/fit-text';
import { shortTitle } from '../components/format';
import { useApp } from '../../state/app-store';
import { FolderIcon } from '../components/icons';
import { loadScenario } from '../services/sim-client';
import { loadShipped } from '../services/startup';
import { button } from '../components/styles';

// The select's own padding and its arrow, which its text never gets.
const SELECT_CHROME_PX = 32;

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
  const selectRef = useRef<HTMLSelectElement>(null);
  const current = scenarios.find((s) => s.file === selected)?.title ?? '';
  // Where the whole title does not fit, the chosen scenario shows its short name (whole, not cut); the list keeps the
  // full titles, and the scenario panel and the select's tooltip show the chosen one in full.
  const fits = useTextFits(selectRef, current, SELECT_CHROME_PX);

  return (
    <div className="flex max-w-[44rem] min-w-[13rem] flex-1 items-center gap-2">
      <label htmlFor="scenario-picker" className="sr-only">
        Scenario
      </label>
      <select
        ref={selectRef}
        id="scenario-picker"
        data-testid="scenario-picker"
        title={current || undefined}
        value={custom ? '' : selected}
        onChange={onPick}
        disabled={busy && scenarios.length === 0}
        className="h-9 min-w-0 flex-1 rounded-md border border-slate-300 bg-white px-2 text-sm font-medium text-slate-800 shadow-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-100"
      >
        {custom && <option value="">{loadedFile} (opened file)</option>}
        {/* Until a scenario is loaded the picker shows no file, so "demo.yaml selected" also means "demo.yaml loaded". */}
        {loadedFile === null && <option value="">{scenarios.length === 0 ? 'Loading scenarios…' : 'Loading…'}</option>}
        {scenarios.map((s) => (
          <option key={s.file} value={s.file}>
            {s.file === selected && !fits ? shortTitle(s.title) : s.title}
          </option>
        ))}
      </select>
      <label className={`${button} cursor-pointer has-focus-visible:outline-2 has-focus-visible:outline-indigo-500`} title="Open scenario file… (.yaml, .yml or .json)">
        <FolderIcon />
        <span className="hidden min-[1800px]:inline">Open file…</span>
        <input type="file" accept=".yaml,.yml,.json" data-testid="open-file" aria-label="Open scenario file…" className="sr-only" onChange={(e) => void onOpen(e)} />
      </label>
    </div>
  );
}
