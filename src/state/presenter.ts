import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';

/**
 * Where a workshop host is in the story: a chapter, either asked (the room guesses what will happen, the run paused at
 * the chapter's start) or revealed (its narration shown and the run playing to the next chapter).
 */
export interface StoryStep {
  chapter: number;
  stage: 'ask' | 'reveal';
}

export interface PresenterState {
  on: boolean;
  step: StoryStep;
  /** The pointer draws as a bright dot the room can follow on a projector. */
  laser: boolean;
}

export const presenterStore = createStore<PresenterState>(() => ({ on: false, step: { chapter: 0, stage: 'ask' }, laser: false }));

export function usePresenter<T>(selector: (s: PresenterState) => T): T {
  return useStore(presenterStore, selector);
}

/** The step after `step` in a story of `count` chapters: reveal what was asked, then ask the next; null at the end. */
export function nextStep(step: StoryStep, count: number): StoryStep | null {
  if (step.stage === 'ask') return { chapter: step.chapter, stage: 'reveal' };
  return step.chapter + 1 < count ? { chapter: step.chapter + 1, stage: 'ask' } : null;
}

/** The step before: a revealed chapter goes back to its question, a question to the previous chapter's; null at the start. */
export function previousStep(step: StoryStep): StoryStep | null {
  if (step.stage === 'reveal') return { chapter: step.chapter, stage: 'ask' };
  return step.chapter > 0 ? { chapter: step.chapter - 1, stage: 'ask' } : null;
}

/** The step a host starts from when presenting a run at `us`: a chapter's question if the run is at its start. */
export function stepAt(chapterStarts: readonly number[], us: number): StoryStep {
  let chapter = 0;
  chapterStarts.forEach((at, i) => {
    if (at <= us) chapter = i;
  });
  return { chapter, stage: us <= (chapterStarts[chapter] ?? 0) ? 'ask' : 'reveal' };
}
