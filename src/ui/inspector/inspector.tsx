import { useCallback } from 'react';
import { CLIENT_ADDRESS_CAUSES, CLIENT_ADDRESS_TEXT, type ClientAddressVerdict, type InspectSection, type PacketTrace, type PodView, type RequestJourney } from '../../sim';
import { formatEventTime } from '../components/format';
import { useApp } from '../../state/app-store';
import { faultsFor } from '../../state/fault-draft';
import type { FrameState } from '../../state/frame-store';
import { clearSelection, entityExists, findPod, splitEntity } from '../../state/selection';
import { FaultAction } from '../faults/fault-action';
import { usePacedFrame } from '../services/paced-frame';
import { PanelClose } from '../components/panel-close';
import { askWhy } from '../services/sim-client';
import { panel, panelTitle } from '../components/styles';
import { ScrollArea } from '../components/scroll-area';

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
      <dd data-testid={testId} className="min-w-0 font-mono text-sm break-all text-slate-800 dark:text-slate-100">
        {value}
      </dd>
    </>
  );
}

function PodFields({ pod }: { pod: PodView }) {
  return (
    <dl className="mt-2 grid grid-cols-[auto_minmax(0,1fr)_auto_minmax(0,1fr)] items-baseline gap-x-2.5 gap-y-1">
      <Field label="node" value={pod.node} testId="inspector-node" />
      <Field label="IP" value={pod.ip || '—'} testId="inspector-ip" />
      <Field label="phase" value={pod.phase} testId="inspector-phase" />
      <Field label="ready" value={pod.ready ? 'yes' : 'no'} testId="inspector-ready" />
      <Field label="deployment" value={pod.deployment} testId="inspector-deployment" />
    </dl>
  );
}

/** One block of live state, as the simulation computed it for this frame. */
function Section({ section }: { section: InspectSection }) {
  return (
    <div className="border-t border-slate-200 px-3 py-2 dark:border-slate-800" data-testid="inspector-section">
      <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">{section.title}</h3>
      <dl className="mt-1 grid grid-cols-[minmax(0,max-content)_minmax(0,1fr)] gap-x-3 gap-y-0.5">
        {section.rows.map(([label, value], i) => (
          <div key={`${label}-${i}`} className="contents">
            {/* Values wrap rather than clip: an address or a count cut short says nothing in a narrow column. */}
            <dt className="max-w-[22ch] break-words font-mono text-xs text-slate-500 dark:text-slate-400" title={label}>
              {label}
            </dt>
            <dd className="min-w-0 break-words font-mono text-xs text-slate-800 dark:text-slate-100" title={value}>
              {value}
            </dd>
          </div>
        ))}
      </dl>
      {section.more !== undefined && <p className="mt-0.5 text-xs text-slate-500 dark:text-slate-400">and {section.more.toLocaleString('en-US')} more</p>}
    </div>
  );
}

