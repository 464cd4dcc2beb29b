import { useApp } from '../../state/app-store';
import { formatSpeed, SPEEDS } from '../../state/speed';
import { MinusIcon, PauseIcon, PlayIcon, PlusIcon, ResetIcon, StepIcon } from '../components/icons';
import { changeSpeed, reset, step, togglePlay } from '../services/sim-client';
import { iconButton, primaryButton, smallIconButton } from '../components/styles';

/** Play or pause (Space), for every layout that plays the run; `className` replaces its size. */
export function PlayButton({ className = 'h-10 w-12' }: { className?: string }) {
  const running = useApp((s) => s.status === 'running');
  const loaded = useApp((s) => s.summary !== null);
  return (
    <button
      type="button"
      data-testid="play-button"
      className={`${primaryButton} ${className}`}
      aria-label={running ? 'Pause' : 'Play'}
      aria-pressed={running}
      title={running ? 'Pause (Space)' : 'Play (Space)'}
      disabled={!loaded}
      onClick={togglePlay}
    >
      {running ? <PauseIcon /> : <PlayIcon />}
    </button>
  );
}

/** Reset, play/pause, step and the speed ladder; `compact` a size smaller, for a wiki page's embed. */
export function PlaybackControls({ compact = false }: { compact?: boolean }) {
  const status = useApp((s) => s.status);
  const speed = useApp((s) => s.speed);
  const loaded = useApp((s) => s.summary !== null);
  const slowest = speed === SPEEDS[0];
  const fastest = speed === 'max';
  const icon = compact ? smallIconButton : iconButton;

  return (
    <div className={`flex items-center ${compact ? 'gap-2' : 'gap-3'}`}>
      <div className={`flex items-center ${compact ? 'gap-1' : 'gap-1.5'}`}>
        <button type="button" className={icon} aria-label="Reset run" title="Reset run" disabled={!loaded} onClick={() => void reset()}>
          <ResetIcon />
        </button>
        <PlayButton className={compact ? 'h-8 w-10' : undefined} />
        <button type="button" data-testid="step-button" className={icon} aria-label="Step 0.1 s" title="Step 0.1 s (→)" disabled={!loaded || status === 'done'} onClick={step}>
          <StepIcon />
        </button>
      </div>
      <div className="flex items-center gap-1" role="group" aria-label="Speed">
        <button type="button" data-testid="speed-down" className={icon} aria-label="Slower" title="Slower (−)" disabled={slowest} onClick={() => changeSpeed(-1)}>
          <MinusIcon />
        </button>
        <output
          data-testid="speed-display"
          aria-live="polite"
          aria-label="Speed"
          className={`text-center font-mono text-base font-semibold tabular-nums text-slate-800 dark:text-slate-100 ${compact ? 'w-11' : 'w-14'}`}
        >
          {formatSpeed(speed)}
        </output>
        <button type="button" data-testid="speed-up" className={icon} aria-label="Faster" title="Faster (+)" disabled={fastest} onClick={() => changeSpeed(1)}>
          <PlusIcon />
        </button>
      </div>
    </div>
  );
}
