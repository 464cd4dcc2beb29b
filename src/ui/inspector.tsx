import type { PodView } from '../sim/api';
import { useApp } from '../state/app-store';
import { faultsFor } from '../state/fault-draft';
import { clearSelection, podEntity } from '../state/selection';
import { FaultAction } from './fault-action';
import { CloseIcon } from './icons';
import { panel, panelTitle } from './styles';

const phaseBadge: Record<PodView['phase'], string> = {
  running: 'border-[var(--c-ready-stroke)] bg-[var(--c-ready-fill)]',
  pending: 'border-dashed border-[var(--c-pending-stroke)] bg-[var(--c-pending-fill)]',
  terminating: 'border-[var(--c-terminating-stroke)] bg-[var(--c-terminating-fill)]',
  gone: 'border-dashed border-[var(--c-gone-stroke)]',
};

function badgeStyle(pod: PodView): string {
  if (pod.phase === 'running' && !pod.ready) return 'border-dashed border-[var(--c-ready-stroke)] bg-[var(--c-unready-fill)]';
  return phaseBadge[pod.phase];
}

function Field({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <>
      <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
      <dd data-testid={testId} className="min-w-0 truncate font-mono text-sm text-slate-800 dark:text-slate-100" title={value}>
        {value}
      </dd>
    </>
  );
}

/** The selected pod as the latest frame shows it, and every catalog fault that can target a pod. */
export function Inspector({ pod }: { pod: PodView }) {
  const catalog = useApp((s) => s.catalog);
  const kind = 'pod';
  const selected = podEntity(pod.name);
  const faults = faultsFor(catalog, kind);
  const readiness = pod.phase === 'running' ? (pod.ready ? 'ready' : 'not ready') : pod.phase;
  const gone = pod.phase === 'gone' ? `${selected} is gone` : undefined;

  return (
    <section data-testid="inspector" className={panel} aria-label={`Inspector: ${selected}`}>
      <div className={panelTitle}>
        <h2>Inspector</h2>
        <button
          type="button"
          onClick={clearSelection}
          aria-label="Close inspector (Esc)"
          title="Close (Esc)"
          className="-my-1 -mr-1.5 inline-flex size-7 items-center justify-center rounded-md text-slate-500 hover:bg-slate-100 hover:text-slate-700 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-400 dark:hover:bg-slate-800 dark:hover:text-slate-200"
        >
          <CloseIcon />
        </button>
      </div>
      <div className="min-h-0 flex-1 overflow-y-auto">
        <div className="px-3 py-2.5">
          <div className="flex items-center justify-between gap-2">
            <h3 className="min-w-0 truncate font-mono text-base font-semibold text-slate-900 dark:text-white" title={selected}>
              <span className="font-normal text-slate-500 dark:text-slate-400">{kind}/</span>
              {pod.name}
            </h3>
            <span
              data-testid="inspector-status"
              className={`shrink-0 rounded-full border-2 px-2 text-xs font-semibold text-slate-800 dark:text-slate-100 ${badgeStyle(pod)}`}
            >
              {readiness}
            </span>
          </div>
          <dl className="mt-2 grid grid-cols-[auto_minmax(0,1fr)_auto_minmax(0,1fr)] items-baseline gap-x-2.5 gap-y-1">
            <Field label="node" value={pod.node} testId="inspector-node" />
            <Field label="IP" value={pod.ip || '—'} testId="inspector-ip" />
            <Field label="phase" value={pod.phase} testId="inspector-phase" />
            <Field label="ready" value={pod.ready ? 'yes' : 'no'} testId="inspector-ready" />
            <Field label="deployment" value={pod.deployment} testId="inspector-deployment" />
          </dl>
        </div>
        <div className="space-y-3 border-t border-slate-200 px-3 py-2.5 dark:border-slate-800">
          <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">Faults</h3>
          {faults.map((f) => (
            <FaultAction key={f.id} fault={f} target={selected} disabledReason={gone} />
          ))}
          {faults.length === 0 && <p className="text-sm text-slate-500 dark:text-slate-400">No fault in the catalog targets a {kind}.</p>}
        </div>
      </div>
    </section>
  );
}
