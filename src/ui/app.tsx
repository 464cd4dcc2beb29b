import { useEffect } from 'react';
import { useApp } from '../state/app-store';
import { followTopology } from '../state/selection';
import { followSelection } from './sim-client';
import { ChartPanel } from './chart/chart-panel';
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
    <div className="flex h-full min-h-[640px] flex-col">
      <Header theme={theme} />
      <ErrorBanner />
      <main className="grid min-h-0 flex-1 grid-cols-[auto_minmax(0,1fr)_20rem] grid-rows-[minmax(0,1fr)_minmax(14rem,38%)] gap-3 p-3">
        <FaultPalette />
        <TopologyPanel />
        <div className="row-span-2 flex min-h-0 flex-col gap-3 [&>*:last-child]:min-h-[9rem] [&>*:last-child]:flex-1">
          <WhyPanel />
          <SelectionOrScenario />
          <DropsPanel />
        </div>
        <div className="grid min-h-0 grid-cols-[minmax(0,1fr)_minmax(0,1.2fr)] gap-3">
          <ChartPanel />
          <EventLog />
        </div>
      </main>
      <ReportLine />
      <ShortcutsDialog />
    </div>
  );
}
