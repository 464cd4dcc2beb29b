import { glyphPath, reasonStyle } from './drop-marks';

/** A drop reason's mark as the picture draws it, for legends and lists. */
export function DropGlyph({ reason }: { reason: string }) {
  const s = reasonStyle(reason);
  return (
    <svg width="14" height="14" viewBox="-7 -7 14 14" aria-hidden="true" className="shrink-0">
      <path d={glyphPath(s.glyph, 5.5)} fill={s.colour} stroke="var(--c-node-title)" strokeWidth="1" />
    </svg>
  );
}
