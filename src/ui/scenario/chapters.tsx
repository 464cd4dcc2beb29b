import { useApp } from '../../state/app-store';
import { useFrame } from '../../state/frame-store';
import type { Chapter } from '../../worker/protocol';
import { formatClock } from '../components/format';
import { setPauseAtChapters } from '../services/sim-client';
import { ScrollArea } from '../components/scroll-area';

/** A stable empty list for selectors: a new [] on every read would make React render again and again. */
export const NO_CHAPTERS: readonly Chapter[] = [];

/** Index of the chapter the run is in: the last one that has started, or -1 before the first. */
export function currentChapter(chapters: readonly Chapter[], us: number): number {
  let current = -1;
  chapters.forEach((c, i) => {
    if (c.at * 1e6 <= us) current = i;
  });
  return current;
}

/**
 * The scenario's story for a workshop host: every chapter with its start time, the one the run is in marked, and a
 * switch that makes playing stop at each chapter so the host can tell it before going on.
 */
export function ChapterList({ chapters }: { chapters: readonly Chapter[] }) {
  const current = useFrame((s) => currentChapter(chapters, s.t));
  const pauseAt = useApp((s) => s.pauseAtChapters);
  return (
    <section aria-label="Story" className="mt-3">
      <div className="flex items-center justify-between gap-2">
        <h4 className="text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">Story</h4>
        <label className="flex cursor-pointer items-center gap-1.5 text-xs text-slate-600 dark:text-slate-300">
          <input
            type="checkbox"
            data-testid="pause-at-chapters"
            checked={pauseAt}
            onChange={(e) => setPauseAtChapters(e.target.checked)}
            className="size-3.5 cursor-pointer accent-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:accent-indigo-400"
          />
          pause at each chapter
        </label>
      </div>
      <ol className="mt-1 space-y-0.5" data-testid="chapters">
        {chapters.map((c, i) => (
          <li
            key={i}
            aria-current={i === current ? 'step' : undefined}
            className={`flex gap-2 rounded px-1.5 py-0.5 text-sm ${
              i === current
                ? 'bg-indigo-50 font-semibold text-indigo-800 dark:bg-indigo-950/70 dark:text-indigo-200'
                : i < current
                  ? 'text-slate-500 dark:text-slate-400'
                  : 'text-slate-700 dark:text-slate-200'
            }`}
          >
            <span className="shrink-0 font-mono text-xs leading-5 tabular-nums">{formatClock(c.at * 1e6).slice(0, 5)}</span>
            <span className="min-w-0">{c.title}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

/**
 * The chapter the run is in, in full: what is happening and what to do now. `pinned`: kept in view below the scrolling
 * text, scrolling itself when long; otherwise it is part of the text.
 */
export function CurrentChapter({ chapters, pinned }: { chapters: readonly Chapter[]; pinned: boolean }) {
  const index = useFrame((s) => currentChapter(chapters, s.t));
  const chapter = chapters[index];
  if (!chapter) return null;
  const body = (
    <div data-testid="current-chapter" aria-live="polite" className={pinned ? 'px-3 py-2.5' : 'mt-3 rounded-md bg-indigo-50/60 px-2.5 py-2 dark:bg-indigo-950/40'}>
      <p className="text-xs font-semibold uppercase tracking-wide text-indigo-700 dark:text-indigo-300">
        Chapter {index + 1} of {chapters.length} · {formatClock(chapter.at * 1e6).slice(0, 5)}
      </p>
      <h4 className="mt-0.5 text-sm font-semibold text-slate-900 dark:text-white">{chapter.title}</h4>
      <ChapterStory chapter={chapter} />
    </div>
  );
  if (!pinned) return body;
  return (
    <ScrollArea className="max-h-[35%] border-t border-slate-200 bg-indigo-50/60 dark:border-slate-800 dark:bg-indigo-950/40" label="Current chapter">
      {body}
    </ScrollArea>
  );
}

/** A chapter's narration and what to do now, small in the side panel or, in presenter mode, at the size it is given. */
export function ChapterStory({ chapter, large = false }: { chapter: Chapter; large?: boolean }) {
  return (
    <>
      <p className={`${large ? 'leading-snug' : 'mt-1 text-sm leading-relaxed'} text-slate-700 dark:text-slate-200`}>{chapter.text.replace(/\s*\n\s*/g, ' ').trim()}</p>
      {chapter.action && (
        <p className={`${large ? 'leading-snug' : 'mt-1.5 text-sm'} font-medium text-indigo-800 dark:text-indigo-200`}>
          <span aria-hidden="true">→ </span>
          {chapter.action}
        </p>
      )}
    </>
  );
}
