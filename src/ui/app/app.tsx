import { lazy, Suspense, useEffect, useMemo, useState, type DragEvent } from 'react';
import { useWhy } from '../../state/why';
import { useApp } from '../../state/app-store';
import { followTopology } from '../../state/selection';
import { followSelection, loadScenario } from '../services/sim-client';
import { DropsPanel } from '../drops/drops-panel';
import { EmbedLayout } from '../embed/embed-layout';
import { PresenterLayout } from '../presenter/presenter';
import { usePresenter } from '../../state/presenter';
import { useEditor } from '../../state/editor';
import { useSweepOpen } from '../sweep/sweep-open';

// The editor and its YAML and import code load only when someone opens it.
const EditorLayout = lazy(() => import('../editor/editor-layout'));
// The sweep's table, pool and measuring code load when the sweep is first opened.
const SweepDialog = lazy(() => import('../sweep/sweep-dialog'));
import { parseUrlParams } from '../../state/url-params';
import { ErrorBanner } from './error-banner';
import { ErrorBoundary } from './error-boundary';
import { NoticeBar } from './notice-bar';
import { GalleryDialog } from '../header/gallery-dialog';
import { Dock, layoutFor, useViewport } from '../components/layout';
import { ScrollArea } from '../components/scroll-area';
import { WhyPanel } from '../why/why-panel';
import { ShortcutsDialog } from './shortcuts-dialog';
import { FaultPalette, pauseWhilePlacing } from '../faults/fault-palette';
import { EventLog } from '../events/event-log';
import { Header } from '../header/header';
import { Inspector } from '../inspector/inspector';
import { useKeymap } from './keymap';
import { ReportLine } from '../report/report-line';
import { ScenarioInfo } from '../scenario/scenario-info';
import { startApp } from '../services/startup';
import { useThemeClass } from '../services/theme';
import { TimelinePanel } from '../timeline/timeline-panel';
import { TopologyPanel } from '../topology/topology-panel';

/** A scenario file dropped anywhere on the app opens as "Open file…" would open it. */
async function openDroppedFile(event: DragEvent<HTMLElement>): Promise<void> {
  const file = event.dataTransfer.files[0];
  if (!file) return;
  event.preventDefault();
  await loadScenario({ text: await file.text(), fileName: file.name, pickerValue: '' });
}

/** Like a properties panel: the selected entity while there is one, the scenario (and its fixes) otherwise. */
function SelectionOrScenario({ className }: { className?: string }) {
  const selected = useApp((s) => s.selected);
  return selected ? <Inspector entity={selected} className={className} /> : <ScenarioInfo className={className} />;
}

/**
 * The right-hand column: the why chain at its own height, the scenario or the inspector taking the rest, and the drops
 * below at theirs up to two fifths of the column; each scrolls, with a cue, when its content is taller.
 */
function SideColumn({ className }: { className: string }) {
  return (
    <div className={`flex min-h-0 flex-col ${className}`} data-testid="side-column">
      <WhyPanel />
      <SelectionOrScenario className="min-h-[11rem] flex-1" />
      <DropsPanel className="max-h-[40%] min-h-[7.5rem] flex-none" />
    </div>
  );
}

/** The app, with any error thrown while drawing it shown with a way back instead of a blank page. */
export function App() {
  return (
    <ErrorBoundary>
      <Sandbox />
    </ErrorBoundary>
  );
}

function Sandbox() {
  const theme = useThemeClass();
  useKeymap();
  useEffect(() => {
    void startApp();
  }, []);
  useEffect(followTopology, []);
  useEffect(followSelection, []);
  useEffect(pauseWhilePlacing, []);

  // Fixed for the page's life: a wiki iframe never turns into the full app.
  const [embed] = useState(() => parseUrlParams(window.location.search).embed);
  const presenting = usePresenter((s) => s.on);
  const editing = useEditor((s) => s.open);
  const sweeping = useSweepOpen();
  const layout = layoutFor(useViewport());
  const selected = useApp((s) => s.selected);
  const asked = useWhy((s) => s.asked);
  const showDetails = useMemo(() => (selected !== null || asked !== null ? { id: 'details' } : null), [selected, asked]);

  if (embed) return <EmbedLayout />;
  if (editing) {
    return (
      <Suspense fallback={<p className="p-6 text-slate-600 dark:text-slate-300">Opening the editor…</p>}>
        <EditorLayout />
      </Suspense>
    );
  }
  if (presenting) return <PresenterLayout />;
  return (
    <div
      className={`flex h-full flex-col ${layout === 'desktop' ? 'min-h-[760px]' : ''}`}
      data-layout={layout}
      onDragOver={(e) => e.dataTransfer.types.includes('Files') && e.preventDefault()}
      onDrop={(e) => void openDroppedFile(e)}
    >
      <Header theme={theme} />
      <ErrorBanner />
      <NoticeBar />
      {layout === 'desktop' && (
        <main className="grid min-h-0 flex-1 grid-cols-[auto_minmax(0,1fr)_20rem] grid-rows-[minmax(10rem,1.5fr)_minmax(16rem,1fr)_minmax(7rem,0.45fr)] gap-3 p-3 2xl:grid-cols-[auto_minmax(0,1fr)_24rem]">
          <div className="row-span-3 flex min-h-0">
            <FaultPalette />
          </div>
          <TopologyPanel />
          <SideColumn className="row-span-3 gap-3" />
          <TimelinePanel />
          <EventLog />
        </main>
      )}
      {layout === 'projector' && (
        <main className="grid min-h-0 flex-1 grid-cols-[auto_minmax(0,1fr)_18rem] grid-rows-[minmax(0,2fr)_minmax(0,1fr)] gap-2 p-2">
          <div className="row-span-2 flex min-h-0">
            <FaultPalette />
          </div>
          <TopologyPanel />
          <SideColumn className="row-span-2 gap-2" />
          <Dock
            label="Timeline and events"
            tabs={[
              { id: 'timeline', label: 'Timeline', content: <TimelinePanel oneAtATime /> },
              { id: 'events', label: 'Events', content: <EventLog /> },
            ]}
          />
        </main>
      )}
      {layout === 'narrow' && (
        <main className="grid min-h-0 flex-1 grid-cols-[auto_minmax(0,1fr)] grid-rows-[minmax(0,1.6fr)_minmax(11rem,1fr)] gap-2 p-2">
          <div className="row-span-2 flex min-h-0">
            <FaultPalette />
          </div>
          <TopologyPanel />
          <Dock
            show={showDetails}
            label="Timeline, events and details"
            tabs={[
              { id: 'timeline', label: 'Timeline', content: <TimelinePanel oneAtATime /> },
              { id: 'events', label: 'Events', content: <EventLog /> },
              {
                id: 'details',
                label: 'Details',
                content: (
                  <ScrollArea label="Details">
                    <div className="flex flex-col gap-2">
                      <WhyPanel />
                      <SelectionOrScenario />
                    </div>
                  </ScrollArea>
                ),
              },
              { id: 'drops', label: 'Drops', content: <DropsPanel /> },
            ]}
          />
        </main>
      )}
      <ReportLine />
      <ShortcutsDialog />
      <GalleryDialog />
      {sweeping && (
        <Suspense fallback={null}>
          <SweepDialog />
        </Suspense>
      )}
    </div>
  );
}
