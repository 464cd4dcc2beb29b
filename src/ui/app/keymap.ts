import { useEffect } from 'react';
import { appStore } from '../../state/app-store';
import { redoEdit, undoEdit } from '../../state/editor';
import { frameStore } from '../../state/frame-store';
import { clearSelection } from '../../state/selection';
import { setCursor, setZoom, timelineStore } from '../../state/timeline';
import { typingInto } from '../components/typing';
import { activeKeyScopes as active, useKeyScope, type KeyScope } from './key-scopes';
import { openEditor, saveDraft } from '../editor/open-editor';
import { cancelPlacing } from '../faults/fault-palette';
import { enterPresenter, explainTopDrop, leaveStep, nextChapterStep, previousChapterStep, resetChapter, toggleFullscreen, toggleLaser } from '../presenter/presenter';
import { changeSpeed, step, togglePlay } from '../services/sim-client';
import { toggleCompare } from '../timeline/compare-client';
import { nudgeCursor } from '../timeline/time-scale';
import { jumpToCursor } from '../timeline/timeline-actions';
import { currentDomain } from '../timeline/timeline-view';
import { toggleSweep } from '../sweep/sweep-open';

export interface KeyAction {
  /** As the shortcuts list shows them. */
  keys: string[];
  what: string;
  scope: KeyScope;
  /** Whether a keydown is this action's; none for a key a focused control handles itself (a `control` key, or the editor's text view's own). */
  keyTest?: (event: KeyboardEvent) => boolean;
  /** Does it; false when there was nothing to do, so the key keeps its default. */
  perform?: (event: KeyboardEvent) => boolean | void;
  /** Held down, the key repeats the action (a repeat of a key that does not is swallowed). */
  repeats?: boolean;
}

const key =
  (...names: string[]) =>
  (event: KeyboardEvent): boolean =>
    names.includes(event.key);
const withModifier =
  (name: string) =>
  (event: KeyboardEvent): boolean =>
    (event.ctrlKey || event.metaKey) && event.key.toLowerCase() === name;

/** Space is how a keyboard ticks a checkbox (Enter does not), so a focused checkbox keeps it. */
function ownsSpace(target: EventTarget | null): boolean {
  return target instanceof HTMLInputElement && target.type === 'checkbox';
}

/** Moves the timeline's crosshair one sample left or right. */
function moveCursor(direction: 1 | -1): void {
  const { series } = frameStore.getState();
  const endS = series.end() * series.stepSeconds;
  setCursor(nudgeCursor(timelineStore.getState().cursor, direction, series.stepSeconds, currentDomain(), endS));
}

