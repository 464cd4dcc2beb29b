import { useState, type FormEvent } from 'react';
import { useApp } from '../../state/app-store';
import { reseed } from '../services/sim-client';
import { useFrame } from '../../state/frame-store';
import { formatClock } from '../components/format';

const statusStyle = {
  running: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-900/60 dark:text-emerald-200',
  pausing: 'bg-slate-200 text-slate-700 dark:bg-slate-800 dark:text-slate-300',
  paused: 'bg-slate-200 text-slate-700 dark:bg-slate-800 dark:text-slate-300',
  done: 'bg-indigo-100 text-indigo-800 dark:bg-indigo-900/60 dark:text-indigo-200',
} as const;

const dotStyle = {
  running: 'bg-emerald-500 animate-pulse',
  pausing: 'bg-slate-400 animate-pulse',
  paused: 'bg-slate-400',
  done: 'bg-indigo-500',
} as const;

/** The run's seed; click (or Enter) to type another, which reloads the scenario with it. */
function SeedControl({ seed }: { seed: number | null }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState('');
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    if (await reseed(text)) setEditing(false);
  };
  if (editing) {
    return (
      <form onSubmit={(e) => void submit(e)} className="flex flex-col text-xs leading-tight text-slate-500 dark:text-slate-400">
        <label htmlFor="seed-input">seed</label>
        <input
          id="seed-input"
          data-testid="seed-input"
          autoFocus
          inputMode="numeric"
          value={text}
          onChange={(e) => setText(e.target.value)}
          onBlur={() => setEditing(false)}
          onKeyDown={(e) => e.key === 'Escape' && setEditing(false)}
          className="w-24 rounded border border-slate-300 bg-white px-1 font-mono text-sm text-slate-800 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
        />
      </form>
    );
  }
  return (
    <button
      type="button"
      onClick={() => {
        setText(seed === null ? '' : String(seed));
        setEditing(true);
      }}
      title="Run again with another seed"
      aria-label={`Seed ${seed ?? 'unknown'}; change it to run again with another`}
      className="flex flex-col rounded px-1 text-left text-xs leading-tight text-slate-500 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-400 dark:hover:bg-slate-800"
    >
      <span>seed</span>
      <span data-testid="seed-display" className="font-mono text-sm font-semibold text-slate-800 dark:text-slate-100">
        {seed ?? '—'}
      </span>
    </button>
  );
}

/** The run's simulated time as the latest frame has it; every layout's clock is this one, sized by `className`. */
export function SimClock({ className }: { className: string }) {
  const t = useFrame((s) => s.t);
  return (
    <span data-testid="sim-clock" data-us={Math.round(t)} className={`font-mono font-semibold tabular-nums text-slate-900 dark:text-white ${className}`} aria-label="Simulated time">
      {formatClock(t)}
    </span>
  );
}

/** Simulated clock with progress, the seed and the run status. */
export function RunClock() {
  const t = useFrame((s) => s.t);
  const duration = useFrame((s) => s.durationUs);
  const seed = useApp((s) => s.seed);
  const status = useApp((s) => s.status);
  const progress = duration > 0 ? Math.min(1, t / duration) : 0;

  return (
    <div className="flex items-center gap-4">
      <div className="flex flex-col gap-1">
        <div className="flex items-baseline gap-1.5 font-mono tabular-nums">
          <SimClock className="text-xl" />
          <span className="text-sm text-slate-500 dark:text-slate-400">/ {formatClock(duration)}</span>
        </div>
        <div
          className="h-1 w-full overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800"
          role="progressbar"
          aria-label="Run progress"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(progress * 100)}
        >
          <div className="h-full rounded-full bg-indigo-500" style={{ width: `${progress * 100}%` }} />
        </div>
      </div>
      <SeedControl seed={seed} />
      <span className={`inline-flex items-center gap-1.5 rounded-full px-2.5 py-1 text-sm font-semibold ${statusStyle[status]}`}>
        <span className={`size-2 rounded-full ${dotStyle[status]}`} aria-hidden="true" />
        <span data-testid="run-status">{status}</span>
      </span>
    </div>
  );
}
