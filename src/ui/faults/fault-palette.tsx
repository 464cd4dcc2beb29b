import { useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import type { FaultDescriptor } from '../../sim';
import { appStore, useApp } from '../../state/app-store';
import { pause, play } from '../services/sim-client';
import { closeFault, placementStore, startPlacing, stopPlacing, usePlacement } from '../../state/fault-placement';
import { FaultAction } from './fault-action';
import { PanelClose } from '../components/panel-close';
import { openPanel, panelTitle } from '../components/styles';
import { ScrollArea } from '../components/scroll-area';

/** The MIME type a dragged fault card carries: its catalog id. */
export const FAULT_MIME = 'application/x-netmortem-fault';

const KIND_NAMES: Record<string, string> = {
  pod: 'pod',
  deployment: 'deployment',
  node: 'node',
  service: 'Service',
  router: 'router',
  lb: 'load balancer',
  instance: 'instance',
  dns: 'DNS upstream',
  external: 'client on the internet',
  rack: 'rack',
};

export const targetKinds = (fault: FaultDescriptor): string => fault.targets.map((k) => KIND_NAMES[k] ?? k).join(' or ');

/** The first sentence of a catalog description, for a card's one line. */
const firstSentence = (text: string): string => text.replaceAll('`', '').split(/(?<=\.)\s/)[0]!;

function FaultCard({ fault }: { fault: FaultDescriptor }) {
  const placing = usePlacement((s) => s.placing?.id === fault.id);
  const onDragStart = (event: DragEvent<HTMLLIElement>): void => {
    event.dataTransfer.setData(FAULT_MIME, fault.id);
    event.dataTransfer.effectAllowed = 'copy';
    startPlacing(fault);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLLIElement>): void => {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    event.preventDefault();
    if (placing) stopPlacing();
    else startPlacing(fault);
  };
  return (
    <li
      draggable
      tabIndex={0}
      role="button"
      aria-pressed={placing}
      aria-label={`${fault.label}: drag onto a ${targetKinds(fault)}, or press Enter and then choose one in the picture`}
      data-testid="fault-card"
      data-fault={fault.id}
      onDragStart={onDragStart}
      onDragEnd={() => stopPlacing()}
      onKeyDown={onKeyDown}
      onClick={() => (placing ? stopPlacing() : startPlacing(fault))}
      title={fault.description.replaceAll('`', '')}
      className={`cursor-grab rounded-md border px-2.5 py-2 text-left shadow-sm transition-colors select-none focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 active:cursor-grabbing ${
        placing
          ? 'border-indigo-500 bg-indigo-50 dark:border-indigo-400 dark:bg-indigo-950/60'
          : 'border-slate-200 bg-white hover:border-red-300 hover:bg-red-50/40 dark:border-slate-700 dark:bg-slate-800 dark:hover:border-red-800 dark:hover:bg-red-950/30'
      }`}
    >
      <div className="flex items-center gap-2">
        <span aria-hidden="true" className="grid size-6 shrink-0 place-items-center rounded bg-red-100 text-sm text-red-700 dark:bg-red-950 dark:text-red-300">
          {fault.icon}
        </span>
        <span className="min-w-0 text-sm leading-tight font-semibold text-slate-800 dark:text-slate-100">{fault.label}</span>
      </div>
      <p className="mt-1 line-clamp-2 text-xs leading-snug text-slate-500 dark:text-slate-400">{firstSentence(fault.description)}</p>
      <p className="mt-0.5 text-[11px] text-slate-400 dark:text-slate-500">on a {targetKinds(fault)}</p>
    </li>
  );
}

/** Every fault in the catalog as a card to drag onto the picture (or pick with Enter, then a box). */
export function FaultPalette() {
  const catalog = useApp((s) => s.catalog);
  const placing = usePlacement((s) => s.placing);
  // Open by default beside the picture in the desktop and projector layouts (from 1100 px); a rail in the narrow one.
  const [open, setOpen] = useState(() => typeof window === 'undefined' || window.innerWidth >= 1100);
  if (!open) {
    return (
      <button
        type="button"
        onClick={() => setOpen(true)}
        aria-label="Show the fault palette"
        title="Faults"
        data-testid="palette-open"
        className="row-span-2 flex w-9 flex-col items-center gap-2 rounded-lg border border-slate-200 bg-white py-3 text-xs font-semibold tracking-wide text-slate-500 uppercase shadow-sm hover:text-slate-800 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-400 dark:hover:text-slate-100"
      >
        <span aria-hidden="true" className="text-base text-red-600 dark:text-red-400">
          ⚡
        </span>
        <span className="[writing-mode:vertical-rl]">Faults</span>
      </button>
    );
  }
  return (
    <section className={`${openPanel} row-span-2 w-52 2xl:w-56`} aria-label="Fault palette" data-testid="fault-palette">
      <div className={panelTitle}>
        <h2>Faults</h2>
        <PanelClose onClick={() => setOpen(false)} label="Hide the fault palette" />
      </div>
      <p className="px-3 pt-2 text-xs leading-snug text-slate-500 dark:text-slate-400" role="status">
        {placing ? `Now click or press Enter on a highlighted ${targetKinds(placing)}. Esc cancels.` : 'Drag a fault onto the picture. Right-click a box for the faults it takes.'}
      </p>
      <ScrollArea className="flex-1">
        <ul className="space-y-2 p-3" aria-label="Faults in the catalog">
          {catalog.map((f) => (
            <FaultCard key={f.id} fault={f} />
          ))}
        </ul>
      </ScrollArea>
    </section>
  );
}

/** Parameters of a fault about to land on a target, next to where it was dropped; applies it at the current time. */
export function FaultPopover() {
  const pending = usePlacement((s) => s.pending);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!pending) return;
    const first = ref.current?.querySelector<HTMLElement>('input, button[data-testid="fault-button"]');
    first?.focus();
    const onKey = (event: globalThis.KeyboardEvent): void => {
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        closeFault();
      }
    };
    const onPointer = (event: PointerEvent): void => {
      if (ref.current && !ref.current.contains(event.target as Node)) closeFault();
    };
    window.addEventListener('keydown', onKey, true);
    window.addEventListener('pointerdown', onPointer, true);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      window.removeEventListener('pointerdown', onPointer, true);
    };
  }, [pending]);
  if (!pending) return null;
  const { fault, target, x, y } = pending;
  return (
    <div
      ref={ref}
      role="dialog"
      aria-label={`${fault.label} on ${target}`}
      data-testid="fault-popover"
      style={{ left: `min(${Math.max(8, x)}px, calc(100vw - 21rem))`, top: `min(${Math.max(8, y)}px, calc(100vh - 16rem))` }}
      className="fixed z-20 w-80 rounded-lg border border-slate-300 bg-white p-3 shadow-xl dark:border-slate-700 dark:bg-slate-900"
    >
      <div className="mb-2 flex items-start justify-between gap-2">
        <h3 className="min-w-0 text-sm font-semibold text-slate-800 dark:text-slate-100">
          {fault.label} <span className="font-mono font-normal text-slate-500 dark:text-slate-400">{target}</span>
        </h3>
        <PanelClose onClick={closeFault} label="Cancel" />
      </div>
      <FaultAction fault={fault} target={target} onApplied={closeFault} />
    </div>
  );
}

/**
 * Holds the run still from the moment a fault is picked up (dragged, or chosen with Enter or from a box's menu) until
 * it is applied or given up, so it lands at the simulated time the picture showed when it was dropped, however long its
 * parameters take; the run then plays on if it was playing. Returns the unsubscribe function.
 */
export function pauseWhilePlacing(): () => void {
  let resume = false;
  return placementStore.subscribe((s, prev) => {
    const active = s.placing !== null || s.pending !== null;
    const was = prev.placing !== null || prev.pending !== null;
    if (active && !was) {
      resume = appStore.getState().status === 'running';
      if (resume) pause();
    } else if (!active && was) {
      const { status } = appStore.getState();
      if (resume && status !== 'running' && status !== 'done') play();
      resume = false;
    }
  });
}

/** Escape cancels a pick in progress before it reaches the other shortcuts. */
export function cancelPlacing(): boolean {
  if (!placementStore.getState().placing) return false;
  stopPlacing();
  return true;
}
