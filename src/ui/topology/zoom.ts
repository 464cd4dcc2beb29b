import { select, zoom, zoomIdentity, type D3ZoomEvent } from 'd3';

/** d3 zoom/pan for an <svg> whose drawing lives in one <g>; framework-free. */
export interface ZoomController {
  /** Tells the controller the drawing's size; it re-fits unless the user has zoomed or panned. */
  update(bounds: { width: number; height: number }): void;
  /** Fits the whole drawing into view and resumes automatic fitting. */
  fit(): void;
  destroy(): void;
}

const PAD = 24;
/** Room kept free at the bottom for the legend overlay. */
const PAD_BOTTOM = 52;
const MAX_FIT_SCALE = 1.5;

export function createZoom(svg: SVGSVGElement, content: SVGGElement): ZoomController {
  let bounds = { width: 0, height: 0 };
  let userMoved = false;
  const svgSel = select(svg);
  const behaviour = zoom<SVGSVGElement, unknown>()
    .scaleExtent([0.15, 5])
    .on('zoom', (event: D3ZoomEvent<SVGSVGElement, unknown>) => {
      // Only gestures carry a sourceEvent; programmatic fits do not.
      if (event.sourceEvent) userMoved = true;
      content.setAttribute('transform', event.transform.toString());
    });
  svgSel.call(behaviour).on('dblclick.zoom', null).on('dblclick.fit', () => fit());

  function fit(): void {
    userMoved = false;
    const { width: W, height: H } = svg.getBoundingClientRect();
    if (W === 0 || H === 0 || bounds.width === 0 || bounds.height === 0) return;
    const k = Math.max(0.15, Math.min((W - 2 * PAD) / bounds.width, (H - PAD - PAD_BOTTOM) / bounds.height, MAX_FIT_SCALE));
    const t = zoomIdentity.translate((W - bounds.width * k) / 2, PAD + (H - PAD - PAD_BOTTOM - bounds.height * k) / 2).scale(k);
    svgSel.call(behaviour.transform, t);
  }

  const resize = new ResizeObserver(() => {
    if (!userMoved) fit();
  });
  resize.observe(svg);

  return {
    update(next) {
      bounds = next;
      if (!userMoved) fit();
    },
    fit,
    destroy() {
      resize.disconnect();
      svgSel.on('.zoom', null).on('dblclick.fit', null);
    },
  };
}
