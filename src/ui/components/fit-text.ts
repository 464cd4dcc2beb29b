import { useLayoutEffect, useState, type RefObject } from 'react';

let measuring: CanvasRenderingContext2D | null | undefined;

/** Width of `text` in `el`'s font, in CSS pixels. */
function textWidth(el: Element, text: string): number {
  measuring ??= document.createElement('canvas').getContext('2d');
  if (!measuring) return 0;
  measuring.font = getComputedStyle(el).font;
  return measuring.measureText(text).width;
}

/**
 * Writes `text` into an SVG text element, cut with an ellipsis where it is longer than `room` (in its own units).
 * Measuring forces a layout of the whole drawing, so it is skipped while the text and its room are unchanged.
 */
export function fitSvgText(el: SVGTextElement, text: string, room: number): void {
  const key = `${Math.round(room)}|${text}`;
  if (el.getAttribute('data-fitted') === key) return;
  el.setAttribute('data-fitted', key);
  el.textContent = text;
  for (let n = text.length; n > 1 && el.getComputedTextLength() > room;) {
    n = Math.floor(n * Math.min(0.95, room / el.getComputedTextLength()));
    el.textContent = `${text.slice(0, n)}…`;
  }
}

/**
 * Whether `text` fits on one line of `ref`'s element in its font at its present width, less `reservePx` the element
 * keeps for itself (a select's padding and arrow); followed as the element is resized.
 */
export function useTextFits(ref: RefObject<HTMLElement | null>, text: string, reservePx = 0): boolean {
  const [fits, setFits] = useState(true);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const check = (): void => setFits(textWidth(el, text) <= el.clientWidth - reservePx);
    check();
    const resize = new ResizeObserver(check);
    resize.observe(el);
    return () => resize.disconnect();
  }, [ref, text, reservePx]);
  return fits;
}

/**
 * Sets the font size of `content` (whose text sizes are in em) to the largest whole pixel size from `minPx` to `maxPx`
 * at which it fits in `box` without scrolling; at `minPx` whatever is still taller scrolls. Runs again when `box` is
 * resized and when `text` (what the content says) changes.
 */
export function useFitFont(box: RefObject<HTMLElement | null>, content: RefObject<HTMLElement | null>, minPx: number, maxPx: number, text: string): void {
  useLayoutEffect(() => {
    const outer = box.current;
    const inner = content.current;
    if (!outer || !inner) return;
    const fitsAt = (px: number): boolean => {
      inner.style.fontSize = `${px}px`;
      return outer.scrollHeight <= outer.clientHeight + 1;
    };
    const fit = (): void => {
      if (outer.clientHeight === 0) return;
      let [low, high] = [minPx, maxPx];
      if (fitsAt(high)) return;
      while (high - low > 1) {
        const mid = Math.floor((low + high) / 2);
        if (fitsAt(mid)) low = mid;
        else high = mid;
      }
      fitsAt(low);
    };
    fit();
    let width = outer.clientWidth;
    let height = outer.clientHeight;
    const resize = new ResizeObserver(() => {
      // Only the box's own size counts: the font change itself resizes the content, not the box.
      if (outer.clientWidth === width && outer.clientHeight === height) return;
      width = outer.clientWidth;
      height = outer.clientHeight;
      fit();
    });
    resize.observe(outer);
    return () => resize.disconnect();
  }, [box, content, minPx, maxPx, text]);
}
