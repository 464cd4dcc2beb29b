import type { SimTime } from '../core/time';

// ENA link-local allowance: 1024 packets per second per interface to Amazon DNS, IMDS and Time Sync
// (docs/sources/cloud-hypervisor.md#link-local-allowance).
export const LINKLOCAL_PPS = 1024;

/**
 * A packets-per-second allowance as a token bucket: `ratePps` tokens a second, at most `burst` saved up. A packet that
 * finds no token is over the allowance (the ENA counters' `*_allowance_exceeded`); the caller drops it.
 */
export class PpsAllowance {
  private tokens: number;
  private last = 0;
  exceeded = 0;

  constructor(
    readonly ratePps: number,
    readonly burst: number = ratePps,
  ) {
    if (!(ratePps > 0) || !(burst >= 1)) throw new RangeError(`allowance needs ratePps > 0 and burst >= 1, got ${ratePps}, ${burst}`);
    this.tokens = burst;
  }

  admit(now: SimTime): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.ratePps) / 1_000_000);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    this.exceeded++;
    return false;
  }

  /** A flow of `packets` (fractions allowed) spread over the time since the last call: how many of them fit. */
  admitFlow(now: SimTime, packets: number): number {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.ratePps) / 1_000_000);
    this.last = now;
    const admitted = Math.min(packets, this.tokens);
    this.tokens -= admitted;
    return admitted;
  }
}
