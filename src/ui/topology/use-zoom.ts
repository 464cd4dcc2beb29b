import { useEffect, useRef, type RefObject } from 'react';
import type { ZoomTransform } from 'd3';
import { createZoom, type ZoomController } from './zoom';

/** Owns one zoom controller for the lifetime of the component. */
export function useZoom(
  svg: RefObject<SVGSVGElement | null>,
  content: RefObject<SVGGElement | null>,
  onTransform: (t: ZoomTransform) => void,
): RefObject<ZoomController | null> {
  const controller = useRef<ZoomController | null>(null);
  useEffect(() => {
    if (!svg.current || !content.current) return;
    const zoom = createZoom(svg.current, content.current, onTransform);
    controller.current = zoom;
    return () => {
      zoom.destroy();
      controller.current = null;
    };
  }, [svg, content, onTransform]);
  return controller;
}
