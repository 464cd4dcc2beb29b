import type { ZoomTransform } from 'd3';
import type { LiveView } from '../../sim';
import { formatPerSecond } from '../components/format';
import { glyphPath, reasonStyle } from './drop-marks';
import type { SitePoint } from './topology-layout';

/**
 * Live traffic on canvases around the topology: flows between machines and elements as curves whose width follows
 * their packet rate, sampled packets moving along them, SYN-only flows (connection attempts nobody answers) drawn as
 * such, and drops marked where they happen by reason. Rates are over the worker's last metrics step, so a paused run
 * shows its last rates without moving.
 */

export interface FlowRate {
  from: number;
  to: number;
  /** Packets per simulated second. */
  rate: number;
  /** Share of those packets that are SYNs without ACK. */
  synShare: number;
}

export interface DropRate {
  site: number;
  reason: string;
  /** Drops per simulated second over the last metrics step. */
  rate: number;
  /** The site whose anchor the mark is drawn at, when several sites share one (a group's); `site` otherwise. */
  at?: number;
}

/**
 * Per-pair and per-site rates over the worker's last metrics step, the same counts the charts' latest point is made
 * of: each figure the picture shows agrees with the charts, and is zero in the step after drops stop.
 */
export function rates(live: LiveView): { flows: FlowRate[]; drops: DropRate[] } {
  const flows: FlowRate[] = [];
  const drops: DropRate[] = [];
  const seconds = live.step.seconds;
  if (!(seconds > 0)) return { flows, drops };
  const t = live.traffic;
  for (let i = 0; i + 3 < t.length; i += 4) flows.push({ from: t[i]!, to: t[i + 1]!, rate: t[i + 2]! / seconds, synShare: t[i + 3]! / t[i + 2]! });
  const n = live.reasons.length;
  for (let i = 0; i < live.drops.length; i++) {
    if (live.drops[i]! > 0) drops.push({ site: Math.floor(i / n), reason: live.reasons[i % n]!, rate: live.drops[i]! / seconds });
  }
  return { flows, drops };
}

/**
 * Flows and drops of sites drawn at one anchor (a group's machines) added together, under the first such site; a
 * drop keeps the site that dropped most, which is what a click on its mark asks "why" about. Flows inside one anchor
 * are left out: they would be drawn from a point to itself.
 */
export function mergeAtAnchors(r: { flows: FlowRate[]; drops: DropRate[] }, anchor: readonly number[]): { flows: FlowRate[]; drops: DropRate[] } {
  const flows = new Map<string, { from: number; to: number; rate: number; syn: number }>();
  for (const f of r.flows) {
    const from = anchor[f.from] ?? f.from;
    const to = anchor[f.to] ?? f.to;
    if (from === to) continue;
    const key = `${from}>${to}`;
    const m = flows.get(key) ?? { from, to, rate: 0, syn: 0 };
    m.rate += f.rate;
    m.syn += f.rate * f.synShare;
    flows.set(key, m);
  }
  const drops = new Map<string, DropRate & { top: number; at: number }>();
  for (const d of r.drops) {
    const at = anchor[d.site] ?? d.site;
    const key = `${at}:${d.reason}`;
    const m = drops.get(key);
    if (!m) drops.set(key, { ...d, top: d.rate, at });
    else {
      m.rate += d.rate;
      if (d.rate > m.top) {
        m.top = d.rate;
        m.site = d.site;
      }
    }
  }
  return {
    flows: [...flows.values()].map((m) => ({ from: m.from, to: m.to, rate: m.rate, synShare: m.rate > 0 ? m.syn / m.rate : 0 })),
    drops: [...drops.values()].map(({ site, reason, rate, at }) => ({ site, reason, rate, at })),
  };
}

/** For each site, the first site drawn at the same point: sites of one group's machines share one anchor. */
export function anchorsOf(points: readonly (SitePoint | null)[]): number[] {
  const first = new Map<SitePoint, number>();
  return points.map((p, i) => {
    if (!p) return i;
    if (!first.has(p)) first.set(p, i);
    return first.get(p)!;
  });
}

