import { useCallback, useEffect, useRef, useState, type DragEvent, type FormEvent, type KeyboardEvent, type MouseEvent } from 'react';
import type { ZoomTransform } from 'd3';
import { appStore, useApp } from '../../state/app-store';
import { dnsTargetOf, faultsForBox, openFault, placementStore, stopPlacing, targetFor, type BoxInfo } from '../../state/fault-placement';
import { FaultPopover } from '../faults/fault-palette';
import { askWhy } from '../services/sim-client';
import { FaultMenu, type MenuState } from './fault-menu';
import { frameStore, useFrame, type FrameState } from '../../state/frame-store';
import { createPacer } from '../services/pacer';
import type { TopologyView } from '../../sim';
import { clearSelection, selectEntity } from '../../state/selection';
import { FitIcon } from '../components/icons';
import { button, openPanel } from '../components/styles';
import { DropGlyph } from './drop-marks-legend';
import { createTopologyDrawing, type TopologyDrawing } from './topology-view';
import { GROUPS_BELOW, headingTop, searchTopology, sitePoints, type TopologyLayout } from './topology-layout';
import { createGaugeLayer, FAR_BELOW, type GaugeLayer } from './gauge-layer';
import { createTrafficLayer, type DropRate, type TrafficLayer } from './traffic-layer';
import { useZoom } from './use-zoom';
import { freeArea, type Insets } from './zoom';
import './topology.css';
import { counted, formatClock, formatPerSecond } from '../components/format';

/** The wire sites whose traffic matters for a selected entity: itself, or for a pod its node and instance. */
function focusSites(topology: TopologyView, entity: string): number[] {
  const pod = entity.startsWith('pod/') ? topology.pods.find((p) => `pod/${p.name}` === entity) : undefined;
  const node = topology.nodes.find((n) => `node/${n.name}` === entity || n.instance?.entity === entity || n.name === pod?.node);
  const names = node ? [`node/${node.name}`, node.instance?.entity] : [entity];
  return names.flatMap((n) => (n && topology.sites.includes(n) ? [topology.sites.indexOf(n)] : []));
}

/** Pods, connections, pool members and routes in the SVG: a relayout of thousands of pods is the heaviest redraw there is. */
const STRUCTURE_PACE = { minMs: 250, costFactor: 4 };

/** Gauges and traffic rates: rates are taken between the snapshots shown, so a slower pace averages, it does not skip. */
const LIVE_PACE = { minMs: 100, costFactor: 4 };

// Selectors run on every frame; the count changes only with the topology, so it is counted once per topology.
const livePodCounts = new WeakMap<TopologyView, number>();
function livePods(topology: TopologyView | null): number {
  if (!topology) return 0;
  let n = livePodCounts.get(topology);
  if (n === undefined) {
    n = topology.pods.filter((p) => p.phase !== 'gone').length;
    livePodCounts.set(topology, n);
  }
  return n;
}

/** What a box under the pointer (or focused) offers as a fault target; null outside every box. */
function boxAt(target: EventTarget | null): (BoxInfo & { element: Element }) | null {
  if (!(target instanceof Element)) return null;
  const element = target.closest('[data-entity], [data-group]');
  if (!element) return null;
  const entity = element.getAttribute('data-entity');
  const deployment = element.closest('[data-deployment]')?.getAttribute('data-deployment') ?? null;
  return {
    element,
    entity,
    deployment,
    node: element.closest('[data-node]')?.getAttribute('data-node') ?? null,
    dns: dnsTargetOf(frameStore.getState().topology?.dnsTargets ?? {}, entity, deployment),
  };
}

/** Marks every box as taking the fault being placed or not, so the picture lights up where it can land. */
function markDropTargets(root: SVGGElement | null): void {
  if (!root) return;
  const placing = placementStore.getState().placing;
  // Nothing is marked while no fault is being placed, so a redraw then has no box to visit.
  if (!placing && !root.hasAttribute('data-placing')) return;
  if (placing) root.setAttribute('data-placing', 'true');
  else root.removeAttribute('data-placing');
  for (const element of root.querySelectorAll('[data-entity], [data-group]')) {
    const box = boxAt(element);
    if (!placing || !box) element.removeAttribute('data-drop');
    else element.setAttribute('data-drop', targetFor(placing, box) ? 'valid' : 'invalid');
  }
}

/** The machine group whose frame or heading an event happened on (not one of its machines), if any. */
const machineGroupAt = (target: EventTarget): string | null => (target instanceof Element ? (target.closest<SVGElement>('.topo-mgroup')?.getAttribute('data-role') ?? null) : null);

