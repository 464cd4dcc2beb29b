/** Pictures of what is on screen, as standalone SVG or PNG files: the topology with its live layers, and the charts. */

import { DRAW_NOW } from '../timeline/timeline-chart';

// Presentation properties that the app sets through CSS classes; a file outside the page needs them on each element.
const STYLE_PROPS = [
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-opacity',
  'stroke-dasharray',
  'stroke-linecap',
  'stroke-linejoin',
  'opacity',
  'font-family',
  'font-size',
  'font-weight',
  'font-style',
  'text-anchor',
  'dominant-baseline',
  'letter-spacing',
  'visibility',
  'display',
] as const;
const SVG_NS = 'http://www.w3.org/2000/svg';
// Twice the CSS pixels, so a picture stays sharp on a slide.
const PNG_SCALE = 2;

/** A copy of an SVG element that draws the same on its own: each element's computed style written onto it. */
function standalone(svg: SVGSVGElement, width: number, height: number): SVGSVGElement {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  const from = [svg, ...svg.querySelectorAll('*')];
  const to = [copy, ...copy.querySelectorAll<SVGElement>('*')];
  from.forEach((element, i) => {
    const style = getComputedStyle(element);
    const target = to[i]!;
    target.removeAttribute('class');
    // Through the style object, not the attribute: a Content-Security-Policy without 'unsafe-inline' allows only this.
    target.removeAttribute('style');
    for (const p of STYLE_PROPS) target.style.setProperty(p, style.getPropertyValue(p));
  });
  copy.setAttribute('xmlns', SVG_NS);
  copy.setAttribute('width', String(width));
  copy.setAttribute('height', String(height));
  return copy;
}

/** The colour behind an element: the first ancestor with an opaque background, white when none has one. */
function backgroundOf(element: Element): string {
  for (let e: Element | null = element; e; e = e.parentElement) {
    const color = getComputedStyle(e).backgroundColor;
    if (color && color !== 'transparent' && !/rgba\(.*,\s*0\)$/.test(color)) return color;
  }
  return 'white';
}

function backdrop(width: number, height: number, color: string): SVGRectElement {
  const rect = document.createElementNS(SVG_NS, 'rect');
  rect.setAttribute('width', String(width));
  rect.setAttribute('height', String(height));
  rect.setAttribute('fill', color);
  return rect;
}

export interface Picture {
  /** Standalone, on its backdrop. */
  svg: string;
  width: number;
  height: number;
  /**
   * PNG only, as SVG has no place for them: the backdrop's colour, canvas layers under the SVG (traffic), the SVG
   * without its backdrop, and canvas layers over it (gauges, drops), in order.
   */
  layers: { background: string; under: HTMLCanvasElement[]; svg: string; over: HTMLCanvasElement[] } | null;
}

/** The topology as drawn now, with its zoom, and its canvas layers for the PNG. */
export function topologyPicture(): Picture | null {
  const svg = document.querySelector<SVGSVGElement>('svg[data-testid="topology"]');
  if (!svg) return null;
  const { width, height } = svg.getBoundingClientRect();
  const copy = standalone(svg, width, height);
  const background = backgroundOf(svg);
  const canvases = (ids: string) => [...(svg.parentElement?.querySelectorAll<HTMLCanvasElement>(ids) ?? [])];
  const bare = new XMLSerializer().serializeToString(copy);
  const layers = { background, under: canvases('canvas[data-testid="traffic"]'), svg: bare, over: canvases('canvas[data-testid="gauges"], canvas[data-testid="drop-marks"]') };
  copy.insertBefore(backdrop(width, height, background), copy.firstChild);
  return { svg: new XMLSerializer().serializeToString(copy), width, height, layers };
}

// Model choice: an average glyph width for 12 px sans-serif, to space legend entries without measuring text.
const CHAR_PX = 6.5;