/** Sampled packets that passed the entity, each opening into its hops: rewrites, verdicts, and where it ended. */
function Traces({ traces }: { traces: PacketTrace[] }) {
  return (
    <div className="border-t border-slate-200 px-3 py-2 dark:border-slate-800" data-testid="inspector-traces">
      <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">Sampled packets</h3>
      {traces.length === 0 && <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">None of the sampled packets (one in a thousand) has passed here yet.</p>}
      <ul className="mt-1 space-y-1">
        {traces.map((t) => {
          const last = t.hops.at(-1);
          const dropped = last?.what.startsWith('dropped') ?? false;
          return (
            <li key={t.id}>
              <details data-testid="packet-trace">
                <summary className="cursor-pointer font-mono text-xs text-slate-700 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-200">
                  {t.summary} <span className={dropped ? 'text-red-700 dark:text-red-300' : 'text-emerald-700 dark:text-emerald-300'}>{last ? `· ${last.what}` : ''}</span>
                </summary>
                <ol className="mt-1 ml-3 space-y-0.5 border-l border-slate-200 pl-2 dark:border-slate-700">
                  {t.hops.map((h, i) => (
                    <li key={i} className="font-mono text-[11px] leading-snug text-slate-600 dark:text-slate-300">
                      <span className="text-slate-400">{formatEventTime(h.t)}</span> <span className="text-slate-500 dark:text-slate-400">{h.where}</span> {h.what}
                    </li>
                  ))}
                </ol>
              </details>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

const VERDICT_STYLE: Record<ClientAddressVerdict, string> = {
  client: 'text-emerald-700 dark:text-emerald-300',
  internal: 'text-amber-700 dark:text-amber-300',
  forged: 'text-red-700 dark:text-red-300',
};

const changed = 'rounded bg-amber-100 px-0.5 font-semibold text-amber-900 dark:bg-amber-900/50 dark:text-amber-100';
const sourceOf = (address: string): string => address.slice(0, address.lastIndexOf(':'));

/**
 * Sampled HTTP requests that passed the entity, each opening into its hops: where it was, what that hop did, the
 * addresses it left with and its X-Forwarded-For (and the same list as a Forwarded header) at that point.
 */
function Requests({ requests }: { requests: RequestJourney[] }) {
  return (
    <div className="border-t border-slate-200 px-3 py-2 dark:border-slate-800" data-testid="inspector-requests">
      <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">Sampled requests</h3>
      <ul className="mt-1 space-y-1">
        {requests.map((r) => {
          const server = r.hops.at(-1)?.where;
          const verdict = r.logged?.verdict;
          return (
            <li key={r.id}>
              <details data-testid="request-journey">
                <summary className="cursor-pointer font-mono text-xs text-slate-700 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-200">
                  {r.summary} from {r.origin}
                  {r.logged && verdict && (
                    <span className={VERDICT_STYLE[verdict]}>
                      {' '}
                      · logged as {r.logged.address}, {CLIENT_ADDRESS_TEXT[verdict]}
                    </span>
                  )}
                </summary>
                <ol className="mt-1 ml-3 space-y-1.5 border-l border-slate-200 pl-2 dark:border-slate-700">
                  {r.hops.map((h, i) => {
                    const before = r.hops[i - 1];
                    // What a hop changed is the story: a new source address, or a header rewritten.
                    const newSource = before !== undefined && sourceOf(h.src) !== sourceOf(before.src);
                    const newHeader = before !== undefined ? h.xff !== before.xff : h.xff !== '';
                    return (
                      <li key={i} className="text-[11px] leading-snug text-slate-600 dark:text-slate-300" data-testid="request-hop">
                        <div className="font-mono">
                          <span className="text-slate-400">{formatEventTime(h.t)}</span> <span className="font-semibold text-slate-700 dark:text-slate-200">{h.where}</span>
                        </div>
                        <div>{h.what}</div>
                        <div className="font-mono text-slate-700 dark:text-slate-200">
                          <span className={newSource ? changed : ''} data-changed={newSource || undefined}>
                            {h.src}
                          </span>{' '}
                          → {h.dst}
                        </div>
                        <div className="font-mono">
                          X-Forwarded-For:{' '}
                          <span className={newHeader ? changed : ''} data-changed={newHeader || undefined}>
                            {h.xff === '' ? 'none' : h.xff}
                          </span>
                        </div>
                        {h.forwarded !== undefined && <div className="font-mono text-slate-500 dark:text-slate-400">Forwarded: {h.forwarded}</div>}
                      </li>
                    );
                  })}
                </ol>
                {server && verdict && verdict !== 'client' && (
                  <button
                    type="button"
                    className="mt-1 ml-3 rounded border border-slate-300 px-1.5 text-xs text-indigo-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-600 dark:text-indigo-300 dark:hover:bg-slate-800"
                    onClick={() => void askWhy(CLIENT_ADDRESS_CAUSES[verdict], server)}
                  >
                    why not the client's address?
                  </button>
                )}
              </details>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/** The selected entity as the latest frame shows it: its live state from the simulation, and the faults that target it. */
export function Inspector({ entity, className = '' }: { entity: string; className?: string }) {
  const catalog = useApp((s) => s.catalog);
  const selectPod = useCallback((s: FrameState) => findPod(s.topology, entity), [entity]);
  const selectInspection = useCallback((s: FrameState) => (s.inspection?.entity === entity ? s.inspection : null), [entity]);
  const pod = usePacedFrame(selectPod);
  const inspection = usePacedFrame(selectInspection);
  const { kind, name } = splitEntity(entity);
  const faults = faultsFor(catalog, kind);
  const readiness = pod ? (pod.phase === 'running' ? (pod.ready ? 'ready' : 'not ready') : pod.phase) : undefined;
  // A pod no longer drawn (forgotten after it went): the simulation has nothing of it to show or to fault.
  const selectMissing = useCallback((s: FrameState) => entity.startsWith('pod/') && s.topology !== null && !entityExists(s.topology, entity), [entity]);
  const missing = usePacedFrame(selectMissing);
  const gone = pod?.phase === 'gone' || missing ? `${entity} is gone` : undefined;

  return (
    <section data-testid="inspector" className={`${panel} ${className}`} aria-label={`Inspector: ${entity}`}>
      <div className={panelTitle}>
        <h2>Inspector</h2>
        <PanelClose onClick={clearSelection} label="Close inspector (Esc)" title="Close (Esc)" />
      </div>
      <ScrollArea className="flex-1" label="Inspected state">
        <div className="px-3 py-2.5">
          <div className="flex items-center justify-between gap-2">
            <h3 className="min-w-0 font-mono text-base font-semibold break-all text-slate-900 dark:text-white">
              <span className="font-normal text-slate-500 dark:text-slate-400">{kind}/</span>
              {name}
            </h3>
            {pod && (
              <span data-testid="inspector-status" className={`shrink-0 rounded-full border-2 px-2 text-xs font-semibold text-slate-800 dark:text-slate-100 ${badgeStyle(pod)}`}>
                {readiness}
              </span>
            )}
          </div>
          {pod && <PodFields pod={pod} />}
        </div>
        {inspection?.sections
          .filter((s) => !(pod && s.title === 'Pod'))
          .map((s) => (
            <Section key={s.title} section={s} />
          ))}
        {inspection && inspection.requests.length > 0 && <Requests requests={inspection.requests} />}
        {inspection && <Traces traces={inspection.traces} />}
        {!inspection && (
          <p data-testid="inspector-missing" className="border-t border-slate-200 px-3 py-2 text-xs text-slate-500 dark:border-slate-800 dark:text-slate-400">
            {missing ? `${entity} is gone: it is no longer in the run at this time. A "why" step's time takes the run back to when it was.` : 'Waiting for the next frame…'}
          </p>
        )}
        <div className="space-y-3 border-t border-slate-200 px-3 py-2.5 dark:border-slate-800">
          <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">Faults</h3>
          {!missing && faults.map((f) => <FaultAction key={f.id} fault={f} target={entity} disabledReason={gone} />)}
          {missing && (
            <p data-testid="inspector-gone" className="text-sm text-slate-500 dark:text-slate-400">
              None: {entity} is gone.
            </p>
          )}
          {faults.length === 0 && <p className="text-sm text-slate-500 dark:text-slate-400">No fault in the catalog targets a {kind}.</p>}
        </div>
      </ScrollArea>
    </section>
  );
}
