import type { ZoomTransform } from 'd3';
import type { LiveView } from '../../sim';
import { formatCompact } from '../components/format';
import { formatCount } from '../../sim';
import { groupUse, TABLE_LABEL } from './machine-groups';
import { GAUGE, gaugeBoxes, GROUP_BAND_PX, GROUP_HEADING, headingTop, STATUS_Y, type GaugeBox, type MachineGroup, type TopologyLayout } from './topology-layout';
import { MIN_TEXT_PX } from './zoom';

/**
 * How full each table and limit is, drawn on a canvas over the picture: the SVG keeps the gauges' labels and tracks,
 * which change only with the structure, and this layer paints the fills and figures of every frame, so a frame of
 * live numbers never restyles or relays out the SVG. Far away it tints each machine by its fullest table instead.
 */

/** Below this scale a node's 15 px title would be drawn under 11 px: machines show their far-view name (34 px) instead. */
export const FAR_BELOW = 11 / 15;
/** The size of a machine's live words (gauge figures, control-plane line) at scale 1, as its SVG labels (topology.css). */
const WORDS_PX = 12;

/** `text` cut with an ellipsis to `width` pixels in the context's font. */
function fit(c: CanvasRenderingContext2D, text: string, width: number): string {
  if (c.measureText(text).width <= width) return text;
  let n = text.length;
  while (n > 1 && c.measureText(`${text.slice(0, n)}…`).width > width) n--;
  return `${text.slice(0, n)}…`;
}

export function gaugeLevel(ratio: number): 'ok' | 'high' | 'full' {
  return ratio >= 0.95 ? 'full' : ratio >= 0.7 ? 'high' : 'ok';
}

function used(live: LiveView, g: GaugeBox): number {
  const i = g.node;
  return g.kind === 'ct' ? (live.conntrackUsed[i] ?? 0) : g.kind === 'dns' ? (live.dnsInFlight[i] ?? 0) : (live.instanceTracked[i] ?? 0);
}

/** A node's control-plane line: its kube-proxy's sync state and, where MetalLB runs a speaker, its BGP sessions. */
export function controlPlaneLine(live: LiveView, node: number, entity: string): { text: string; atRest: boolean } {
  const pending = live.kubeProxyPending[node] ?? 0;
  const syncing = live.kubeProxySyncing[node] === 1;
  const parts = [`kube-proxy ${syncing ? 'syncing' : 'idle'}${pending > 0 ? ` · ${pending} Service${pending === 1 ? '' : 's'} pending` : ''}`];
  let atRest = pending === 0;
  const sessions = live.bgpSessions.filter((s) => s.node === entity);
  if (sessions.length > 0) {
    const up = sessions.filter((s) => s.up);
    const routes = up.reduce((n, s) => n + s.routes, 0);
    parts.push(up.length === sessions.length ? `BGP up · ${routes} route${routes === 1 ? '' : 's'}` : `BGP ${up.length}/${sessions.length} up`);
    if (up.length < sessions.length) atRest = false;
  }
  return { text: parts.join(' · '), atRest };
}

export interface GaugeLayer {
  setLayout(layout: TopologyLayout): void;
  setLive(live: LiveView): void;
  /** `far` follows the SVG's view, which changes only once a zoom gesture rests. */
  setTransform(t: ZoomTransform, far: boolean): void;
  destroy(): void;
}

