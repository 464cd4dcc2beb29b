import { select, zoom, zoomIdentity, type D3ZoomEvent, type ZoomTransform } from 'd3';

/** d3 zoom/pan for an <svg> whose drawing lives in one <g>, listening on the element around it; framework-free. */
export interface ZoomController {
  /** Tells the controller the drawing's size; it re-fits unless the user has zoomed or panned. */
  update(bounds: { width: number; height: number }): void;
  /** Fits the whole drawing into view and resumes automatic fitting. */
  fit(): void;
  /** Fits again if fitting is automatic: the overlays around the picture changed. */
  refit(): void;
  /** Zooms to one box of the drawing (a search hit) at a readable scale, or to show it whole at `scale` or more. */
  focus(box: { x: number; y: number; w: number; h: number }, scale?: number): void;
  destroy(): void;
}

/**
 * `settled` is false while a wheel or drag gesture is still moving the picture: the SVG is then only moved and scaled as
 * a picture, and true once the gesture rests and the drawing itself takes the transform.
 */
export type OnTransform = (t: ZoomTransform, settled: boolean) => void;

/** Text the picture would draw smaller than this on screen (CSS px) it hides instead: nobody can read it. */
export const MIN_TEXT_PX = 11;

const PAD = 24;
/** Between an overlay's edge and the picture under it. */
const OVERLAY_GAP = 8;
const MAX_FIT_SCALE = 1.5;
/** Small enough that a hundred machines still fit a short panel; nothing is legible there, but the shape of the cluster is. */
const MIN_SCALE = 0.05;
/** A long drag still re-renders the drawing this often, so parts that were off-screen fill in. */
const SETTLE_DURING_DRAG_MS = 400;

/** How far overlays (buttons along the top, the legend along the bottom) reach into the picture, in CSS px. */
export interface Insets {
  top: number;
  bottom: number;
}

/** The part of a `width` × `height` picture that Fit fills: inside a margin, clear of the overlays. */
export function freeArea(width: number, height: number, insets: Insets): { left: number; top: number; width: number; height: number } {
  const top = Math.max(PAD, insets.top + OVERLAY_GAP);
  return { left: PAD, top, width: width - 2 * PAD, height: height - top - Math.max(PAD, insets.bottom + OVERLAY_GAP) };
}

/**
 * `surface` is an untransformed element around the SVG that takes the gestures: d3 reads pointer positions through the
 * listening element's screen matrix, which would include the preview's CSS transform if the SVG itself listened.
 * Fitting and focusing keep the drawing out from under the overlays `insets` measures.
 */
