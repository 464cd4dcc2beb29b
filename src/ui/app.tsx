import { useEffect } from 'react';
import { useApp } from '../state/app-store';
import { followTopology } from '../state/selection';
import { followSelection } from './sim-client';
import { DropsPanel } from './drops-panel';
import { ErrorBanner } from './error-banner';
import { WhyPanel } from './why-panel';
import { ShortcutsDialog } from './shortcuts-dialog';
import { FaultPalette } from './fault-palette';
import { EventLog } from './event-log';
import { Header } from './header';
import { Inspector } from './inspector';
import { useKeyboardShortcuts } from './keyboard';
import { ReportLine } from './report-line';
import { ScenarioInfo } from './scenario-info';
import { startApp } from './startup';
import { useThemeClass } from './theme';
import { TimelinePanel } from './timeline/timeline-panel';
import { TopologyPanel } from './topology/topology-panel';

/** Like a properties panel: the selected entity while there is one, the scenario (and its fixes) otherwise. */
function SelectionOrScenario() {
  const selected = useApp((s) => s.selected);
  return selected ? <Inspector entity={selected} /> : <ScenarioInfo />;
}

export function App() {
  const theme = useThemeClass();
  useKeyboardShortcuts();
  useEffect(() => {
    void startApp();
  }, []);
  useEffect(followTopology, []);
  useEffect(followSelection, []);

  return (
    <div className="flex h-full min-h-[760px] flex-col">
      <Header theme={theme} />
      <ErrorBanner />
      <main className="grid min-h-0 flex-1 grid-cols-[auto_minmax(0,1fr)_20rem] grid-rows-[minmax(10rem,1fr)_minmax(16rem,1fr)_minmax(7rem,0.45fr)] gap-3 p-3">
        <div className="row-span-3 flex min-h-0">
          <FaultPalette />
        </div>
        <TopologyPanel />
        <div className="row-span-3 flex min-h-0 flex-col gap-3 [&>*:last-child]:min-h-[9rem] [&>*:last-child]:flex-1">
          <WhyPanel />
          <SelectionOrScenario />
          <DropsPanel />
        </div>
        <TimelinePanel />
        <EventLog />
      </main>
      <ReportLine />
      <ShortcutsDialog />
    </div>
  );
}
