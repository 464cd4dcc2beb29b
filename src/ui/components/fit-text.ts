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
