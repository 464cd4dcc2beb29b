import { useApp } from '../../state/app-store';
import type { FrameState } from '../../state/frame-store';
import { ExpectationResults } from './expectation-results';
import { WhyChains } from '../why/why-chains';
import { formatCount } from '../components/format';
import { usePacedFrame } from '../services/paced-frame';

const selectExecuted = (s: FrameState): number => s.eventsExecuted;

/** The run's outcome once it is done: expectations, why chains and the digest that reproduces it on the command line. */
export function ReportLine() {
  const report = useApp((s) => s.report);
  const status = useApp((s) => s.status);
  const executed = usePacedFrame(selectExecuted);

  if (!report) {
    return (
      <footer className="flex items-center gap-4 border-t border-slate-200 bg-white px-4 py-2 text-sm text-slate-500 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-400">
        <span>{formatCount(executed)} simulation events executed</span>
        <span className="ml-auto">{status === 'done' ? 'Fetching the run report…' : 'The run report appears here when the run is done.'}</span>
      </footer>
    );
  }
  return (
    <footer className="flex flex-wrap items-center gap-x-5 gap-y-1 border-t border-slate-200 bg-white px-4 py-2 text-sm text-slate-600 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-300">
      <span className="font-semibold text-slate-800 dark:text-slate-100">Run report</span>
      <span>
        {report.simulatedSeconds} s simulated · {formatCount(report.events)} events · seed {report.seed}
        {report.fixes.length > 0 && ` · fixes ${report.fixes.join(', ')}`}
      </span>
      {report.expect.length > 0 && <ExpectationResults results={report.expect} />}
      {report.why.length > 0 && <WhyChains chains={report.why} />}
      <span className="ml-auto flex items-center gap-2">
        <span className="text-slate-500 dark:text-slate-400">digest</span>
        <code data-testid="digest" className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-sm font-semibold text-slate-800 select-all dark:bg-slate-800 dark:text-slate-100">
          {report.digest}
        </code>
      </span>
    </footer>
  );
}
