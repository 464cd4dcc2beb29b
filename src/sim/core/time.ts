/** Simulated time: integer microseconds since the start of a run. Branded so ms and µs never mix. */
export type SimTime = number & { readonly __simTime: unique symbol };
/** A span of simulated time in integer microseconds. */
export type Duration = number & { readonly __duration: unique symbol };

export const US_PER_MS = 1_000;
export const US_PER_S = 1_000_000;

export const simTime = (us: number): SimTime => Math.round(us) as SimTime;
export const micros = (us: number): Duration => Math.round(us) as Duration;
export const millis = (ms: number): Duration => Math.round(ms * US_PER_MS) as Duration;
export const seconds = (s: number): Duration => Math.round(s * US_PER_S) as Duration;
export const atSeconds = (s: number): SimTime => Math.round(s * US_PER_S) as SimTime;
export const toSeconds = (t: SimTime | Duration): number => t / US_PER_S;
export const toMillis = (t: SimTime | Duration): number => t / US_PER_MS;
export const later = (t: SimTime, d: Duration): SimTime => (t + d) as SimTime;
