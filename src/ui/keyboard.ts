import { useEffect } from 'react';
import { appStore } from '../state/app-store';
import { clearSelection } from '../state/selection';
import { cancelPlacing } from './fault-palette';
import { changeSpeed, step, togglePlay } from './sim-client';

/** Text fields and selects keep their own keys; everywhere else the shortcuts apply. */
function typingInto(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return true;
  return target instanceof HTMLInputElement && target.type !== 'button' && target.type !== 'checkbox' && target.type !== 'file';
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
  { keys: ['←', '→'], what: 'In the chart tabs: the previous or next chart' },
  { keys: ['?'], what: 'Show or hide this list' },
];

/** Space = play/pause, ArrowRight = step, + or = faster, - slower, Escape = clear the selection, ? = the list above. */
export function useKeyboardShortcuts(): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || typingInto(event.target)) return;
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
      if (event.key === ' ' && !typingInto(event.target) && !ownsSpace(event.target)) event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('keyup', onKeyUp);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('keyup', onKeyUp);
    };
  }, []);
}
