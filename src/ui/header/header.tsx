import { appStore, useApp } from '../../state/app-store';
import { ExportMenu } from './export-menu';
import { ShareDialog } from './share-dialog';
import { EditIcon, MoonIcon, PresentIcon, SunIcon, SweepIcon } from '../components/icons';
import { toggleSweep } from '../sweep/sweep-open';
import { openEditor } from '../editor/open-editor';
import { enterPresenter } from '../presenter/presenter';
import { PlaybackControls } from './playback-controls';
import { RunClock } from './run-clock';
import { ScenarioPicker } from './scenario-picker';
import { iconButton } from '../components/styles';
import { useViewport } from '../components/layout';
import { toggleTheme } from '../services/theme';

function Logo() {
  return (
    <div className="flex items-center gap-2.5">
      <svg viewBox="0 0 32 32" className="size-8" role="img" aria-label="Netmortem">
        <rect width="32" height="32" rx="7" className="fill-indigo-600 dark:fill-indigo-500" />
        <path d="M9 23V9l14 14V9" stroke="white" strokeWidth="3.2" fill="none" strokeLinecap="round" strokeLinejoin="round" />
      </svg>
      {/* The name needs the room a 1400 px window leaves; the tagline, an 1800 px one (below that the scenario's title gets it). */}
      <div className="hidden leading-tight min-[1400px]:block">
        <div className="text-lg font-bold tracking-tight text-slate-900 dark:text-white">Netmortem</div>
        <div className="hidden text-xs text-slate-500 min-[1800px]:block dark:text-slate-400">Kubernetes networking, failing on purpose</div>
      </div>
    </div>
  );
}

// Tailwind's xl breakpoint, where the header's classes change too.
const ONE_LINE_PX = 1280;

export function Header({ theme }: { theme: 'light' | 'dark' }) {
  const oneLine = useViewport().width >= ONE_LINE_PX;
  const loaded = useApp((s) => s.summary !== null);
  // Below 1280 px the run's controls take a line of their own, under the scenario and the tools; they move in the
  // document too, not just on screen, so Tab goes the way the eye does.
  const controls = (
    <div className="mx-auto flex items-center gap-5">
      <PlaybackControls />
      <RunClock />
    </div>
  );
  return (
    <header className="flex flex-wrap items-center gap-x-3 gap-y-2 border-b min-[1800px]:gap-x-5 border-slate-200 bg-white px-4 py-2.5 dark:border-slate-800 dark:bg-slate-900">
      <Logo />
      <ScenarioPicker />
      {oneLine && controls}
      <div className="flex items-center gap-1.5 max-xl:ml-auto">
        <button
          type="button"
          className={iconButton}
          onClick={openEditor}
          aria-label="Edit the scenario (e)"
          title="Edit the scenario, or build one, or import Kubernetes manifests (e)"
          data-testid="edit-button"
        >
          <EditIcon />
        </button>
        <button
          type="button"
          className={iconButton}
          onClick={toggleSweep}
          disabled={!loaded}
          aria-label="Sweep every fault (s)"
          title="Sweep: try every fault on every target of this run in workers, and rank what hurts clients (s)"
          data-testid="sweep-button"
        >
          <SweepIcon />
        </button>
        <button type="button" className={iconButton} onClick={enterPresenter} aria-label="Presenter mode (p)" title="Presenter mode for a workshop (p)" data-testid="present-button">
          <PresentIcon />
        </button>
        <ShareDialog />
        <ExportMenu />
        <button
          type="button"
          className={`${iconButton} font-semibold`}
          onClick={() => appStore.setState((s) => ({ help: !s.help }))}
          aria-label="Keyboard shortcuts (?)"
          title="Keyboard shortcuts (?)"
          data-testid="shortcuts-button"
        >
          ?
        </button>
        <button type="button" className={iconButton} onClick={toggleTheme} aria-label={theme === 'dark' ? 'Switch to light theme' : 'Switch to dark theme'} title="Toggle light/dark theme">
          {theme === 'dark' ? <SunIcon /> : <MoonIcon />}
        </button>
      </div>
      {!oneLine && controls}
    </header>
  );
}