/** How far in a group zooms when opened: its machines' names just readable. */
const OPEN_GROUP_SCALE = GROUPS_BELOW * 1.15;

/** The deployment chip an event happened in, if any. */
const groupAt = (target: EventTarget): string | null => (target instanceof Element ? (target.closest<SVGElement>('[data-group]')?.getAttribute('data-group') ?? null) : null);

function Swatch({ kind, label }: { kind: string; label: string }) {
  return (
    <span className="inline-flex items-center gap-1.5">
      <svg
        width="16"
        height="12"
        aria-hidden="true"
        className="topo-pod"
        data-phase={kind === 'gone-ip' ? 'gone' : kind === 'not-ready' ? 'running' : kind}
        data-ready={kind === 'not-ready' ? 'false' : 'true'}
        data-ip-attached={kind === 'gone-ip' ? 'true' : 'false'}
        style={{ ['--pod' as string]: 'var(--c-d0)' }}
      >
        <rect className="topo-pod-body" x="1" y="1" width="14" height="10" rx="2" />
        <rect className="topo-pod-hatch" x="1" y="1" width="14" height="10" rx="2" />
      </svg>
      {label}
    </span>
  );
}

/** Says so while the picture shows a scrub's preview rather than the run. */
function PreviewBadge() {
  const t = useFrame((s) => s.preview?.t ?? null);
  if (t === null) return null;
  return (
    <span data-testid="topology-preview" className="rounded bg-amber-100 px-1.5 py-0.5 text-xs font-semibold whitespace-nowrap text-amber-900 dark:bg-amber-900/60 dark:text-amber-100">
      Preview of {formatClock(t)}
    </span>
  );
}

