import { useEffect, useRef, type KeyboardEvent, type MouseEvent } from 'react';
import { appStore } from '../../state/app-store';
import { frameStore, useFrame } from '../../state/frame-store';
import { clearSelection, podEntity, selectEntity, splitEntity } from '../../state/selection';
import { FitIcon } from '../icons';
import { button, panel } from '../styles';
import { createTopologyDrawing } from './topology-view';
import { useZoom } from './use-zoom';
import './pod-selection.css';

const podNameOf = (selected: string | null): string | null => {
  if (selected === null) return null;
  const { kind, name } = splitEntity(selected);
  return kind === 'pod' ? name : null;
};

/** The pod group an event happened in, if any; d3 marks each with its name. */
const podAt = (target: EventTarget): string | null =>
  target instanceof Element ? (target.closest<SVGGElement>('[data-testid="pod"]')?.dataset['pod'] ?? null) : null;

/** A click on a pod selects it; anywhere else on the picture clears the selection. A drag's click never arrives (d3-zoom eats it). */
function onPictureClick(event: MouseEvent<SVGSVGElement>): void {
  const pod = podAt(event.target);
  if (pod === null) clearSelection();
  else selectEntity(podEntity(pod));
}

/** Enter or Space on a focused pod selects it; handled here so Space does not also reach the play/pause shortcut. */
function onPictureKey(event: KeyboardEvent<SVGSVGElement>): void {
  if (event.key !== 'Enter' && event.key !== ' ') return;
  const pod = podAt(event.target);
  if (pod === null) return;
  event.preventDefault();
  selectEntity(podEntity(pod));
}

function Swatch({ kind, label }: { kind: string; label: string }) {
  const styles: Record<string, string> = {
    ready: 'bg-[var(--c-ready-fill)] border-[var(--c-ready-stroke)]',
    unready: 'bg-[var(--c-unready-fill)] border-[var(--c-ready-stroke)] border-dashed',
    pending: 'bg-[var(--c-pending-fill)] border-[var(--c-pending-stroke)] border-dashed',
    terminating: 'bg-[var(--c-terminating-fill)] border-[var(--c-terminating-stroke)]',
    gone: 'border-[var(--c-gone-stroke)] border-dashed opacity-60',
  };
  return (
    <span className="inline-flex items-center gap-1.5">
      <span className={`inline-block h-3 w-4 rounded-sm border-2 ${styles[kind] ?? ''}`} aria-hidden="true" />
      {label}
    </span>
  );
}

function Line({ state, label }: { state: 0 | 1 | 2; label: string }) {
  return (
    <span className="inline-flex items-center gap-1.5">
      <svg width="22" height="8" aria-hidden="true">
        <line x1="1" y1="4" x2="21" y2="4" className="topo-conn" data-state={state} strokeWidth={2.5} style={{ animation: 'none' }} />
      </svg>
      {label}
    </span>
  );
}

/** The cluster picture: d3 draws it, the store feeds it directly, React only provides the frame around it. */
export function TopologyPanel() {
  const svgRef = useRef<SVGSVGElement>(null);
  const contentRef = useRef<SVGGElement>(null);
  const countsRef = useRef<HTMLSpanElement>(null);
  const zoom = useZoom(svgRef, contentRef);
  const empty = useFrame((s) => s.topology === null);
  const nodes = useFrame((s) => s.topology?.nodes.length ?? 0);
  const pods = useFrame((s) => s.topology?.pods.filter((p) => p.phase !== 'gone').length ?? 0);

  useEffect(() => {
    if (!contentRef.current) return;
    const drawing = createTopologyDrawing(contentRef.current);
    const showCounts = (c: { connecting: number; established: number; closing: number }): void => {
      if (countsRef.current) {
        countsRef.current.textContent = `via Services: ${c.established} established · ${c.connecting} connecting · ${c.closing} closing`;
      }
    };
    const initial = frameStore.getState();
    if (initial.topology) zoom.current?.update(drawing.setTopology(initial.topology));
    showCounts(drawing.setConnections(initial.connections));
    drawing.setSelectedPod(podNameOf(appStore.getState().selected));
    const unsubscribe = frameStore.subscribe((s, prev) => {
      if (s.topology && s.topology !== prev.topology) zoom.current?.update(drawing.setTopology(s.topology));
      if (s.connections !== prev.connections) showCounts(drawing.setConnections(s.connections));
    });
    const unsubscribeSelection = appStore.subscribe((s, prev) => {
      if (s.selected !== prev.selected) drawing.setSelectedPod(podNameOf(s.selected));
    });
    return () => {
      unsubscribe();
      unsubscribeSelection();
      drawing.destroy();
    };
  }, [zoom]);

  return (
    <section className={`${panel} relative`} aria-label="Topology">
      <div className="flex items-center justify-between gap-3 border-b border-slate-200 px-3 py-2 dark:border-slate-800">
        <div className="flex items-baseline gap-3">
          <h2 className="text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">Topology</h2>
          <span className="text-sm text-slate-600 dark:text-slate-300">
            {nodes} node{nodes === 1 ? '' : 's'} · {pods} pod{pods === 1 ? '' : 's'}
          </span>
          <span
            ref={countsRef}
            title="Connections a Service translated to a backend pod, drawn as lines. Clients that dial pod addresses they found by DNS (the gRPC apps) are not counted here."
            className="hidden text-sm text-slate-500 tabular-nums md:inline dark:text-slate-400"
          />
        </div>
        <button type="button" className={`${button} h-7 px-2 text-xs`} onClick={() => zoom.current?.fit()} title="Fit to view (double-click the picture)">
          <FitIcon />
          Fit
        </button>
      </div>
      <div className="relative min-h-0 flex-1">
        <svg
          ref={svgRef}
          data-testid="topology"
          className="absolute inset-0 size-full cursor-grab touch-none select-none active:cursor-grabbing"
          role="group"
          aria-label="Cluster topology: nodes, pods, services and live connections. Select a pod to inspect it and apply faults."
          onClick={onPictureClick}
          onKeyDown={onPictureKey}
        >
          <g ref={contentRef} />
        </svg>
        {empty && (
          <div className="pointer-events-none absolute inset-0 grid place-items-center text-sm text-slate-500 dark:text-slate-400">
            Loading scenario…
          </div>
        )}
        <div className="pointer-events-none absolute bottom-2 left-3 flex flex-wrap gap-x-4 gap-y-1 rounded-md bg-white/85 px-2.5 py-1.5 text-xs text-slate-600 backdrop-blur dark:bg-slate-900/85 dark:text-slate-300">
          <Swatch kind="ready" label="ready" />
          <Swatch kind="unready" label="not ready" />
          <Swatch kind="pending" label="pending" />
          <Swatch kind="terminating" label="terminating" />
          <Swatch kind="gone" label="gone" />
          <Line state={1} label="established" />
          <Line state={0} label="connecting" />
          <Line state={2} label="closing" />
        </div>
      </div>
    </section>
  );
}