/** A chart row's legend as SVG: each series' colour swatch and label, in a line after the title, starting at `x`. */
function legendOf(row: HTMLElement, baseline: number, x: number): SVGElement[] {
  const out: SVGElement[] = [];
  for (const item of row.querySelectorAll<HTMLElement>('[data-testid="legend-item"]')) {
    const label = item.querySelector('.label')?.textContent ?? '';
    const swatch = document.createElementNS(SVG_NS, 'rect');
    swatch.setAttribute('x', String(x));
    swatch.setAttribute('y', String(baseline - 5));
    swatch.setAttribute('width', '14');
    swatch.setAttribute('height', '2');
    swatch.setAttribute('fill', getComputedStyle(item.querySelector('.swatch') ?? item).backgroundColor);
    const text = document.createElementNS(SVG_NS, 'text');
    text.setAttribute('x', String(x + 18));
    text.setAttribute('y', String(baseline));
    text.style.fontFamily = getComputedStyle(row).fontFamily;
    text.style.fontSize = '12px';
    text.style.fill = getComputedStyle(item.querySelector('.label') ?? item).color;
    text.textContent = label;
    out.push(swatch, text);
    x += 18 + CHAR_PX * label.length + 14;
  }
  return out;
}

/** Every chart of the timeline, stacked under its title and legend, drawn even where scrolled out of view. */
export function chartsPicture(): Picture | null {
  const rows = [...document.querySelectorAll<HTMLElement>('[data-testid="timeline-chart"]')];
  if (rows.length === 0) return null;
  const TITLE = 20;
  const width = Math.max(...rows.map((r) => r.getBoundingClientRect().width));
  const root = document.createElementNS(SVG_NS, 'svg') as SVGSVGElement;
  let y = 0;
  const placed: SVGElement[] = [];
  for (const row of rows) {
    const chart = row.querySelector<SVGSVGElement>('svg[data-testid="chart"]');
    if (!chart) continue;
    chart.dispatchEvent(new Event(DRAW_NOW));
    const box = chart.getBoundingClientRect();
    const title = document.createElementNS(SVG_NS, 'text');
    title.setAttribute('x', '12');
    title.setAttribute('y', String(y + 14));
    title.style.fontFamily = getComputedStyle(row).fontFamily;
    title.style.fontSize = '12px';
    title.style.fontWeight = '600';
    title.style.fill = getComputedStyle(row.querySelector('h3') ?? row).color;
    title.textContent = row.dataset['title'] ?? '';
    placed.push(title, ...legendOf(row, y + 14, 24 + 7.5 * title.textContent.length));
    const copy = standalone(chart, box.width, box.height);
    copy.removeAttribute('xmlns');
    copy.setAttribute('y', String(y + TITLE));
    placed.push(copy);
    y += TITLE + box.height + 8;
  }
  root.setAttribute('xmlns', SVG_NS);
  root.setAttribute('width', String(width));
  root.setAttribute('height', String(y));
  root.append(backdrop(width, y, backgroundOf(rows[0]!)), ...placed);
  return { svg: new XMLSerializer().serializeToString(root), width, height: y, layers: null };
}

/** The picture as PNG: the SVG drawn at twice its size, between its canvas layers. */
export async function pictureToPng(picture: Picture): Promise<Uint8Array> {
  const layers = picture.layers;
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(layers?.svg ?? picture.svg)}`;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(picture.width * PNG_SCALE);
  canvas.height = Math.round(picture.height * PNG_SCALE);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('this browser gives no 2D canvas to draw the picture on');
  const draw = (source: CanvasImageSource) => context.drawImage(source, 0, 0, canvas.width, canvas.height);
  if (layers) {
    context.fillStyle = layers.background;
    context.fillRect(0, 0, canvas.width, canvas.height);
    layers.under.forEach(draw);
  }
  draw(image);
  layers?.over.forEach(draw);
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
  if (!blob) throw new Error('the browser could not encode the picture as PNG');
  return new Uint8Array(await blob.arrayBuffer());
}
