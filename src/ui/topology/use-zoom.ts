import { useEffect, useRef, type RefObject } from 'react';
import { createZoom, type Insets, type OnTransform, type ZoomController } from './zoom';

/** Owns one zoom controller for the lifetime of the component. */
export function useZoom(
  surface: RefObject<HTMLElement | null>,
  svg: RefObject<SVGSVGElement | null>,
  content: RefObject<SVGGElement | null>,
  onTransform: OnTransform,
  insets: () => Insets,
): RefObject<ZoomController | null> {
  const controller = useRef<ZoomController | null>(null);
  useEffect(() => {
    if (!surface.current || !svg.current || !content.current) return;
    const zoom = createZoom(surface.current, svg.current, content.current, onTransform, insets);
    controller.current = zoom;
    return () => {
      zoom.destroy();
      controller.current = null;
    };
  }, [surface, svg, content, onTransform, insets]);
  return controller;
}
