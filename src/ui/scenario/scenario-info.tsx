import { useApp } from '../../state/app-store';
import { useTallerThan } from '../components/layout';
import { ChapterList, CurrentChapter } from './chapters';
import { FixToggles } from './fix-toggles';
import { panel, panelTitle } from '../components/styles';
import { ScrollArea } from '../components/scroll-area';

/** Scenario descriptions are wrapped YAML text: blank lines separate paragraphs, single newlines are just wrapping. */
function paragraphs(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
    .filter((p) => p !== '');
}

/** What the loaded scenario is about, and toggles for the fixes it offers. */
// Below this height the panel pins nothing: three scrolling parts would each show a line or two.
const ROOMY_PX = 448;

export function ScenarioInfo({ className = '' }: { className?: string }) {
  const summary = useApp((s) => s.summary);
  const file = useApp((s) => s.loadedFile);
  const [ref, roomy] = useTallerThan(ROOMY_PX);
  if (!summary) {
    return (
      <section ref={ref} className={`${panel} ${className}`} aria-label="Scenario">
        <div className={panelTitle}>
          <h2>Scenario</h2>
        </div>
        <p className="px-3 py-4 text-sm text-slate-500 dark:text-slate-400">No scenario loaded.</p>
      </section>
    );
  }
  const about = (
    <>
      <h3 className="text-base font-semibold leading-snug text-slate-900 dark:text-white" data-testid="scenario-title">
        {summary.title}
      </h3>
      {paragraphs(summary.description).map((text, i) => (
        <p key={i} className="mt-1.5 text-sm leading-relaxed text-slate-600 dark:text-slate-300">
          {text}
        </p>
      ))}
      <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">
        {summary.durationSeconds} s simulated · id <code>{summary.id}</code>
      </p>
      {summary.chapters.length > 0 && <ChapterList chapters={summary.chapters} />}
    </>
  );
  const fixes = summary.fixes.length > 0 && <FixToggles available={summary.fixes} />;
  return (
    <section ref={ref} className={`${panel} ${className}`} aria-label="Scenario" data-roomy={roomy || undefined}>
      <div className={panelTitle}>
        <h2>Scenario</h2>
        <span className="min-w-0 text-right font-mono normal-case tracking-normal break-all">{file}</span>
      </div>
      {roomy ? (
        <>
          {/* The title and the story keep two fifths of the panel: the chapter and the fixes below give way and scroll first. */}
          <ScrollArea className="min-h-[7rem] flex-[1_1_40%]" label="About the scenario">
            <div className="px-3 py-2.5">{about}</div>
          </ScrollArea>
          <CurrentChapter chapters={summary.chapters} pinned />
          {/* Kept out of the scrolling text so the toggles stay in view however long the description is. */}
          {fixes && (
            <ScrollArea className="max-h-[25%] border-t border-slate-200 dark:border-slate-800" label="Fixes">
              <div className="px-3 py-2.5">{fixes}</div>
            </ScrollArea>
          )}
        </>
      ) : (
        // Too short to pin anything: all of it scrolls as one text, in reading order.
        <ScrollArea className="flex-1" label="About the scenario">
          <div className="px-3 py-2.5">
            {about}
            <CurrentChapter chapters={summary.chapters} pinned={false} />
            {fixes && <div className="mt-3 border-t border-slate-200 pt-2.5 dark:border-slate-800">{fixes}</div>}
          </div>
        </ScrollArea>
      )}
    </section>
  );
}