/** Every key the app answers to, in the order the `?` list shows them. */
export const KEYMAP: readonly KeyAction[] = [
  { keys: ['Space'], what: 'Play or pause', scope: 'run', keyTest: (e) => e.key === ' ' && !ownsSpace(e.target), perform: togglePlay },
  { keys: ['→'], what: 'Step 0.1 s of simulated time', scope: 'run', keyTest: key('ArrowRight'), perform: step, repeats: true },
  { keys: ['+', '='], what: 'Faster', scope: 'run', keyTest: key('+', '='), perform: () => changeSpeed(1), repeats: true },
  { keys: ['-'], what: 'Slower', scope: 'run', keyTest: key('-', '_'), perform: () => changeSpeed(-1), repeats: true },
  {
    keys: ['Esc'],
    what: 'Close this list, cancel a fault being placed, or clear the selection',
    scope: 'run',
    keyTest: key('Escape'),
    perform() {
      if (!appStore.getState().help) return cancelPlacing() || clearSelection();
      appStore.setState({ help: false });
      return false;
    },
    repeats: true,
  },
  { keys: ['Tab'], what: 'Move between controls and boxes of the picture', scope: 'control' },
  { keys: ['Enter', 'Space'], what: 'On a box: select it (or place the fault being picked); on a fault card: pick it', scope: 'control' },
  { keys: ['Shift+F10', 'Menu'], what: 'On a box: the faults it takes', scope: 'control' },
  { keys: ['[', ']'], what: 'Timeline: move the crosshair a second back or on', scope: 'run', keyTest: key('[', ']'), perform: (e) => moveCursor(e.key === ']' ? 1 : -1), repeats: true },
  { keys: ['←', '→'], what: 'On the time lane: preview a second back or on (Shift: ten); Enter jumps there, Esc goes back', scope: 'control' },
  { keys: ['j'], what: 'Timeline: jump the run to the crosshair (a click on a chart does the same)', scope: 'run', keyTest: key('j'), perform: jumpToCursor, repeats: true },
  { keys: ['0'], what: 'Timeline: show the whole run again (as does a double-click on a chart)', scope: 'run', keyTest: key('0'), perform: () => setZoom(null), repeats: true },
  { keys: ['c'], what: 'Open or close Compare (A/B with a fix toggled)', scope: 'run', keyTest: key('c'), perform: toggleCompare, repeats: true },
  { keys: ['↑', '↓'], what: 'In the event log: the previous or next event', scope: 'control' },
  { keys: ['s'], what: 'Sweep: try every fault on every target in workers and rank what hurts', scope: 'run', keyTest: key('s'), perform: toggleSweep, repeats: true },
  { keys: ['e'], what: 'Scenario editor: edit this scenario, build one, or import Kubernetes manifests', scope: 'run', keyTest: key('e'), perform: openEditor, repeats: true },
  { keys: ['Ctrl+Z', '⌘Z'], what: 'Undo', scope: 'editor', keyTest: (e) => withModifier('z')(e) && !e.shiftKey, perform: undoEdit, repeats: true },
  { keys: ['Ctrl+Y', 'Ctrl+Shift+Z'], what: 'Redo', scope: 'editor', keyTest: (e) => withModifier('y')(e) || (withModifier('z')(e) && e.shiftKey), perform: redoEdit, repeats: true },
  { keys: ['Ctrl+S', '⌘S'], what: 'Save the scenario as a file', scope: 'editor', keyTest: withModifier('s'), perform: () => void saveDraft() },
  { keys: ['Ctrl+Space'], what: 'In the text: complete a key or value from the scenario schema', scope: 'editor' },
  { keys: ['Ctrl+F', '⌘F'], what: 'In the text: find and replace', scope: 'editor' },
  { keys: ['F8'], what: 'In the text: the next problem', scope: 'editor' },
  { keys: ['Tab', 'Shift+Tab'], what: 'In the text: indent or outdent the line', scope: 'editor' },
  { keys: ['Esc', 'Tab'], what: 'In the text: leave it for the next control', scope: 'editor' },
  { keys: ['p'], what: 'Presenter mode: the story in large type, a chapter at a time', scope: 'run', keyTest: key('p'), perform: enterPresenter, repeats: true },
  { keys: ['PageDown', '→'], what: 'Reveal the chapter and play it, or ask the next one', scope: 'presenter', keyTest: key('PageDown', 'ArrowRight'), perform: nextChapterStep },
  { keys: ['PageUp', '←'], what: 'Back a step', scope: 'presenter', keyTest: key('PageUp', 'ArrowLeft'), perform: previousChapterStep },
  { keys: ['r'], what: 'This chapter again from its start', scope: 'presenter', keyTest: key('r'), perform: resetChapter },
  { keys: ['l'], what: 'Laser pointer on or off', scope: 'presenter', keyTest: key('l'), perform: toggleLaser },
  { keys: ['f'], what: 'Full screen', scope: 'presenter', keyTest: key('f'), perform: toggleFullscreen },
  { keys: ['w'], what: 'Why, for the reason most packets were dropped', scope: 'presenter', keyTest: key('w'), perform: explainTopDrop },
  { keys: ['Esc'], what: 'Close the why, then leave', scope: 'presenter', keyTest: key('Escape'), perform: leaveStep },
  { keys: ['?'], what: 'Show or hide this list', scope: 'run', keyTest: key('?'), perform: () => appStore.setState((s) => ({ help: !s.help })), repeats: true },
];

/** Runs the first action of `scopes` whose test the key passes; true when it used the key up. */
function dispatch(event: KeyboardEvent, scopes: readonly KeyScope[]): boolean {
  const action = KEYMAP.find((a) => scopes.includes(a.scope) && a.keyTest?.(event));
  if (!action?.perform) return false;
  if (event.repeat && !action.repeats) {
    event.preventDefault();
    return true;
  }
  if (action.perform(event) === false) return false;
  event.preventDefault();
  return true;
}

const plainKey = (event: KeyboardEvent): boolean => !(event.altKey || event.ctrlKey || event.metaKey) && !typingInto(event.target);

/**
 * The app's one keyboard listener, in two phases. Capture, before any control on the page: presenter keys. Bubble,
 * after a focused control has had its key (the event log's arrows, a menu's Escape): the editor's keys while it is
 * open, otherwise the run's.
 */
export function useKeymap(): void {
  useKeyScope('run');
  useEffect(() => {
    const early = (event: KeyboardEvent): void => {
      if (active.has('presenter') && !active.has('editor') && plainKey(event)) dispatch(event, ['presenter']);
    };
    const late = (event: KeyboardEvent): void => {
      if (event.defaultPrevented) return;
      if (active.has('editor')) dispatch(event, ['editor']);
      else if (plainKey(event)) dispatch(event, ['run']);
    };
    // A focused button would turn Space into a click on keyup; swallowing that keeps one toggle per press.
    const spaceUp = (event: KeyboardEvent): void => {
      if (event.key === ' ' && !typingInto(event.target) && !ownsSpace(event.target) && !active.has('editor')) event.preventDefault();
    };
    window.addEventListener('keydown', early, { capture: true });
    window.addEventListener('keydown', late);
    window.addEventListener('keyup', spaceUp);
    return () => {
      window.removeEventListener('keydown', early, { capture: true });
      window.removeEventListener('keydown', late);
      window.removeEventListener('keyup', spaceUp);
    };
  }, []);
}
