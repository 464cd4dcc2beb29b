import { useEffect, useRef, useState } from 'react';
import { appStore, notify, useApp } from '../../state/app-store';
import { frameStore } from '../../state/frame-store';
import { closeWhy, whyStore } from '../../state/why';
import { nextStep, presenterStore, previousStep, stepAt, usePresenter, type StoryStep } from '../../state/presenter';
import { ChapterStory, NO_CHAPTERS } from '../scenario/chapters';
import { ErrorBanner } from '../app/error-banner';
import { NoticeBar } from '../app/notice-bar';
import { formatClock } from '../components/format';
import { CloseIcon, FullscreenIcon, LaserIcon, NextIcon, PreviousIcon, ResetIcon } from '../components/icons';
import { useKeyScope } from '../app/key-scopes';
import { droppedReasons, DropsPanel } from '../drops/drops-panel';
import { askWhy, pause, play, seek, setPauseAtChapters } from '../services/sim-client';
import { WhyPanel } from '../why/why-panel';
import { button, iconButton, panel } from '../components/styles';
import { TimelinePanel } from '../timeline/timeline-panel';
import { TopologyPanel } from '../topology/topology-panel';
import { PlayButton } from '../header/playback-controls';
import { SimClock } from '../header/run-clock';

const chapters = () => appStore.getState().summary?.chapters ?? NO_CHAPTERS;

/**
 * Moves the story to `step`. A question pauses the run at the chapter's start (going back replays the run there);
 * a reveal plays on, and the run stops by itself at the next chapter.
 */
function goTo(step: StoryStep): void {
  const chapter = chapters()[step.chapter];
  if (!chapter) return;
  presenterStore.setState({ step });
  // An explanation belongs to the step it was asked in.
  closeWhy();
  if (step.stage === 'ask') {
    pause();
    void seek(Math.round(chapter.at * 1e6));
  } else if (appStore.getState().status !== 'done') play();
}

export function nextChapterStep(): void {
  const next = nextStep(presenterStore.getState().step, chapters().length);
  if (next) goTo(next);
}

export function previousChapterStep(): void {
  const previous = previousStep(presenterStore.getState().step);
  if (previous) goTo(previous);
}

/** Back to the current chapter's question, the run replayed to its start. */
export function resetChapter(): void {
  goTo({ chapter: presenterStore.getState().step.chapter, stage: 'ask' });
}

/** Opens presenter mode where the run is: a chapter's question if it stands at that chapter's start. */
export function enterPresenter(): void {
  if (appStore.getState().summary === null) return;
  const starts = chapters().map((c) => Math.round(c.at * 1e6));
  presenterStore.setState({ on: true, step: stepAt(starts, frameStore.getState().t) });
  // The story advances a chapter at a time only if playing stops at each.
  if (!appStore.getState().pauseAtChapters) setPauseAtChapters(true);
}

export function exitPresenter(): void {
  presenterStore.setState({ on: false, laser: false });
  if (document.fullscreenElement) void document.exitFullscreen().catch(() => {});
}

export function toggleFullscreen(): void {
  const request = document.fullscreenElement ? document.exitFullscreen() : document.documentElement.requestFullscreen();
  request.catch((error: unknown) =>
    appStore.setState({ error: { title: 'Full screen', message: `The browser refused full screen: ${(error as Error).message}`, restartable: false, kind: 'input' } }),
  );
}

export const toggleLaser = (): void => presenterStore.setState((s) => ({ laser: !s.laser }));

/** The why chain for the reason most packets were dropped so far: the room's usual next question. */
export function explainTopDrop(): void {
  const [top] = droppedReasons(frameStore.getState().drops);
  if (top) void askWhy(top[0]);
  else notify({ message: 'No packets have been dropped yet, so there is no why to show.' });
}

/** Esc closes an open why first, then leaves. */
export function leaveStep(): void {
  if (whyStore.getState().asked !== null) closeWhy();
  else exitPresenter();
}

// A short tail behind the laser dot shows the room which way it moved; it fades once the pointer rests.
const TRAIL = 8;
const TRAIL_FADES_AFTER_MS = 120;

