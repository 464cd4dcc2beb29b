import { describe, expect, it } from 'vitest';
import { nextStep, previousStep, stepAt, type StoryStep } from '../../src/state/presenter';

const ask = (chapter: number): StoryStep => ({ chapter, stage: 'ask' });
const reveal = (chapter: number): StoryStep => ({ chapter, stage: 'reveal' });

describe('presenter steps', () => {
  it('go question, reveal, next question, to the end of the story and no further', () => {
    const seen: StoryStep[] = [ask(0)];
    for (let step = nextStep(ask(0), 3); step; step = nextStep(step, 3)) seen.push(step);
    expect(seen).toEqual([ask(0), reveal(0), ask(1), reveal(1), ask(2), reveal(2)]);
  });

  it('go back from a reveal to its question, from a question to the previous one, and stop at the first', () => {
    expect(previousStep(reveal(2))).toEqual(ask(2));
    expect(previousStep(ask(2))).toEqual(ask(1));
    expect(previousStep(ask(0))).toBeNull();
  });

  it('start where the run stands: at a chapter start its question, inside it the reveal', () => {
    const starts = [0, 30e6, 40e6];
    expect(stepAt(starts, 0)).toEqual(ask(0));
    expect(stepAt(starts, 30e6)).toEqual(ask(1));
    expect(stepAt(starts, 35e6)).toEqual(reveal(1));
    expect(stepAt(starts, 90e6)).toEqual(reveal(2));
    // A story that starts later: before its first chapter, that chapter's question.
    expect(stepAt([10e6, 20e6], 2e6)).toEqual(ask(0));
  });
});
