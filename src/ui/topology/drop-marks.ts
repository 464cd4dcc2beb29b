import { DROP_REASON_IDS } from '../../sim';

/** How each drop reason is marked: one of the eight theme colours and one of four shapes, so no two reasons look alike. */

export type Glyph = 'circle' | 'square' | 'triangle' | 'diamond';
const GLYPHS: Glyph[] = ['circle', 'square', 'triangle', 'diamond'];
const COLOURS = 8;

export function reasonStyle(reason: string): { colour: string; slot: number; glyph: Glyph } {
  const r = Math.max(0, DROP_REASON_IDS.indexOf(reason as never));
  const slot = r % COLOURS;
  return { colour: `var(--c-d${slot})`, slot, glyph: GLYPHS[Math.floor(r / COLOURS + r) % GLYPHS.length]! };
}

/** An SVG path for a glyph of radius r centred on (0, 0). */
export function glyphPath(glyph: Glyph, r: number): string {
  switch (glyph) {
    case 'circle':
      return `M${-r},0a${r},${r} 0 1 0 ${2 * r},0a${r},${r} 0 1 0 ${-2 * r},0z`;
    case 'square':
      return `M${-r * 0.85},${-r * 0.85}h${1.7 * r}v${1.7 * r}h${-1.7 * r}z`;
    case 'triangle':
      return `M0,${-r}L${r * 0.95},${r * 0.75}H${-r * 0.95}z`;
    case 'diamond':
      return `M0,${-r}L${r},0L0,${r}L${-r},0z`;
  }
}