/** A bright dot that follows the pointer with a fading tail, drawn above everything and never in the way of a click. */
function Laser() {
  const dot = useRef<HTMLDivElement>(null);
  const trail = useRef<(HTMLDivElement | null)[]>([]);
  useEffect(() => {
    const seen: [number, number][] = [];
    let rest: ReturnType<typeof setTimeout> | undefined;
    const place = (el: HTMLElement, [x, y]: [number, number], opacity: number): void => {
      el.style.transform = `translate(${x}px, ${y}px) translate(-50%, -50%)`;
      el.style.opacity = String(opacity);
    };
    const onMove = (event: PointerEvent): void => {
      if (dot.current) place(dot.current, [event.clientX, event.clientY], 1);
      seen.unshift([event.clientX, event.clientY]);
      seen.length = Math.min(seen.length, TRAIL + 1);
      trail.current.forEach((el, i) => {
        const at = seen[i + 1];
        if (el && at) place(el, at, 0.55 * (1 - i / TRAIL));
      });
      clearTimeout(rest);
      rest = setTimeout(() => {
        seen.length = 0;
        for (const el of trail.current) if (el) el.style.opacity = '0';
      }, TRAIL_FADES_AFTER_MS);
    };
    window.addEventListener('pointermove', onMove);
    return () => {
      window.removeEventListener('pointermove', onMove);
      clearTimeout(rest);
    };
  }, []);
  return (
    <>
      {Array.from({ length: TRAIL }, (_, i) => (
        <div
          key={i}
          ref={(el) => {
            trail.current[i] = el;
          }}
          data-testid="laser-trail"
          aria-hidden="true"
          className="pointer-events-none fixed top-0 left-0 z-50 size-4 rounded-full bg-red-500 opacity-0 transition-opacity duration-200"
        />
      ))}
      <div
        ref={dot}
        data-testid="laser"
        aria-hidden="true"
        className="pointer-events-none fixed top-0 left-0 z-50 size-6 rounded-full bg-red-500 opacity-0 shadow-[0_0_16px_6px_rgba(239,68,68,0.7)] ring-2 ring-red-200"
      />
    </>
  );
}