/** The cluster picture: d3 draws structure in SVG, a canvas under it traffic and canvases over it gauges and drops, React the frame around them. */
export function TopologyPanel() {
  const svgRef = useRef<SVGSVGElement>(null);
  const contentRef = useRef<SVGGElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const markCanvasRef = useRef<HTMLCanvasElement>(null);
  const countsRef = useRef<HTMLSpanElement>(null);
  const drawingRef = useRef<TopologyDrawing | null>(null);
  const trafficRef = useRef<TrafficLayer | null>(null);
  const gaugeCanvasRef = useRef<HTMLCanvasElement>(null);
  const gaugesRef = useRef<GaugeLayer | null>(null);
  const layoutRef = useRef<TopologyLayout | null>(null);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [deployments, setDeployments] = useState<TopologyLayout['deployments']>([]);
  const [drops, setDrops] = useState<DropRate[]>([]);
  const [search, setSearch] = useState('');
  const [searchError, setSearchError] = useState('');
  const farRef = useRef(false);
  // Whether traffic and drops are drawn between machine groups (far out on a big cluster) or between machines.
  const groupedRef = useRef(false);
  const placeSites = useCallback(() => {
    const layout = layoutRef.current;
    const topology = frameStore.getState().topology;
    if (layout && topology) trafficRef.current?.setSites(sitePoints(topology, layout, groupedRef.current));
  }, []);
  const openMachineGroup = (role: string): void => {
    const group = layoutRef.current?.machineGroups.find((g) => g.role === role);
    if (!group) return;
    // From its heading down: the rest of its band is empty room above the heading at this zoom.
    const top = headingTop(group, OPEN_GROUP_SCALE);
    zoom.current?.focus({ x: group.x, y: top, w: group.w, h: group.y + group.h - top }, OPEN_GROUP_SCALE);
  };

  const onTransform = useCallback(
    (t: ZoomTransform, settled: boolean) => {
      if (settled) {
        farRef.current = t.k < FAR_BELOW;
        drawingRef.current?.setZoomScale(t.k);
        const grouped = (layoutRef.current?.machineGroups.length ?? 0) > 0 && t.k < GROUPS_BELOW;
        if (grouped !== groupedRef.current) {
          groupedRef.current = grouped;
          placeSites();
        }
      }
      trafficRef.current?.setTransform(t);
      gaugesRef.current?.setTransform(t, farRef.current);
    },
    [placeSites],
  );
  const panelRef = useRef<HTMLDivElement>(null);
  const panelRect = useRef<DOMRect | null>(null);
  const togglesRef = useRef<HTMLDivElement>(null);
  const legendRef = useRef<HTMLDivElement>(null);
  // What the overlays took at most since the panel last changed size: a legend that loses a line while drops fade
  // leaves its room, so the picture does not jump back and forth.
  const keptInsets = useRef<Insets>({ top: 0, bottom: 0 });
  const insets = useCallback((): Insets => {
    const toggles = togglesRef.current;
    const legend = legendRef.current;
    const height = panelRef.current?.clientHeight ?? 0;
    const kept = keptInsets.current;
    kept.top = Math.max(kept.top, toggles && toggles.offsetHeight > 0 ? toggles.offsetTop + toggles.offsetHeight : 0);
    kept.bottom = Math.max(kept.bottom, legend && legend.offsetHeight > 0 ? height - legend.offsetTop : 0);
    return { ...kept };
  }, []);
  const zoom = useZoom(panelRef, svgRef, contentRef, onTransform, insets);
  const empty = useFrame((s) => s.topology === null);
  const nodes = useFrame((s) => s.topology?.nodes.length ?? 0);
  const pods = useFrame((s) => livePods(s.topology));

  const adopt = useCallback(
    (layout: TopologyLayout | undefined) => {
      if (!layout) return;
      layoutRef.current = layout;
      setDeployments(layout.deployments);
      markDropTargets(contentRef.current);
      zoom.current?.update({ width: layout.width, height: layout.height });
      gaugesRef.current?.setLayout(layout);
      placeSites();
    },
    [zoom, placeSites],
  );

  useEffect(() => {
    if (!contentRef.current || !canvasRef.current || !markCanvasRef.current || !gaugeCanvasRef.current) return;
    const drawing = createTopologyDrawing(contentRef.current);
    drawingRef.current = drawing;
    const gauges = createGaugeLayer(gaugeCanvasRef.current);
    gaugesRef.current = gauges;
    // Drop marks change every frame; the legend follows them at most a few times a second, always with the latest.
    let legendTimer: ReturnType<typeof setTimeout> | undefined;
    const traffic = createTrafficLayer(canvasRef.current, markCanvasRef.current, () => {
      legendTimer ??= setTimeout(() => {
        legendTimer = undefined;
        setDrops([...traffic.activeDrops()]);
      }, 300);
    });
    trafficRef.current = traffic;
    const showCounts = (c: { connecting: number; established: number; closing: number }): void => {
      if (countsRef.current) countsRef.current.textContent = `via Services: ${c.established} established · ${c.connecting} connecting · ${c.closing} closing`;
    };
    const svg = svgRef.current!;
    let size = { width: 0, height: 0 };
    let free = { width: 0, height: 0 };
    let applied: Insets = { top: 0, bottom: 0 };
    // The picture's size, or the overlays' (the legend's width changes with its rates), changed.
    const resize = new ResizeObserver(() => {
      // Observers run after layout, so positions read here are free (a click handler would force a style pass); one
      // queued before an unmount may still arrive after it.
      if (!panelRef.current) return;
      const { width, height } = svg.getBoundingClientRect();
      if (width === 0 || height === 0) return;
      const resized = width !== size.width || height !== size.height;
      if (resized) keptInsets.current = { top: 0, bottom: 0 };
      const now = insets();
      if (!resized && now.top === applied.top && now.bottom === applied.bottom) return;
      panelRect.current = panelRef.current.getBoundingClientRect();
      size = { width, height };
      applied = now;
      const area = freeArea(width, height, now);
      // Relaying out thousands of pods on every pixel of a drag would stutter; a twentieth of a change is worth it.
      if (area.width <= 0 || area.height <= 0) return;
      if (Math.abs(area.width - free.width) >= free.width * 0.05 || Math.abs(area.height - free.height) >= free.height * 0.05) {
        free = area;
        adopt(drawing.setViewport(area.width, area.height));
      }
      zoom.current?.refit();
    });
    resize.observe(svg);
    for (const overlay of [togglesRef.current, legendRef.current]) if (overlay) resize.observe(overlay);
    // What the SVG shows as last drawn: it follows the frames paced, as the canvases' gauges and traffic do, more often.
    let drawn: Pick<FrameState, 'topology' | 'connections' | 'live'> = { topology: null, connections: new Int32Array(0), live: null };
    const drawStructure = (): void => {
      const s = frameStore.getState();
      if (s.topology && s.topology !== drawn.topology) adopt(drawing.setTopology(s.topology));
      if (s.connections !== drawn.connections) showCounts(drawing.setConnections(s.connections));
      if (s.live && s.live !== drawn.live) drawing.setLive(s.live);
      drawn = s;
    };
    const structure = createPacer(drawStructure, STRUCTURE_PACE);
    drawStructure();
    const showLive = (): void => {
      const s = frameStore.getState();
      if (!s.live) return;
      gauges.setLive(s.live);
      traffic.setLive(s.live, s.t);
    };
    const live = createPacer(showLive, LIVE_PACE);
    showLive();
    drawing.setSelected(appStore.getState().selected);
    const unsubscribe = frameStore.subscribe((s, prev) => {
      // A new run's first picture is drawn at once.
      if (s.topology !== prev.topology && (drawn.topology === null || s.run !== prev.run)) structure.now();
      else if (s.topology !== prev.topology || s.connections !== prev.connections || s.live !== prev.live) structure.request();
      if (s.live !== prev.live) live.request();
    });
    const focusOn = (entity: string | null): void => {
      const topology = frameStore.getState().topology;
      traffic.setFocus(topology && entity ? focusSites(topology, entity) : []);
    };
    focusOn(appStore.getState().selected);
    const unsubscribePlacement = placementStore.subscribe((s, prev) => {
      if (s.placing !== prev.placing) markDropTargets(contentRef.current);
    });
    const unsubscribeSelection = appStore.subscribe((s, prev) => {
      if (s.reveal && s.reveal !== prev.reveal) revealRef.current(s.reveal.entity);
      if (s.selected === prev.selected) return;
      drawing.setSelected(s.selected);
      focusOn(s.selected);
    });
    return () => {
      resize.disconnect();
      structure.cancel();
      live.cancel();
      unsubscribePlacement();
      unsubscribe();
      unsubscribeSelection();
      clearTimeout(legendTimer);
      traffic.destroy();
      gauges.destroy();
      gaugesRef.current = null;
      drawing.destroy();
      drawingRef.current = null;
      trafficRef.current = null;
    };
  }, [adopt, insets, zoom]);

  useEffect(() => {
    adopt(drawingRef.current?.setExpanded(expanded));
  }, [expanded, adopt]);

  const toggle = useCallback((deployment: string) => {
    setExpanded((prev) => {
      const next = new Set(prev);
      if (next.has(deployment)) next.delete(deployment);
      else next.add(deployment);
      return next;
    });
  }, []);

  const catalog = useApp((s) => s.catalog);
  const [menu, setMenu] = useState<MenuState | null>(null);
  // Popovers and menus are placed in viewport pixels (fixed), so the panel's clipping never cuts them off.
  const pointIn = (clientX: number, clientY: number): { x: number; y: number } => ({ x: clientX, y: clientY });
  const pointOf = (element: Element): { x: number; y: number } => {
    const b = element.getBoundingClientRect();
    return pointIn(b.left + Math.min(b.width, 24), b.top + Math.min(b.height, 24));
  };

  /** A fault waiting for a target lands on the box clicked or entered; true when it did. */
  const place = (target: EventTarget, at: { x: number; y: number }): boolean => {
    const placing = placementStore.getState().placing;
    if (!placing) return false;
    const box = boxAt(target);
    const chosen = box ? targetFor(placing, box) : null;
    if (chosen) openFault(placing, { target: chosen, ...at });
    else stopPlacing();
    return true;
  };

  const onDragOver = (event: DragEvent<HTMLDivElement>): void => {
    const placing = placementStore.getState().placing;
    const box = boxAt(event.target);
    if (!placing || !box || !targetFor(placing, box)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  };

  const onDrop = (event: DragEvent<HTMLDivElement>): void => {
    event.preventDefault();
    place(event.target, pointIn(event.clientX, event.clientY));
  };

  const openMenu = (target: EventTarget, at: { x: number; y: number }): boolean => {
    const box = boxAt(target);
    if (!box) return false;
    setMenu({ ...at, title: box.entity ?? `deployment/${box.deployment}`, items: faultsForBox(catalog, box) });
    return true;
  };

  /** A click on a box selects it, on a chip expands its deployment; anywhere else clears the selection. A drag's click never arrives (d3-zoom eats it). */
  const onPictureClick = (event: MouseEvent<SVGSVGElement>): void => {
    if (place(event.target, pointIn(event.clientX, event.clientY))) return;
    const r = panelRect.current ?? panelRef.current!.getBoundingClientRect();
    const mark = trafficRef.current?.markAt(event.clientX - r.left, event.clientY - r.top);
    const site = mark ? frameStore.getState().topology?.sites[mark.site] : undefined;
    if (mark && site) {
      void askWhy(mark.reason, site);
      return;
    }
    const group = groupAt(event.target);
    if (group !== null) {
      toggle(group);
      return;
    }
    const machines = machineGroupAt(event.target);
    if (machines !== null) {
      openMachineGroup(machines);
      return;
    }
    const entity = boxAt(event.target)?.entity ?? null;
    if (entity === null) clearSelection();
    else selectEntity(entity);
  };

  /** Enter or Space on a focused box selects it; handled here so Space does not also reach the play/pause shortcut. */
  const onPictureKey = (event: KeyboardEvent<SVGSVGElement>): void => {
    if ((event.key === 'ContextMenu' || (event.key === 'F10' && event.shiftKey)) && event.target instanceof Element) {
      if (openMenu(event.target, pointOf(event.target))) event.preventDefault();
      return;
    }
    if (event.key !== 'Enter' && event.key !== ' ') return;
    if (event.target instanceof Element && boxAt(event.target) && place(event.target, pointOf(event.target))) {
      event.preventDefault();
      return;
    }
    const machines = machineGroupAt(event.target);
    if (machines !== null && event.target instanceof Element && event.target.matches('.topo-mgroup')) {
      event.preventDefault();
      openMachineGroup(machines);
      return;
    }
    const group = groupAt(event.target);
    const entity = boxAt(event.target)?.entity ?? null;
    if (group === null && entity === null) return;
    event.preventDefault();
    if (group !== null) toggle(group);
    else if (entity !== null) selectEntity(entity);
  };

  /** Brings what a term names into view and selects it; false when nothing matches. */
  const reveal = (term: string): boolean => {
    const topology = frameStore.getState().topology;
    const layout = layoutRef.current;
    if (!topology || !layout) return false;
    const hit = searchTopology(topology, layout, term);
    if (!hit) return false;
    const needsExpanding = hit.deployment !== undefined && layout.deployments.some((d) => d.name === hit.deployment && d.aggregated);
    if (needsExpanding) {
      const next = new Set(expanded).add(hit.deployment!);
      setExpanded(next);
      const relaid = drawingRef.current?.setExpanded(next);
      const box = relaid?.podRect.get(topology.pods.find((p) => `pod/${p.name}` === hit.entity)!.index);
      if (box) zoom.current?.focus(box);
    } else if (hit.box) zoom.current?.focus(hit.box);
    selectEntity(hit.entity);
    drawingRef.current?.pulse(hit.entity);
    return true;
  };
  const revealRef = useRef(reveal);
  revealRef.current = reveal;

  const onSearch = (event: FormEvent): void => {
    event.preventDefault();
    const found = reveal(search);
    setSearchError(found || !search.trim() ? '' : `Nothing named or addressed “${search.trim()}”`);
  };

  const big = deployments.filter((d) => d.groupable);
  const dropsByReason = [...drops.reduce((m, d) => m.set(d.reason, (m.get(d.reason) ?? 0) + d.rate), new Map<string, number>())].sort((a, b) => b[1] - a[1]);

  return (
    <section className={`${openPanel} relative`} aria-label="Topology">
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1 border-b border-slate-200 px-3 py-2 dark:border-slate-800">
        <div className="flex min-w-0 items-baseline gap-3">
          <h2 className="text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">Topology</h2>
          <span className="text-sm whitespace-nowrap text-slate-600 dark:text-slate-300">
            {counted(nodes, 'node')} · {counted(pods, 'pod')}
          </span>
          <PreviewBadge />
          <span
            ref={countsRef}
            title="Connections a Service translated to a backend pod, drawn as lines. Clients that dial pod addresses they found by DNS (the gRPC apps) are not counted here; their packets show as traffic between machines."
            className="hidden truncate text-sm text-slate-500 tabular-nums 2xl:inline dark:text-slate-400"
          />
        </div>
        <div className="flex items-center gap-2">
          <form role="search" onSubmit={onSearch} className="flex items-center gap-1">
            <label htmlFor="topo-search" className="sr-only">
              Find a pod, node, router or address
            </label>
            <input
              id="topo-search"
              data-testid="topology-search"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              placeholder="Find name or IP…"
              aria-invalid={searchError ? true : undefined}
              aria-describedby={searchError ? 'topo-search-error' : undefined}
              className="h-7 w-40 rounded-md border border-slate-300 bg-white px-2 text-xs text-slate-800 placeholder:text-slate-400 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
            />
          </form>
          <button type="button" className={`${button} h-7 px-2 text-xs`} onClick={() => zoom.current?.fit()} title="Fit to view (double-click the picture)">
            <FitIcon />
            Fit
          </button>
        </div>
      </div>
      {searchError && (
        <p id="topo-search-error" role="status" className="border-b border-slate-200 px-3 py-1 text-xs text-amber-700 dark:border-slate-800 dark:text-amber-300">
          {searchError}
        </p>
      )}
      <div ref={panelRef} className="relative min-h-0 flex-1 overflow-hidden" onDragOver={onDragOver} onDrop={onDrop}>
        <canvas ref={canvasRef} data-testid="traffic" aria-hidden="true" className="pointer-events-none absolute inset-0 size-full" />
        <svg
          ref={svgRef}
          data-testid="topology"
          className="topo-picture absolute inset-0 size-full cursor-grab touch-none select-none"
          role="group"
          aria-label="Cluster topology: routers, load balancers, services, machines and pods, with live traffic. Select anything to inspect it."
          onClick={onPictureClick}
          onKeyDown={onPictureKey}
          onContextMenu={(event) => {
            if (openMenu(event.target, pointIn(event.clientX, event.clientY))) event.preventDefault();
          }}
        >
          <g ref={contentRef} />
        </svg>
        <canvas ref={gaugeCanvasRef} data-testid="gauges" aria-hidden="true" className="pointer-events-none absolute inset-0 size-full" />
        <canvas ref={markCanvasRef} data-testid="drop-marks" aria-hidden="true" className="pointer-events-none absolute inset-0 size-full" />
        <FaultPopover />
        {menu && <FaultMenu menu={menu} onClose={() => setMenu(null)} />}
        {empty && <div className="pointer-events-none absolute inset-0 grid place-items-center text-sm text-slate-500 dark:text-slate-400">Loading scenario…</div>}
        <div ref={togglesRef} hidden={big.length === 0} className="absolute top-2 right-3 flex max-w-[calc(100%-1.5rem)] flex-wrap justify-end gap-1" aria-label="Big deployments">
          {big.map((d) => (
            <button
              key={d.name}
              type="button"
              data-testid="deployment-toggle"
              aria-pressed={!d.aggregated}
              onClick={() => toggle(d.name)}
              className="rounded-md bg-white/90 px-2 py-0.5 font-mono text-xs text-slate-700 shadow-sm ring-1 ring-slate-300 hover:ring-indigo-400 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:bg-slate-900/90 dark:text-slate-200 dark:ring-slate-700"
              title={d.aggregated ? `Show each of the ${d.pods} pods of ${d.name}` : `Fold ${d.name} into one chip per node`}
            >
              {d.name} × {d.pods.toLocaleString('en-US')} · {d.aggregated ? 'expand' : 'fold'}
            </button>
          ))}
        </div>
        <div
          ref={legendRef}
          data-testid="picture-legend"
          className="pointer-events-none absolute bottom-2 left-3 hidden max-w-[calc(100%-1.5rem)] min-[1100px]:flex flex-wrap gap-x-4 gap-y-1 rounded-md bg-white/90 px-2.5 py-1.5 text-xs text-slate-600 dark:bg-slate-900/90 dark:text-slate-300"
        >
          <Swatch kind="running" label="ready" />
          <Swatch kind="not-ready" label="not ready" />
          <Swatch kind="terminating" label="terminating" />
          <Swatch kind="gone-ip" label="gone, IP attached" />
          <span className="inline-flex items-center gap-1.5">
            <svg width="22" height="8" aria-hidden="true">
              <line x1="1" y1="4" x2="21" y2="4" stroke="var(--c-conn-established)" strokeWidth="2.5" opacity="0.6" />
            </svg>
            traffic
          </span>
          <span className="inline-flex items-center gap-1.5">
            <svg width="22" height="8" aria-hidden="true">
              <line x1="1" y1="4" x2="21" y2="4" stroke="var(--c-gauge-full)" strokeWidth="2.5" strokeDasharray="4 3" />
            </svg>
            SYNs only
          </span>
          {dropsByReason.slice(0, 6).map(([reason, rate]) => (
            <span key={reason} className="inline-flex items-center gap-1" data-testid="drop-legend">
              <DropGlyph reason={reason} />
              <code>{reason}</code> {formatPerSecond(rate)}
            </span>
          ))}
        </div>
      </div>
    </section>
  );
}
