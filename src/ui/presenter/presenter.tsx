import { useEffect, useMemo, useRef, useState } from 'react';
import { appStore, notify, useApp } from '../../state/app-store';
import { frameStore, useFrame, type FrameState } from '../../state/frame-store';
import { closeWhy, useWhy, whyStore } from '../../state/why';
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
import { Dock, useViewport, type DockTab } from '../components/layout';
import { ScrollArea } from '../components/scroll-area';
import { useFitFont } from '../components/fit-text';
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

/** The story's chapters as a row of dots, the current one marked; each goes to its chapter's question. */
function ChapterDots() {
  const list = useApp((s) => s.summary?.chapters ?? NO_CHAPTERS);
  const current = usePresenter((s) => s.step.chapter);
  return (
    <ol className="flex flex-wrap gap-1" aria-label="Chapters">
      {list.map((c, i) => (
        <li key={i}>
          <button
            type="button"
            onClick={() => goTo({ chapter: i, stage: 'ask' })}
            aria-label={`Chapter ${i + 1}: ${c.title}`}
            aria-current={i === current ? 'step' : undefined}
            title={`${i + 1}. ${c.title}`}
            className="h-2 w-4 rounded-full bg-slate-300 hover:bg-indigo-300 focus-visible:outline-2 focus-visible:outline-indigo-500 aria-[current=step]:bg-indigo-600 dark:bg-slate-700 dark:aria-[current=step]:bg-indigo-400"
          />
        </li>
      ))}
    </ol>
  );
}

// Sizes the room can read from the back of a workshop: the story's text shrinks towards the lower one only as far as
// it must to fit whole; a question, being short, starts larger.
const TOLD_PX = { min: 16, max: 30 };
const ASKED_PX = { min: 18, max: 36 };

/** The chapter in large type, sized to fit its box whole (its sizes are in em of the size fitted). */
function Narration() {
  const list = useApp((s) => s.summary?.chapters ?? NO_CHAPTERS);
  const step = usePresenter((s) => s.step);
  const chapter = list[step.chapter];
  const box = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const ask = step.stage === 'ask';
  const size = ask ? ASKED_PX : TOLD_PX;
  useFitFont(box, content, size.min, size.max, `${step.chapter}:${step.stage}:${list.length}`);
  if (!chapter) {
    return (
      <section className={`${panel} p-6 text-xl text-slate-700 dark:text-slate-200`} data-testid="presenter-narration">
        This scenario has no chapters to step through. Play it with Space, or pick one of the incidents.
      </section>
    );
  }
  return (
    <section className={panel} aria-live="polite" data-testid="presenter-narration" data-stage={step.stage} data-chapter={step.chapter + 1}>
      <ScrollArea className="flex-1" scrollerRef={box} label="Chapter">
        <div ref={content} className="flex flex-col gap-[0.6em] p-4" data-testid="presenter-story">
          <div className="flex flex-col gap-1.5">
            <p className="text-[max(0.7em,11px)] font-semibold tracking-wide text-indigo-700 uppercase dark:text-indigo-300">
              Chapter {step.chapter + 1} of {list.length} · {formatClock(chapter.at * 1e6).slice(0, 5)}
            </p>
            <ChapterDots />
          </div>
          {ask ? (
            <>
              <h2 className="text-[1.4em] leading-tight font-bold text-slate-900 dark:text-white">What will happen?</h2>
              <p className="leading-snug text-slate-800 dark:text-slate-100" data-testid="presenter-question">
                {chapter.question ?? `Next: ${chapter.title}. What do you expect to see?`}
              </p>
              <p className="text-[max(0.6em,12px)] text-slate-500 dark:text-slate-400">PageDown tells the chapter and plays it to the next.</p>
            </>
          ) : (
            <>
              <h2 className="text-[1.3em] leading-tight font-bold text-slate-900 dark:text-white" data-testid="presenter-title">
                {chapter.title}
              </h2>
              <ChapterStory chapter={chapter} large />
            </>
          )}
        </div>
      </ScrollArea>
    </section>
  );
}

