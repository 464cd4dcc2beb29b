import { select, zoom, zoomIdentity, type D3ZoomEvent, type ZoomTransform } from 'd3';

/** d3 zoom/pan for an <svg> whose drawing lives in one <g>; framework-free. */
export interface ZoomController {
  /** Tells the controller the drawing's size; it re-fits unless the user has zoomed or panned. */
  update(bounds: { width: number; height: number }): void;
  /** Fits the whole drawing into view and resumes automatic fitting. */
  fit(): void;
  /** Zooms to one box of the drawing (a search hit) at a readable scale. */
  focus(box: { x: number; y: number; w: number; h: number }): void;
  destroy(): void;
}

const PAD = 24;
/** Room kept free at the bottom for the legend overlay. */
const PAD_BOTTOM = 52;
const MAX_FIT_SCALE = 1.5;

export function createZoom(svg: SVGSVGElement, content: SVGGElement, onTransform: (t: ZoomTransform) => void = () => {}): ZoomController {
  let bounds = { width: 0, height: 0 };
  let userMoved = false;
  const svgSel = select(svg);
  const behaviour = zoom<SVGSVGElement, unknown>()
    .scaleExtent([0.15, 5])
    .on('zoom', (event: D3ZoomEvent<SVGSVGElement, unknown>) => {
      // Only gestures carry a sourceEvent; programmatic fits do not.
      if (event.sourceEvent) userMoved = true;
      content.setAttribute('transform', event.transform.toString());
      onTransform(event.transform);
    });
  svgSel.call(behaviour).on('dblclick.zoom', null).on('dblclick.fit', () => fit());

  function fit(): void {
    userMoved = false;
    const { width: W, height: H } = svg.getBoundingClientRect();
    if (W === 0 || H === 0 || bounds.width === 0 || bounds.height === 0) return;
    // Narrow layouts hide the legend, so the picture may use the bottom too.
    const bottom = window.innerWidth < 1100 ? PAD : PAD_BOTTOM;
    const k = Math.max(0.15, Math.min((W - 2 * PAD) / bounds.width, (H - PAD - bottom) / bounds.height, MAX_FIT_SCALE));
    const t = zoomIdentity.translate((W - bounds.width * k) / 2, PAD + (H - PAD - bottom - bounds.height * k) / 2).scale(k);
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
    focus(box) {
      userMoved = true;
      const { width: W, height: H } = svg.getBoundingClientRect();
      if (W === 0 || H === 0) return;
      const k = Math.max(0.6, Math.min(1.5, (W * 0.5) / Math.max(box.w, 1), (H * 0.5) / Math.max(box.h, 1)));
      const t = zoomIdentity.translate(W / 2 - (box.x + box.w / 2) * k, H / 2 - (box.y + box.h / 2) * k).scale(k);
      svgSel.transition().duration(350).call(behaviour.transform, t);
    },
    destroy() {
      resize.disconnect();
      svgSel.on('.zoom', null).on('dblclick.fit', null);
    },
  };
}