/** The `n` busiest flows, busiest first, ties in their given order: a stable sort's first `n`, without sorting thousands. */
export function busiest(flows: readonly FlowRate[], n: number): FlowRate[] {
  const top: FlowRate[] = [];
  for (const f of flows) {
    if (top.length === n && (n === 0 || f.rate <= top[n - 1]!.rate)) continue;
    let i = top.length;
    while (i > 0 && top[i - 1]!.rate < f.rate) i--;
    top.splice(i, 0, f);
    if (top.length > n) top.pop();
  }
  return top;
}

/** Flows drawn at once; the busiest win, so a flood of two thousand pairs stays legible. */
const MAX_FLOWS = 80;
/** Simulated microseconds a drop mark takes to fade once its drops stop; a paused run keeps its marks. */
const MARK_FADE_US = 2_000_000;
/** ...and at least this many wall milliseconds, so a burst at max speed stays long enough to be seen. */
const MARK_FADE_MS = 1_500;
/** Screen pixels per wall second a sampled packet moves. */
const DOT_SPEED = 140;

export interface TrafficLayer {
  setSites(points: readonly (SitePoint | null)[]): void;
  setLive(live: LiveView, t: number): void;
  setTransform(t: ZoomTransform): void;
  /** Sites whose flows are all drawn (the selection's), on top of the busiest flows elsewhere. */
  setFocus(sites: readonly number[]): void;
  /** The drop mark drawn at a point of the canvas (CSS pixels), if any: what a click on it asks "why" about. */
  markAt(x: number, y: number): { site: number; reason: string } | null;
  /** The drop marks on screen with their rates in the last metrics step (0 for the fading ones), for the legend. */
  activeDrops(): DropRate[];
  destroy(): void;
}

interface Mark {
  site: number;
  /** The site whose point the mark is drawn at. */
  at: number;
  reason: string;
  rate: number;
  /** The end of the last metrics step with these drops (simulated µs). */
  seenAt: number;
  seenWall: number;
}

/**
 * `canvas` lies under the picture's boxes, so flows pass behind them and their labels; `markCanvas` lies over them,
 * where the drop marks sit on the boxes' top edges, beside their names rather than on them.
 */