function PresenterBar() {
  const title = useApp((s) => s.summary?.title ?? '');
  const status = useApp((s) => s.status);
  const laser = usePresenter((s) => s.laser);
  const fullscreen = useFullscreen();
  return (
    // Narrower than 1100 px the title takes a line of its own under the controls, rather than a column of words.
    <header className="flex flex-wrap items-center gap-x-4 gap-y-1 border-b border-slate-200 bg-white px-4 py-1.5 dark:border-slate-800 dark:bg-slate-900">
      <div className="flex shrink-0 items-center gap-1.5">
        <button type="button" className={iconButton} onClick={previousChapterStep} aria-label="Back a step (PageUp)" title="Back a step (PageUp)" data-testid="presenter-previous">
          <PreviousIcon />
        </button>
        <PlayButton />
        <button type="button" className={iconButton} onClick={nextChapterStep} aria-label="Next step (PageDown)" title="Next step (PageDown)" data-testid="presenter-next">
          <NextIcon />
        </button>
      </div>
      {/* The whole title, on as many lines as it needs: a room reads it once, and a cut one reads as broken. */}
      <h1
        className="min-w-0 flex-1 text-lg leading-snug font-semibold text-balance text-slate-900 max-[1100px]:order-last max-[1100px]:basis-full dark:text-white"
        data-testid="presenter-scenario-title"
      >
        {title}
      </h1>
      <SimClock className="shrink-0 text-2xl max-[1100px]:ml-auto" />
      <span className="sr-only" data-testid="run-status">
        {status}
      </span>
      <div className="flex shrink-0 items-center gap-1.5">
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

// From this height the story and the timeline both fit in the column; below it they take turns there.
const TALL_PX = 900;

const anyDrops = (s: FrameState): boolean => Object.values(s.drops).some((n) => n > 0);

/**
 * Workshop view: the picture for the room, most of the screen; beside it the story in large type, stepped by a clicker,
 * and the timeline (below the story on a tall screen, a tab beside it on a short one). The drops and their why join in
 * once a chapter is told, and only when there is something in them.
 */
export function PresenterLayout() {
  useKeyScope('presenter');
  const laser = usePresenter((s) => s.laser);
  const step = usePresenter((s) => s.step);
  // Drops and their why would answer the question before it is asked, so they show once a chapter is told.
  const told = step.stage === 'reveal';
  const dropped = useFrame(anyDrops);
  const asked = useWhy((s) => s.asked);
  const tall = useViewport().height >= TALL_PX;
  useEffect(() => {
    document.documentElement.classList.add('presenting');
    return () => document.documentElement.classList.remove('presenting');
  }, []);
  // Each step brings the story forward; a why asked for brings itself.
  const show = useMemo(() => ({ id: tall ? 'timeline' : 'story', step }), [tall, step]);
  const showWhy = useMemo(() => (asked ? { id: 'why' } : null), [asked]);
  const extra: DockTab[] = [
    ...(told && dropped
      ? [
          {
            id: 'drops',
            label: 'Drops',
            content: (
              <div className="flex flex-col [&>*]:min-h-0 [&>*]:flex-1" data-testid="presenter-drops">
                <DropsPanel />
              </div>
            ),
          },
        ]
      : []),
    ...(told && asked ? [{ id: 'why', label: 'Why', content: <WhyPanel fill /> }] : []),
  ];
  const timeline: DockTab = { id: 'timeline', label: 'Timeline', content: <TimelinePanel compact /> };
  return (
    <div className={`flex h-full flex-col ${laser ? 'cursor-none' : ''}`} data-layout="presenter">
      <PresenterBar />
      <ErrorBanner />
      <NoticeBar />
      <main className="grid min-h-0 flex-1 grid-cols-[minmax(0,1fr)_clamp(17rem,28vw,36rem)] gap-2 p-2">
        <TopologyPanel />
        <div className="flex min-h-0 flex-col gap-2" data-testid="presenter-column">
          {tall ? (
            <>
              <div className="flex min-h-0 flex-[3] flex-col [&>*]:min-h-0 [&>*]:flex-1">
                <Narration />
              </div>
              <Dock label="Timeline, drops and why" tabs={[timeline, ...extra]} show={showWhy ?? show} everyTabStop className="flex-[2]" />
            </>
          ) : (
            <Dock
              label="Story, timeline, drops and why"
              tabs={[{ id: 'story', label: 'Story', content: <Narration /> }, timeline, ...extra]}
              show={showWhy ?? show}
              everyTabStop
              className="flex-1"
            />
          )}
        </div>
      </main>
      {laser && <Laser />}
    </div>
  );
}
