import { select, type Selection } from 'd3-selection';

/** What every chart draws into: a plot area with grid, axes, an axis label and a centred note, kept sized to its SVG. */
export interface ChartFrame {
  plot: Selection<SVGGElement, unknown, null, undefined>;
  grid: Selection<SVGGElement, unknown, null, undefined>;
  xAxis: Selection<SVGGElement, unknown, null, undefined>;
  yAxis: Selection<SVGGElement, unknown, null, undefined>;
  yLabel: Selection<SVGTextElement, unknown, null, undefined>;
  /** Shown in the middle of the plot while there is nothing to draw. */
  note: Selection<SVGTextElement, unknown, null, undefined>;
  /** Inner width and height for this draw, with the plot moved inside the margins; null while the SVG has no size. */
  fit(): { w: number; h: number } | null;
  destroy(): void;
}

export const MARGIN = { top: 14, right: 18, bottom: 30, left: 52 };

/** Sets up `svg` for a chart and calls `redraw` whenever it is resized; `destroy` empties the SVG and the legend. */
export function createChartFrame(svg: SVGSVGElement, legend: HTMLElement, yLabelText: string, redraw: () => void): ChartFrame {
  const root = select(svg);
  root.selectAll('*').remove();
  const plot = root.append('g');
  const grid = plot.append('g').attr('class', 'chart-grid');
  const xAxis = plot.append('g').attr('class', 'chart-axis');
  const yAxis = plot.append('g').attr('class', 'chart-axis');
  const yLabel = plot.append('text').attr('class', 'chart-label').attr('text-anchor', 'start').text(yLabelText);
  const note = plot.append('text').attr('class', 'chart-label').attr('text-anchor', 'middle');
  // The size comes from the observer: reading it on every frame would force a layout of the whole page each time.
  let size = { width: 0, height: 0 };
  const resize = new ResizeObserver((entries) => {
    const box = entries.at(-1)?.contentRect;
    if (box) size = { width: box.width, height: box.height };
    redraw();
  });
  resize.observe(svg);
  return {
    plot,
    grid,
    xAxis,
    yAxis,
    yLabel,
    note,
    fit() {
      const { width, height } = size;
      if (width === 0 || height === 0) return null;
      plot.attr('transform', `translate(${MARGIN.left},${MARGIN.top})`);
      yLabel.attr('x', 6).attr('y', 2).attr('dy', '0.7em');
      return { w: Math.max(10, width - MARGIN.left - MARGIN.right), h: Math.max(10, height - MARGIN.top - MARGIN.bottom) };
    },
    destroy() {
      resize.disconnect();
      root.selectAll('*').remove();
      select(legend).selectAll('*').remove();
    },
  };
}

/**
 * The legend's entries, one per datum, each a swatch in its series colour, a label and a value; `value` gives the text
 * shown for a datum's latest figure.
 */
export function drawLegend<T extends { key: string; label: string }>(legend: HTMLElement, data: T[], id: (d: T) => string, swatchClass: string, value: (d: T) => string): void {
  const items = select(legend)
    .selectAll<HTMLSpanElement, T>('span.legend-item')
    .data(data, id)
    .join((enter) => {
      const item = enter.append('span').attr('class', 'legend-item inline-flex items-baseline gap-1.5');
      item.append('span').attr('class', `swatch inline-block self-center ${swatchClass}`);
      item.append('span').attr('class', 'label text-slate-600 dark:text-slate-300');
      item.append('span').attr('class', 'value font-mono text-base font-semibold tabular-nums');
      return item;
    });
  items.select('.swatch').style('background', (d) => `var(--c-${d.key})`);
  items.select('.label').text((d) => d.label);
  items.select('.value').text(value);
}