export function createGaugeLayer(canvas: HTMLCanvasElement): GaugeLayer {
  const ctx = canvas.getContext('2d');
  let gauges: GaugeBox[] = [];
  let machines: TopologyLayout['nodes'] = [];
  let machineGroups: MachineGroup[] = [];
  let live: LiveView | null = null;
  let transform: ZoomTransform | null = null;
  let far = false;
  let size = { w: 0, h: 0 };
  let raf = 0;
  const resize = new ResizeObserver((entries) => {
    const box = entries.at(-1)?.contentRect;
    if (box) size = { w: box.width, h: box.height };
    schedule();
  });
  resize.observe(canvas);

  function schedule(): void {
    if (!raf) raf = requestAnimationFrame(draw);
  }

  function colours(): Record<string, string> {
    const style = getComputedStyle(canvas);
    const v = (name: string): string => style.getPropertyValue(name).trim() || '#888';
    return { ok: v('--c-gauge-ok'), high: v('--c-gauge-high'), full: v('--c-gauge-full'), text: v('--c-node-title'), sub: v('--c-node-sub'), track: v('--c-gauge-track') };
  }
  let palette: Record<string, string> | null = null;
  let paletteAt = -Infinity;

  function draw(now: number): void {
    raf = 0;
    if (!ctx) return;
    const dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(size.w * dpr) || canvas.height !== Math.round(size.h * dpr)) {
      canvas.width = Math.round(size.w * dpr);
      canvas.height = Math.round(size.h * dpr);
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, size.w, size.h);
    if (!transform || !live) return;
    if (!palette || now - paletteAt > 1000) {
      palette = colours();
      paletteAt = now;
    }
    const t = transform;
    const k = t.k;
    drawHeadings(ctx, t, live, palette);
    if (far) {
      // Far away: a wash over each machine in the colour of its fullest table.
      const worst = new Map<number, number>();
      for (const g of gauges) if (g.max > 0) worst.set(g.node, Math.max(worst.get(g.node) ?? 0, used(live, g) / g.max));
      for (const m of machines) {
        const level = gaugeLevel(worst.get(m.node.index) ?? 0);
        if (level === 'ok') continue;
        ctx.globalAlpha = level === 'full' ? 0.45 : 0.3;
        ctx.fillStyle = palette[level]!;
        ctx.fillRect(t.applyX(m.inner.x), t.applyY(m.inner.y), m.inner.w * k, m.inner.h * k);
      }
      ctx.globalAlpha = 1;
      return;
    }
    // Their words at WORDS_PX × the zoom: left out where they would be drawn too small to read.
    const legible = WORDS_PX * k >= MIN_TEXT_PX;
    ctx.textAlign = 'left';
    for (const m of machines) {
      if (!legible) break;
      const line = controlPlaneLine(live, m.node.index, `node/${m.node.name}`);
      // Words carry the state; bold marks anything not at rest (the gauge colours are too light for text on white).
      ctx.font = `${line.atRest ? '' : '700 '}${WORDS_PX * k}px ui-monospace, monospace`;
      ctx.fillStyle = line.atRest ? palette['sub']! : palette['text']!;
      ctx.fillText(line.text, t.applyX(m.inner.x + GAUGE.nodeX), t.applyY(m.inner.y + STATUS_Y));
    }
    ctx.textAlign = 'right';
    for (const g of gauges) {
      const n = used(live, g);
      if (n < 0) continue;
      const ratio = g.max > 0 ? Math.min(1, Math.max(0, n / g.max)) : 0;
      const x = t.applyX(g.x);
      const y = t.applyY(g.y);
      const level = gaugeLevel(ratio);
      ctx.fillStyle = palette[level]!;
      const h = GAUGE.barH * k;
      ctx.beginPath();
      ctx.roundRect(x, y + GAUGE.barY * k, Math.max(ratio > 0 ? h : 0, GAUGE.w * ratio * k), h, h / 2);
      ctx.fill();
      if (!legible) continue;
      ctx.fillStyle = palette['text']!;
      ctx.font = `${level === 'full' ? '700 ' : ''}${WORDS_PX * k}px ui-monospace, monospace`;
      ctx.fillText(g.max > 0 ? `${formatCompact(n)} / ${formatCompact(g.max)}` : formatCompact(n), x + GAUGE.w * k, y + GAUGE.textY * k);
    }
  }

  /** Each machine group's heading under its title: its tables summed over its machines, then its fullest machine. */
  function drawHeadings(c: CanvasRenderingContext2D, t: ZoomTransform, frame: LiveView, colour: Record<string, string>): void {
    const h = GROUP_HEADING;
    for (const group of machineGroups) {
      if (group.headingPx < GROUP_BAND_PX) continue;
      const x0 = t.applyX(group.band.x) + h.x;
      const y0 = t.applyY(headingTop(group, t.k));
      const room = group.band.w * t.k - 2 * h.x;
      const use = groupUse(
        frame,
        group.machines.map((m) => m.node),
      );
      c.textAlign = 'left';
      use.tables.forEach((table, i) => {
        const x = x0 + i * (h.tableW + h.tableGap);
        if (x + h.tableW - x0 > room) return;
        const ratio = table.max > 0 ? Math.min(1, table.used / table.max) : 0;
        const level = gaugeLevel(ratio);
        c.font = `${level === 'full' ? '700 ' : ''}11px ui-monospace, monospace`;
        c.fillStyle = colour['text']!;
        c.fillText(`${TABLE_LABEL[table.kind]} ${formatCompact(table.used)} / ${formatCompact(table.max)}`, x, y0 + h.tablesY);
        c.fillStyle = colour['track']!;
        c.fillRect(x, y0 + h.barY, h.tableW, h.barH);
        c.fillStyle = colour[level]!;
        c.fillRect(x, y0 + h.barY, Math.max(ratio > 0 ? 2 : 0, h.tableW * ratio), h.barH);
      });
      const f = use.fullest;
      const words =
        f && f.used > 0
          ? `fullest: ${f.node.name} ${TABLE_LABEL[f.kind]} ${formatCount(f.used)} / ${formatCount(f.max)}${use.full > 0 ? ` · ${formatCount(use.full)} of ${formatCount(group.machines.length)} at 95 % or more` : ''}`
          : 'every table empty';
      c.font = `${use.full > 0 ? '700 ' : ''}11px ui-monospace, monospace`;
      c.fillStyle = use.full > 0 ? colour['text']! : colour['sub']!;
      c.fillText(fit(c, words, room), x0, y0 + h.fullestY);
    }
  }

  return {
    setLayout(layout) {
      gauges = gaugeBoxes(layout);
      machines = layout.nodes;
      machineGroups = layout.machineGroups;
      schedule();
    },
    setLive(next) {
      live = next;
      schedule();
    },
    setTransform(next, nextFar) {
      transform = next;
      far = nextFar;
      schedule();
    },
    destroy() {
      cancelAnimationFrame(raf);
      resize.disconnect();
    },
  };
}
