const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** `mm:ss.s`, truncated so the display never runs ahead of the simulation. */
export function formatClock(us: number): string {
  const tenths = Math.floor(Math.max(0, us) / 100_000);
  const minutes = Math.floor(tenths / 600);
  const rest = tenths - minutes * 600;
  return `${pad(minutes, 2)}:${pad(Math.floor(rest / 10), 2)}.${rest % 10}`;
}

/** `mm:ss.mmm` for log entries, where events a millisecond apart must stay distinguishable. */
export function formatEventTime(us: number): string {
  const ms = Math.floor(Math.max(0, us) / 1_000);
  const minutes = Math.floor(ms / 60_000);
  const rest = ms - minutes * 60_000;
  return `${pad(minutes, 2)}:${pad(Math.floor(rest / 1000), 2)}.${pad(rest % 1000, 3)}`;
}

const integer = new Intl.NumberFormat('en-US');
export const formatCount = (n: number): string => integer.format(n);

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
/** 75k, 1.2M: for gauges where space is short. */
export const formatCompact = (n: number): string => compact.format(n);

const fixed = [0, 1, 2].map((digits) => new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));

/** A rate with sensible precision and thousands separators: 39,872, 12.3, 0.25. */
export function formatRate(perSecond: number): string {
  if (!Number.isFinite(perSecond)) return '—';
  const abs = Math.abs(perSecond);
  const digits = abs >= 100 || perSecond === Math.round(perSecond) ? 0 : abs >= 10 ? 1 : 2;
  return fixed[digits]!.format(perSecond);
}

/** A rate per second as the charts write it (39,872/s), or compact where space is short (40K/s). */
export function formatPerSecond(perSecond: number, short = false): string {
  return `${short && Math.abs(perSecond) >= 1000 ? formatCompact(perSecond) : formatRate(perSecond)}/s`;
}

/** "1 fault", "3 faults": a count with its noun in the right number. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** A scenario title's short form: the name before its colon ("It wasn't DNS" of "It wasn't DNS: a rolling update, …"). */
export function shortTitle(title: string): string {
  const colon = title.indexOf(': ');
  return colon > 0 ? title.slice(0, colon) : title;
}