function useFullscreen(): boolean {
  const [on, setOn] = useState(document.fullscreenElement !== null);
  useEffect(() => {
    const onChange = (): void => setOn(document.fullscreenElement !== null);
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);
  return on;
}

function Narration() {
  const list = useApp((s) => s.summary?.chapters ?? NO_CHAPTERS);
  const step = usePresenter((s) => s.step);
  const chapter = list[step.chapter];
  if (!chapter) {
    return (
      <section className={`${panel} p-6 text-xl text-slate-700 dark:text-slate-200`} data-testid="presenter-narration">
        This scenario has no chapters to step through. Play it with Space, or pick one of the incidents.
      </section>
    );
  }
  const ask = step.stage === 'ask';
  return (
    <section className={`${panel} gap-4 overflow-y-auto p-6`} aria-live="polite" data-testid="presenter-narration" data-stage={step.stage} data-chapter={step.chapter + 1}>
      <p className="text-base font-semibold tracking-wide text-indigo-700 uppercase dark:text-indigo-300">
        Chapter {step.chapter + 1} of {list.length} · {formatClock(chapter.at * 1e6).slice(0, 5)}
      </p>
      {ask ? (
        <>
          <h2 className="text-4xl font-bold text-slate-900 dark:text-white">What will happen?</h2>
          <p className="text-2xl leading-snug text-slate-800 dark:text-slate-100" data-testid="presenter-question">
            {chapter.question ?? `Next: ${chapter.title}. What do you expect to see?`}
          </p>
          <p className="mt-auto text-base text-slate-500 dark:text-slate-400">PageDown tells the chapter and plays it to the next.</p>
        </>
      ) : (
        <>
          <h2 className="text-2xl font-bold text-slate-900 dark:text-white" data-testid="presenter-title">
            {chapter.title}
          </h2>
          <ChapterStory chapter={chapter} large />
        </>
      )}
    </section>
  );
}

function PresenterBar() {
  const list = useApp((s) => s.summary?.chapters ?? NO_CHAPTERS);
  const title = useApp((s) => s.summary?.title ?? '');
  const status = useApp((s) => s.status);
  const { step, laser } = usePresenter((s) => s);
  const fullscreen = useFullscreen();
  return (
    <header className="flex items-center gap-4 border-b border-slate-200 bg-white px-4 py-2 dark:border-slate-800 dark:bg-slate-900">
      <div className="flex items-center gap-1.5">
        <button type="button" className={iconButton} onClick={previousChapterStep} aria-label="Back a step (PageUp)" title="Back a step (PageUp)" data-testid="presenter-previous">
          <PreviousIcon />
        </button>
        <PlayButton />
        <button type="button" className={iconButton} onClick={nextChapterStep} aria-label="Next step (PageDown)" title="Next step (PageDown)" data-testid="presenter-next">
          <NextIcon />
        </button>
      </div>
      <div className="flex min-w-0 flex-1 flex-col">
        <span className="truncate text-lg font-semibold text-slate-900 dark:text-white">{title}</span>
        <ol className="flex flex-wrap gap-1" aria-label="Chapters">
          {list.map((c, i) => (
            <li key={i}>
              <button
                type="button"
                onClick={() => goTo({ chapter: i, stage: 'ask' })}
                aria-label={`Chapter ${i + 1}: ${c.title}`}
                aria-current={i === step.chapter ? 'step' : undefined}
                title={`${i + 1}. ${c.title}`}
                className="h-2.5 w-7 rounded-full bg-slate-300 hover:bg-indigo-300 focus-visible:outline-2 focus-visible:outline-indigo-500 aria-[current=step]:bg-indigo-600 dark:bg-slate-700 dark:aria-[current=step]:bg-indigo-400"
              />
            </li>
          ))}
        </ol>
      </div>
      <SimClock className="text-2xl" />
      <span className="sr-only" data-testid="run-status">
        {status}
      </span>
      <div className="flex items-center gap-1.5">
        <button type="button" className={button} onClick={resetChapter} title="This chapter again from its start (r)" data-testid="presenter-reset">
          <ResetIcon />
          Chapter
        </button>
        <button type="button" className={iconButton} onClick={toggleLaser} aria-pressed={laser} aria-label="Laser pointer (l)" title="Laser pointer (l)" data-testid="presenter-laser">
          <LaserIcon />
        </button>
        <button type="button" className={iconButton} onClick={toggleFullscreen} aria-pressed={fullscreen} aria-label="Full screen (f)" title="Full screen (f)">
          <FullscreenIcon />
        </button>
        <button type="button" className={iconButton} onClick={exitPresenter} aria-label="Leave presenter mode (Esc)" title="Leave presenter mode (Esc)" data-testid="presenter-exit">
          <CloseIcon />
        </button>
      </div>
    </header>
  );
}

/** Workshop view: the picture and the timeline for the room, the story in large type, stepped by a clicker. */
export function PresenterLayout() {
  useKeyScope('presenter');
  const laser = usePresenter((s) => s.laser);
  // Drops and their why would answer the question before it is asked, so they show once a chapter is told.
  const told = usePresenter((s) => s.step.stage === 'reveal');
  useEffect(() => {
    document.documentElement.classList.add('presenting');
    return () => document.documentElement.classList.remove('presenting');
  }, []);
  return (
    <div className={`flex h-full flex-col ${laser ? 'cursor-none' : ''}`} data-layout="presenter">
      <PresenterBar />
      <ErrorBanner />
      <NoticeBar />
      <main className="grid min-h-0 flex-1 grid-cols-[minmax(0,1fr)_minmax(22rem,34%)] grid-rows-[minmax(0,1.4fr)_minmax(0,1fr)] gap-2 p-2">
        <TopologyPanel />
        <div className="row-span-2 flex min-h-0 flex-col gap-2 [&>*:first-child]:min-h-0 [&>*:first-child]:flex-[3]">
          <Narration />
          {told && (
            <>
              <WhyPanel fill />
              <div className="flex min-h-[7rem] flex-1 flex-col [&>*]:min-h-0 [&>*]:flex-1" data-testid="presenter-drops">
                <DropsPanel />
              </div>
            </>
          )}
        </div>
        <TimelinePanel />
      </main>
      {laser && <Laser />}
    </div>
  );
}
