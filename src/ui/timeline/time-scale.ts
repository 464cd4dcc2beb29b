/** The one time range every timeline chart shares, in simulated seconds, and the arithmetic on it. Pure. */

export type Domain = readonly [number, number];

/** Longer runs scroll: unzoomed, the timeline shows the last five minutes. */
export const WINDOW_S = 300;
/** A brush narrower than this is taken as a click, not a zoom. */
export const MIN_ZOOM_S = 1;

/** The whole run when it fits the window, else the newest `WINDOW_S` seconds up to `endS`. */
export function fullDomain(durationS: number, endS: number): Domain {
  if (durationS > 0 && durationS <= WINDOW_S) return [0, durationS];
  return [Math.max(0, endS - WINDOW_S), Math.max(WINDOW_S, endS)];
}

/** The range on screen: the zoom when there is one, else the full domain. */
export function viewDomain(durationS: number, endS: number, zoom: Domain | null): Domain {
  return zoom ?? fullDomain(durationS, endS);
}

/** A brushed pixel span [px0, px1] of a plot `widthPx` wide showing `domain`, as a zoom; null when too narrow. */
export function zoomFromPixels(px0: number, px1: number, widthPx: number, domain: Domain, durationS: number): Domain | null {
  if (widthPx <= 0) return null;
  const [d0, d1] = domain;
  const at = (px: number): number => d0 + ((d1 - d0) * Math.min(Math.max(px, 0), widthPx)) / widthPx;
  const lo = Math.max(0, Math.min(at(px0), at(px1)));
  const hi = Math.min(durationS > 0 ? durationS : Infinity, Math.max(at(px0), at(px1)));
  return hi - lo < MIN_ZOOM_S ? null : [lo, hi];
}

/** The time under pixel `px` of a plot `widthPx` wide, clamped to the domain. */
export function timeAtPixel(px: number, widthPx: number, domain: Domain): number {
  const [d0, d1] = domain;
  if (widthPx <= 0) return d0;
  return d0 + ((d1 - d0) * Math.min(Math.max(px, 0), widthPx)) / widthPx;
}

/** A point in time as the worker's microseconds, on the clock's 0.1 s grid and inside the run. */
export function toSeekUs(seconds: number, durationS: number): number {
  const clamped = Math.min(Math.max(0, seconds), durationS);
  return Math.round(clamped * 10) * 100_000;
}

/**
 * The crosshair one sample step to the left (−1) or right (+1), snapped to the sample grid and kept inside the domain
 * and the recorded samples; from nothing it starts at the newest sample in view.
 */
export function nudgeCursor(cursor: number | null, direction: 1 | -1, stepS: number, domain: Domain, endS: number): number {
  const lo = Math.max(domain[0], stepS);
  const hi = Math.max(lo, Math.min(domain[1], endS));
  if (cursor === null) return hi;
  // The next grid point strictly beyond the cursor in that direction (the cursor may sit between samples).
  const k = direction > 0 ? Math.floor(cursor / stepS + 1e-9) + 1 : Math.ceil(cursor / stepS - 1e-9) - 1;
  const next = k * stepS;
  return Math.min(hi, Math.max(lo, next));
}

/** The sample shown at time `t`: sample k covers (k·step, (k+1)·step] and is plotted at its end. */
export function sampleIndexAt(t: number, stepS: number): number {
  return Math.max(0, Math.round(t / stepS) - 1);
}

/** `m:ss` for axis ticks and markers. */
export function clockLabel(s: number): string {
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}
