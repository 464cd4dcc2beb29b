import { useEffect } from 'react';
import { appStore } from '../state/app-store';
import { clearSelection } from '../state/selection';
import { frameStore } from '../state/frame-store';
import { setCursor, setZoom, timelineStore } from '../state/timeline';
import { cancelPlacing } from './fault-palette';
import { enterPresenter } from './presenter';
import { typingInto } from './typing';
import { editorStore } from '../state/editor';
import { openEditor } from './editor/open-editor';
import { changeSpeed, step, togglePlay } from './sim-client';
import { toggleCompare } from './timeline/compare-client';
import { jumpToCursor } from './timeline/timeline-actions';
import { nudgeCursor } from './timeline/time-scale';
import { currentDomain } from './timeline/timeline-view';

/** Moves the timeline's crosshair one sample left or right. */
function moveCursor(direction: 1 | -1): void {
  const { series } = frameStore.getState();
  const endS = series.end() * series.stepSeconds;
  setCursor(nudgeCursor(timelineStore.getState().cursor, direction, series.stepSeconds, currentDomain(), endS));
}

/** Space is how a keyboard ticks a checkbox (Enter does not), so a focused checkbox keeps it. */
function ownsSpace(target: EventTarget | null): boolean {
  return target instanceof HTMLInputElement && target.type === 'checkbox';
}

/** Every shortcut, as the `?` list shows it; `useKeyboardShortcuts` below implements the global ones. */
export const SHORTCUTS: { keys: string[]; what: string }[] = [
  { keys: ['Space'], what: 'Play or pause' },
  { keys: ['→'], what: 'Step 0.1 s of simulated time' },
  { keys: ['+', '='], what: 'Faster' },
  { keys: ['-'], what: 'Slower' },
  { keys: ['Esc'], what: 'Cancel a fault being placed, or clear the selection' },
  { keys: ['Tab'], what: 'Move between controls and boxes of the picture' },
  { keys: ['Enter', 'Space'], what: 'On a box: select it (or place the fault being picked); on a fault card: pick it' },
  { keys: ['Shift+F10', 'Menu'], what: 'On a box: the faults it takes' },
  { keys: ['[', ']'], what: 'Timeline: move the crosshair a second back or on' },
  { keys: ['j'], what: 'Timeline: jump the run to the crosshair (a click on a chart does the same)' },
  { keys: ['0'], what: 'Timeline: show the whole run again (as does a double-click on a chart)' },
  { keys: ['c'], what: 'Open or close Compare (A/B with a fix toggled)' },
  { keys: ['↑', '↓'], what: 'In the event log: the previous or next event' },
  { keys: ['e'], what: 'Scenario editor: edit this scenario, build one, or import Kubernetes manifests' },
  { keys: ['p'], what: 'Presenter mode: the story in large type, a chapter at a time' },
  { keys: ['PageDown', '→'], what: 'Presenter: reveal the chapter and play it, or ask the next one' },
  { keys: ['PageUp', '←'], what: 'Presenter: back a step' },
  { keys: ['r'], what: 'Presenter: this chapter again from its start' },
  { keys: ['l'], what: 'Presenter: laser pointer on or off' },
  { keys: ['f'], what: 'Presenter: full screen' },
  { keys: ['w'], what: 'Presenter: why, for the reason most packets were dropped' },
  { keys: ['Esc'], what: 'Presenter: close the why, then leave' },
  { keys: ['?'], what: 'Show or hide this list' },
];

/**
 * Space = play/pause, ArrowRight = step, + or = faster, - slower, Escape = clear the selection, ? = the list above;
 * on the timeline [ and ] move the crosshair, j jumps the run to it, 0 shows the whole run, c opens or closes Compare.
 */
export function useKeyboardShortcuts(): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      // The editor keeps its own keys (undo, redo, save); the run's shortcuts wait until it is closed.
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || typingInto(event.target) || editorStore.getState().open) return;
      switch (event.key) {
        case ' ':
          if (ownsSpace(event.target)) return;
          // Also stops a focused button from treating the same Space as a click.
          event.preventDefault();
          if (!event.repeat) togglePlay();
          break;
        case 'ArrowRight':
          event.preventDefault();
          step();
          break;
        case '+':
        case '=':
          event.preventDefault();
          changeSpeed(1);
          break;
        case '-':
        case '_':
          event.preventDefault();
          changeSpeed(-1);
          break;
        case '[':
        case ']':
          event.preventDefault();
          moveCursor(event.key === ']' ? 1 : -1);
          break;
        case 'j':
          event.preventDefault();
          jumpToCursor();
          break;
        case '0':
          event.preventDefault();
          setZoom(null);
          break;
        case 'c':
          event.preventDefault();
          toggleCompare();
          break;
        case 'p':
          event.preventDefault();
          enterPresenter();
          break;
        case 'e':
          event.preventDefault();
          openEditor();
          break;
        case '?':
          event.preventDefault();
          appStore.setState((s) => ({ help: !s.help }));
          break;
        case 'Escape':
          if (appStore.getState().help) appStore.setState({ help: false });
          else if (cancelPlacing() || clearSelection()) event.preventDefault();
          break;
        default:
      }
    };
    // A focused button would turn Space into a click on keyup; swallowing that keeps one toggle per press.
    const onKeyUp = (event: KeyboardEvent): void => {
      if (event.key === ' ' && !typingInto(event.target) && !ownsSpace(event.target) && !editorStore.getState().open) event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('keyup', onKeyUp);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('keyup', onKeyUp);
    };
  }, []);
}
