import { useApp } from '../state/app-store';
import { panel, panelTitle } from './styles';

/** Scenario descriptions are wrapped YAML text: blank lines separate paragraphs, single newlines are just wrapping. */
function paragraphs(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
    .filter((p) => p !== '');
}

/** What the loaded scenario is about, and the fixes it offers. */
export function ScenarioInfo() {
  const summary = useApp((s) => s.summary);
  const file = useApp((s) => s.loadedFile);
  if (!summary) {
    return (
      <section className={panel} aria-label="Scenario">
        <div className={panelTitle}>
          <h2>Scenario</h2>
        </div>
        <p className="px-3 py-4 text-sm text-slate-500 dark:text-slate-400">No scenario loaded.</p>
      </section>
    );
  }
  return (
    <section className={panel} aria-label="Scenario">
      <div className={panelTitle}>
        <h2>Scenario</h2>
        <span className="font-mono normal-case tracking-normal">{file}</span>
      </div>
      <div className="min-h-0 flex-1 overflow-y-auto px-3 py-2.5">
        <h3 className="text-base font-semibold leading-snug text-slate-900 dark:text-white">{summary.title}</h3>
        {paragraphs(summary.description).map((text, i) => (
          <p key={i} className="mt-1.5 text-sm leading-relaxed text-slate-600 dark:text-slate-300">
            {text}
          </p>
        ))}
        <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">
          {summary.durationSeconds} s simulated · id <code>{summary.id}</code>
        </p>
        {summary.fixes.length > 0 && (
          <div className="mt-3">
            <h4 className="text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">Fixes</h4>
            <ul className="mt-1 space-y-1">
              {summary.fixes.map((f) => (
                <li key={f.name} className="text-sm text-slate-700 dark:text-slate-300">
                  <code className="font-semibold text-indigo-700 dark:text-indigo-300">{f.name}</code> — {f.description}
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
    </section>
  );
}
