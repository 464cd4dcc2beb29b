import { isSpeed, type Speed } from '../worker/protocol';

/** The speed ladder the −/+ buttons and keys walk through. */
export const SPEEDS: readonly Speed[] = [0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 'max'];
export const DEFAULT_SPEED: Speed = 1;

const rank = (s: Speed): number => (s === 'max' ? Number.POSITIVE_INFINITY : s);

/** The next rung faster (+1) or slower (−1); an off-ladder speed (from the URL) moves to its neighbouring rung. */
export function nextSpeed(current: Speed, direction: 1 | -1): Speed {
  const r = rank(current);
  if (direction > 0) return SPEEDS.find((s) => rank(s) > r) ?? current;
  return [...SPEEDS].reverse().find((s) => rank(s) < r) ?? current;
}

export function formatSpeed(speed: Speed): string {
  return speed === 'max' ? 'max' : `${speed}×`;
}

/** Parses `max` or a number in range; undefined when invalid. */
export function parseSpeed(text: string): Speed | undefined {
  if (text === 'max') return 'max';
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(text)) return undefined;
  const n = Number(text);
  return isSpeed(n) ? n : undefined;
}
