/** A count as people read it, with thousands separators: 846,042. */
export function formatCount(n: number | string | undefined): string {
  return Number(n).toLocaleString('en-US');
}
