import { useApp } from '../../state/app-store';
import { ChapterList, CurrentChapter } from './chapters';
import { FixToggles } from './fix-toggles';
import { panel, panelTitle } from '../components/styles';

/** Scenario descriptions are wrapped YAML text: blank lines separate paragraphs, single newlines are just wrapping. */
function paragraphs(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
    .filter((p) => p !== '');
}

/** What the loaded scenario is about, and toggles for the fixes it offers. */
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
        {summary.chapters.length > 0 && <ChapterList chapters={summary.chapters} />}
      </div>
      <CurrentChapter chapters={summary.chapters} />
      {/* Kept out of the scrolling text so the toggles stay in view however long the description is. */}
      {summary.fixes.length > 0 && (
        <div className="max-h-[75%] shrink-0 overflow-y-auto border-t border-slate-200 px-3 py-2.5 dark:border-slate-800">
          <FixToggles available={summary.fixes} />
        </div>
      )}
    </section>
  );
}