export function createTrafficLayer(canvas: HTMLCanvasElement, markCanvas: HTMLCanvasElement, onChange: () => void): TrafficLayer {
  const ctx = canvas.getContext('2d');
  const markCtx = markCanvas.getContext('2d');
  let sites: readonly (SitePoint | null)[] = [];
  let anchor: number[] = [];
  let lastLive: LiveView | null = null;
  let transform: ZoomTransform | null = null;
  let stepEnd = 0;
  let prevT = 0;
  let allFlows: FlowRate[] = [];
  let flows: FlowRate[] = [];
  let focus = new Set<number>();
  const marks = new Map<string, Mark>();
  /** Where each mark was last drawn, for clicks. */
  let drawnMarks: { x: number; y: number; r: number; site: number; reason: string }[] = [];
  let movingUntil = 0;
  let raf = 0;
  let colours: string[] = [];
  let coloursAt = -Infinity;
  const reduceMotion = typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
  // Sized by the observer: reading the canvas's size while drawing would force a layout of the page every frame.
  let size = { w: 0, h: 0 };
  const resize = new ResizeObserver((entries) => {
    const box = entries.at(-1)?.contentRect;
    if (box) size = { w: box.width, h: box.height };
    draw(performance.now());
  });
  resize.observe(canvas);

  function themeColours(now: number): string[] {
    if (now - coloursAt > 1000) {
      const style = getComputedStyle(canvas);
      colours = ['--c-d0', '--c-d1', '--c-d2', '--c-d3', '--c-d4', '--c-d5', '--c-d6', '--c-d7', '--c-conn-established', '--c-gauge-full', '--c-node-title'].map(
        (v) => style.getPropertyValue(v).trim() || '#888',
      );
      coloursAt = now;
    }
    return colours;
  }

  function schedule(): void {
    if (!raf) raf = requestAnimationFrame(frame);
  }

  function frame(now: number): void {
    raf = 0;
    draw(now);
    const fading = [...marks.values()].some((m) => now - m.seenWall < MARK_FADE_MS);
    if ((now < movingUntil && !reduceMotion) || fading) schedule();
  }

  function pickFlows(): void {
    const focused = allFlows.filter((f) => focus.has(f.from) || focus.has(f.to));
    const rest = allFlows.filter((f) => !focus.has(f.from) && !focus.has(f.to));
    flows = [...busiest(rest, Math.max(0, MAX_FLOWS - focused.length)), ...focused];
  }

  function draw(now: number): void {
    if (!ctx || !markCtx) return;
    const dpr = window.devicePixelRatio || 1;
    const { w, h } = size;
    for (const [c, context] of [
      [canvas, ctx],
      [markCanvas, markCtx],
    ] as const) {
      if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
        c.width = Math.round(w * dpr);
        c.height = Math.round(h * dpr);
      }
      context.setTransform(dpr, 0, 0, dpr, 0, 0);
      context.clearRect(0, 0, w, h);
    }
    if (!transform) return;
    const k = transform.k;
    const [flowColour, synColour, labelColour] = themeColours(now).slice(8) as [string, string, string];
    const palette = themeColours(now);
    const at = (p: [number, number]): [number, number] => [transform!.applyX(p[0]), transform!.applyY(p[1])];

    const moving = now < movingUntil && !reduceMotion;
    for (const f of flows) {
      const a = sites[f.from];
      const b = sites[f.to];
      if (!a || !b || f.from === f.to) continue;
      const [x1, y1] = at(a.flow);
      const [x2, y2] = at(b.flow);
      const dx = x2 - x1;
      const dy = y2 - y1;
      const dist = Math.hypot(dx, dy) || 1;
      // Bend each direction to its own side so the two ways of a conversation do not overlap.
      const bend = Math.min(60, dist * 0.18);
      const cx = (x1 + x2) / 2 - (dy / dist) * bend;
      const cy = (y1 + y2) / 2 + (dx / dist) * bend;
      const syn = f.synShare > 0.5;
      const width = Math.max(0.75, Math.min(9, 0.8 * Math.log10(1 + f.rate)) * Math.max(0.6, Math.min(1.5, k * 1.5)));
      ctx.strokeStyle = syn ? synColour : flowColour;
      ctx.globalAlpha = syn ? 0.75 : 0.45;
      ctx.lineWidth = width;
      ctx.setLineDash(syn ? [4, 4] : []);
      ctx.beginPath();
      ctx.moveTo(x1, y1);
      ctx.quadraticCurveTo(cx, cy, x2, y2);
      ctx.stroke();
      if (!moving) continue;
      // Sampled packets: a few dots per flow, more for busier flows, all moving at one screen speed.
      const dots = Math.max(1, Math.min(6, Math.round(Math.log10(1 + f.rate))));
      const len = dist + bend;
      ctx.globalAlpha = 0.95;
      ctx.fillStyle = syn ? synColour : flowColour;
      for (let d = 0; d < dots; d++) {
        const u = (((now / 1000) * DOT_SPEED) / len + d / dots + ((f.from * 7 + f.to * 13) % 17) / 17) % 1;
        const x = (1 - u) * (1 - u) * x1 + 2 * (1 - u) * u * cx + u * u * x2;
        const y = (1 - u) * (1 - u) * y1 + 2 * (1 - u) * u * cy + u * u * y2;
        ctx.beginPath();
        ctx.arc(x, y, syn ? 2 : 2.5, 0, Math.PI * 2);
        ctx.fill();
      }
    }
    ctx.setLineDash([]);

    drawMarks(markCtx, now, dpr, k, at, palette, labelColour);
  }

  function drawMarks(context: CanvasRenderingContext2D, now: number, dpr: number, k: number, at: (p: [number, number]) => [number, number], palette: string[], labelColour: string): void {
    const perSite = new Map<number, number>();
    drawnMarks = [];
    for (const [key, m] of marks) {
      // Fades only once both clocks have moved on: a paused run keeps its marks, a fast one keeps them on screen a while.
      const age = Math.min((prevT - m.seenAt) / MARK_FADE_US, (now - m.seenWall) / MARK_FADE_MS);
      if (age > 1) {
        marks.delete(key);
        continue;
      }
      const p = sites[m.at];
      if (!p) continue;
      const nth = perSite.get(m.at) ?? 0;
      perSite.set(m.at, nth + 1);
      const [sx, sy] = at(p.mark);
      const style = reasonStyle(m.reason);
      const r = Math.max(4, Math.min(11, (2.5 + 1.8 * Math.log10(1 + m.rate)) * Math.max(0.7, Math.min(1.4, k))));
      // On the box's top edge from its right end, several reasons lining up leftwards, clear of the name on the left.
      const x = sx - r - 2 - nth * 26;
      const y = Math.max(r + 1, sy);
      drawnMarks.push({ x, y, r, site: m.site, reason: m.reason });
      context.globalAlpha = Math.max(0.15, 1 - age);
      context.translate(x, y);
      const path = new Path2D(glyphPath(style.glyph, r));
      context.fillStyle = palette[style.slot]!;
      context.fill(path);
      context.lineWidth = 1.5;
      context.strokeStyle = labelColour;
      context.stroke(path);
      context.setTransform(dpr, 0, 0, dpr, 0, 0);
      if (k >= 1) {
        context.font = '600 11px ui-monospace, monospace';
        context.fillStyle = labelColour;
        context.textAlign = 'center';
        context.fillText(formatPerSecond(m.rate, true), x, y - r - 4);
        context.textAlign = 'start';
      }
    }
    context.globalAlpha = 1;
  }

  /** Takes the last step's flows and drops, at the anchors the sites are drawn at now. */
  function takeStep(live: LiveView, now: number): void {
    const r = mergeAtAnchors(rates(live), anchor);
    allFlows = r.flows;
    pickFlows();
    // A mark whose drops stopped shows 0/s, as the charts do, while it fades.
    for (const m of marks.values()) m.rate = 0;
    for (const d of r.drops) marks.set(`${d.at}:${d.reason}`, { site: d.site, at: d.at ?? d.site, reason: d.reason, rate: d.rate, seenAt: live.step.end, seenWall: now });
  }

  return {
    setSites(points) {
      sites = points;
      const next = anchorsOf(points);
      if (next.some((a, i) => a !== anchor[i]) || next.length !== anchor.length) {
        anchor = next;
        // Marks and flows were added up by the old anchors: take the last step again by the new ones.
        marks.clear();
        if (lastLive) takeStep(lastLive, performance.now());
        onChange();
      }
      schedule();
    },
    setLive(live, t) {
      const now = performance.now();
      lastLive = live;
      if (live.step.end !== stepEnd) {
        // An earlier step is a run started again (a seek back, another scenario): what it showed is gone.
        if (live.step.end < stepEnd) marks.clear();
        stepEnd = live.step.end;
        takeStep(live, now);
        onChange();
      }
      if (t > prevT) movingUntil = now + 600;
      prevT = t;
      schedule();
    },
    setTransform(t) {
      transform = t;
      schedule();
    },
    setFocus(sites) {
      focus = new Set(sites);
      pickFlows();
      schedule();
    },
    markAt(x, y) {
      const hit = drawnMarks.find((m) => Math.hypot(m.x - x, m.y - y) <= m.r + 4);
      return hit ? { site: hit.site, reason: hit.reason } : null;
    },
    activeDrops: () => [...marks.values()].map(({ site, reason, rate }) => ({ site, reason, rate })),
    destroy() {
      cancelAnimationFrame(raf);
      resize.disconnect();
    },
  };
}
