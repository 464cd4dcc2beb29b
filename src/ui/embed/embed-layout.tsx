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
import { useRef } from 'react';
import { useTextFits } from '../components/fit-text';
import { shortTitle } from '../components/format';

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
    <div className="flex min-w-0 flex-wrap items-baseline gap-x-2 leading-tight">
      <SimClock className="text-base" />
      <span className="text-xs text-slate-500 dark:text-slate-400" data-testid="embed-chapter">
        <span data-testid="run-status">{status}</span>
        {chapter >= 0 && ` · ${chapter + 1}/${chapters.length} ${chapters[chapter]!.title}`}
      </span>
    </div>
  );
}

/** The scenario's title on one line: whole where it fits, else its short name (the whole one in the tooltip). */
function EmbedTitle() {
  const title = useApp((s) => s.summary?.title ?? '');
  const ref = useRef<HTMLHeadingElement>(null);
  const fits = useTextFits(ref, title);
  return (
    <h1 ref={ref} title={title} data-testid="embed-title" className="min-w-0 flex-1 truncate text-sm font-semibold text-slate-900 dark:text-white">
      {fits ? title : shortTitle(title)}
    </h1>
  );
}

/**
 * The app inside a wiki page's iframe: a two-line bar (the scenario's title and a way out to the full app; the run's
 * controls, clock and chapter) over the picture and one whole chart at a time; nothing else, so it stays usable from
 * 600×400.
 */
export function EmbedLayout() {
  const title = useApp((s) => s.summary?.title ?? 'Netmortem');
  return (
    <div className="flex h-full flex-col" data-layout="embed">
      <header className="flex flex-col gap-1 border-b border-slate-200 bg-white px-2 py-1 dark:border-slate-800 dark:bg-slate-900">
        <div className="flex items-center gap-3">
          <EmbedTitle />
          <a
            href={appUrl('')}
            target="_blank"
            rel="noopener"
            onPointerDown={refreshHref}
            onFocus={refreshHref}
            title={`Open ${title} in Netmortem, at this moment`}
            data-testid="open-in-netmortem"
            className="inline-flex shrink-0 items-center gap-1 rounded-md px-2 py-0.5 text-sm font-semibold whitespace-nowrap text-indigo-700 hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300 dark:hover:bg-slate-800"
          >
            Open in Netmortem
            <ExternalIcon />
          </a>
        </div>
        <div className="flex items-center gap-3">
          <PlaybackControls compact />
          <div className="min-w-0 flex-1">
            <EmbedClock />
          </div>
        </div>
      </header>
      <ErrorBanner />
      {/* The timeline keeps the height of its lane and one chart; the picture takes the rest, most of it. */}
      <main className="grid min-h-0 flex-1 grid-rows-[minmax(0,1.6fr)_minmax(8.75rem,1fr)] gap-1.5 p-1.5">
        <TopologyPanel />
        <TimelinePanel compact />
      </main>
      <GalleryDialog />
    </div>
  );
}
