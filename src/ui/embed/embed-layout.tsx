import { useApp } from '../../state/app-store';
import { useFrame } from '../../state/frame-store';
import { shareQuery } from '../../state/share-link';
import { currentChapter, NO_CHAPTERS } from '../scenario/chapters';
import { ErrorBanner } from '../app/error-banner';
import { GalleryDialog } from '../header/gallery-dialog';
import { ExternalIcon } from '../components/icons';
import { PlaybackControls } from '../header/playback-controls';
import { appUrl, currentRun } from '../services/run-link';
import { TimelinePanel } from '../timeline/timeline-panel';
import { TopologyPanel } from '../topology/topology-panel';
import { SimClock } from '../header/run-clock';

/** Points the link at the run as it is at the moment it is followed, so the full app opens on what the reader saw. */
function refreshHref(event: { currentTarget: HTMLAnchorElement }): void {
  const run = currentRun();
  event.currentTarget.href = run ? appUrl(shareQuery(run)) : appUrl('');
}

function EmbedClock() {
  const status = useApp((s) => s.status);
  const chapters = useApp((s) => s.summary?.chapters ?? NO_CHAPTERS);
  const chapter = useFrame((s) => currentChapter(chapters, s.t));
  return (
    <div className="flex min-w-0 flex-col leading-tight">
      <SimClock className="text-base" />
      <span className="truncate text-xs text-slate-500 dark:text-slate-400">
        <span data-testid="run-status">{status}</span>
        {chapter >= 0 && ` · ${chapter + 1}/${chapters.length} ${chapters[chapter]!.title}`}
      </span>
    </div>
  );
}

/**
 * The app inside a wiki page's iframe: a one-line bar (the run's controls and clock, and a way out to the full app)
 * over the picture and the timeline; nothing else, so it stays usable from 600×400.
 */
export function EmbedLayout() {
  const title = useApp((s) => s.summary?.title ?? 'Netmortem');
  return (
    <div className="flex h-full flex-col" data-layout="embed">
      <header className="flex items-center gap-3 border-b border-slate-200 bg-white px-2 py-1.5 dark:border-slate-800 dark:bg-slate-900">
        <PlaybackControls />
        <div className="min-w-0 flex-1">
          <EmbedClock />
        </div>
        <a
          href={appUrl('')}
          target="_blank"
          rel="noopener"
          onPointerDown={refreshHref}
          onFocus={refreshHref}
          title={`Open ${title} in Netmortem, at this moment`}
          data-testid="open-in-netmortem"
          className="inline-flex shrink-0 items-center gap-1 rounded-md px-2 py-1 text-sm font-semibold whitespace-nowrap text-indigo-700 hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300 dark:hover:bg-slate-800"
        >
          Open in Netmortem
          <ExternalIcon />
        </a>
      </header>
      <ErrorBanner />
      <main className="grid min-h-0 flex-1 grid-rows-[minmax(0,1.15fr)_minmax(0,1fr)] gap-1.5 p-1.5">
        <TopologyPanel />
        <TimelinePanel tools={false} />
      </main>
      <GalleryDialog />
    </div>
  );
}