export function createZoom(
  surface: HTMLElement,
  svg: SVGSVGElement,
  content: SVGGElement,
  onTransform: OnTransform = () => {},
  insets: () => Insets = () => ({ top: 0, bottom: 0 }),
): ZoomController {
  let bounds = { width: 0, height: 0 };
  // The picture's size as the resize observer last reported it: reading it from the DOM in a handler would force a style and layout pass.
  let view: { width: number; height: number } | null = null;
  let userMoved = false;
  // The transform the drawing was last rendered with, and the one the gesture has reached.
  let drawn = zoomIdentity;
  let latest = zoomIdentity;
  let lastSettle = 0;
  const surfaceSel = select(surface);

  // The grabbing hand only while a drag really moves the picture: the cursor is inherited, so changing it restyles
  // every element of the drawing, which a plain click should not pay for.
  function grabbing(on: boolean): void {
    svg.style.cursor = on ? 'grabbing' : '';
  }

  function settle(t: ZoomTransform): void {
    drawn = t;
    lastSettle = performance.now();
    content.setAttribute('transform', t.toString());
    svg.style.transform = '';
    onTransform(t, true);
  }

  // Moving the <g> makes Chromium lay out every SVG element again (text is re-shaped at each scale), which costs tens of
  // milliseconds on a big cluster; a CSS transform of the <svg> is composited, so gestures only pay that once they rest.
  function preview(t: ZoomTransform): void {
    const s = t.k / drawn.k;
    svg.style.transform = `translate(${t.x - s * drawn.x}px, ${t.y - s * drawn.y}px) scale(${s})`;
    onTransform(t, false);
  }

  const behaviour = zoom<HTMLElement, unknown>()
    .scaleExtent([MIN_SCALE, 5])
    // Gestures on the picture only: overlays in the surface (popovers, buttons) keep their own clicks, drags and wheels.
    .filter((event: MouseEvent) => (!event.ctrlKey || event.type === 'wheel') && !event.button && event.target instanceof Node && svg.contains(event.target))
    .extent(() => {
      const { width, height } = view ?? svg.getBoundingClientRect();
      return [
        [0, 0],
        [width, height],
      ];
    })
    .on('zoom', (event: D3ZoomEvent<HTMLElement, unknown>) => {
      latest = event.transform;
      // Only gestures carry a sourceEvent; programmatic fits and transitions render at once.
      if (!event.sourceEvent) {
        settle(event.transform);
        return;
      }
      userMoved = true;
      const dragging = event.sourceEvent.type === 'mousemove';
      if (dragging && svg.style.cursor !== 'grabbing') grabbing(true);
      // A pan keeps the scale, so the drawing moves without re-shaping its text: cheap enough to render at once.
      if (event.transform.k === drawn.k || (dragging && performance.now() - lastSettle > SETTLE_DURING_DRAG_MS)) settle(event.transform);
      else preview(event.transform);
    })
    .on('end', () => {
      if (svg.style.cursor) grabbing(false);
      if (latest !== drawn) settle(latest);
    });
  surfaceSel
    .call(behaviour)
    .on('dblclick.zoom', null)
    .on('dblclick.fit', (event: MouseEvent) => {
      if (event.target instanceof Node && svg.contains(event.target)) fit();
    });

  function free(): ReturnType<typeof freeArea> {
    const { width, height } = view ?? svg.getBoundingClientRect();
    return freeArea(width, height, insets());
  }

  function fit(): void {
    userMoved = false;
    const { left, top, width, height } = free();
    if (width <= 0 || height <= 0 || bounds.width === 0 || bounds.height === 0) return;
    const k = Math.max(MIN_SCALE, Math.min(width / bounds.width, height / bounds.height, MAX_FIT_SCALE));
    const t = zoomIdentity.translate(left + (width - bounds.width * k) / 2, top + (height - bounds.height * k) / 2).scale(k);
    surfaceSel.call(behaviour.transform, t);
  }

  const resize = new ResizeObserver((entries) => {
    const box = entries[entries.length - 1]!.contentRect;
    view = { width: box.width, height: box.height };
    if (!userMoved) fit();
  });
  resize.observe(svg);

  return {
    update(next) {
      if (next.width === bounds.width && next.height === bounds.height) return;
      bounds = next;
      if (!userMoved) fit();
    },
    fit,
    refit() {
      if (!userMoved) fit();
    },
    focus(box, scale) {
      userMoved = true;
      const { left, top, width: W, height: H } = free();
      if (W <= 0 || H <= 0) return;
      const whole = Math.min(W / Math.max(box.w, 1), H / Math.max(box.h, 1));
      const k = scale !== undefined ? Math.max(scale, whole) : Math.max(0.6, Math.min(1.5, (W * 0.5) / Math.max(box.w, 1), (H * 0.5) / Math.max(box.h, 1)));
      // A box bigger than the view at that scale is shown from its top left, where its heading is.
      const x = box.w * k > W ? left - box.x * k : left + W / 2 - (box.x + box.w / 2) * k;
      const y = box.h * k > H ? top - box.y * k : top + H / 2 - (box.y + box.h / 2) * k;
      const t = zoomIdentity.translate(x, y).scale(k);
      surfaceSel.transition().duration(350).call(behaviour.transform, t);
    },
    destroy() {
      resize.disconnect();
      surfaceSel.on('.zoom', null).on('dblclick.fit', null);
    },
  };
}
