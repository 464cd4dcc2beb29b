import { useEffect, useRef, type RefObject } from 'react';
import { createZoom, type ZoomController } from './zoom';

/** Owns one zoom controller for the lifetime of the component. */
export function useZoom(
  svg: RefObject<SVGSVGElement | null>,
  content: RefObject<SVGGElement | null>,
): RefObject<ZoomController | null> {
  const controller = useRef<ZoomController | null>(null);
  useEffect(() => {
    if (!svg.current || !content.current) return;
    const zoom = createZoom(svg.current, content.current);
    controller.current = zoom;
    return () => {
      zoom.destroy();
      controller.current = null;
    };
  }, [svg, content]);
  return controller;
}
