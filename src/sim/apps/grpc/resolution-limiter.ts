/**
 * The gRPC DNS resolver's re-resolution rate limit (docs/sources/grpc.md#dns-re-resolution): ResolveNow requests, the
 * 30 s window, error retries.
 */
import type { RngStream } from '../../core/rng';
import { seconds, type Duration, type SimTime } from '../../core/time';
import { backoffDelay, GRPC_BACKOFF, type BackoffConfig } from './backoff';

/** No lookup to schedule. */
export const NEVER = -1;

export interface ResolutionSettings {
  /** Shortest time from one successful lookup to the next. */
  minInterval: Duration;
  /** A request inside the window: 'defer' runs it at the window's end, 'drop' ignores it. */
  withinWindow: 'defer' | 'drop';
  /** Failed lookups are retried after backoffDelay(errorBackoff, errorBackoffFrom + failures − 1). */
  errorBackoff: BackoffConfig;
  errorBackoffFrom: number;
}

export const GRPC_GO_RESOLUTION: ResolutionSettings = {
  // MinResolutionInterval 30 s (grpc-go, docs/sources/grpc.md#dns-re-resolution); C-core's default is also 30 000 ms.
  minInterval: seconds(30),
  // A ResolveNow inside the window waits for its end (grpc-go watcher, C-core likewise;
  // docs/sources/grpc.md#dns-re-resolution).
  withinWindow: 'defer',
  // Lookup errors back off with the default exponential backoff (docs/sources/grpc.md#dns-re-resolution).
  errorBackoff: GRPC_BACKOFF,
  // The watcher's backoffIndex starts at 1, so the first retry waits 1.6 s ± 20 % (grpc-go dns_resolver.go watcher).
  errorBackoffFrom: 1,
};

export const GRPC_JAVA_RESOLUTION: ResolutionSettings = {
  // DEFAULT_NETWORK_CACHE_TTL_SECONDS 30 when networkaddress.cache.ttl is unset (grpc-java,
  // docs/sources/grpc.md#dns-re-resolution).
  minInterval: seconds(30),
  // refresh() returns at once while the cache is fresh: the request is dropped
  // (docs/sources/grpc.md#dns-re-resolution).
  withinWindow: 'drop',
  // ExponentialBackoffPolicy: 1 s, ×1.6, ±20 %, 2 min (docs/sources/grpc.md#connection-backoff). Model choice: its
  // first wait is taken unjittered.
  errorBackoff: GRPC_BACKOFF,
  errorBackoffFrom: 0,
};

/**
 * When a channel's resolver may look its name up, driven by the caller's clock. The caller owns one timer: it calls
 * `request` on each ResolveNow (and once at channel start), `due` when its timer fires (start the lookup only if it
 * says so), and `resolved` when the lookup ends. `request` and `resolved` return the time to arm the timer for, or
 * NEVER; a timer that fires for a superseded time is answered false by `due`.
 *
 * 'defer' (grpc-go, C-core): after a success the resolver waits for a request and then until the window ends; one
 * request arriving while a lookup runs or waits is remembered (grpc-go's one-slot channel) and causes another lookup a
 * window after that one. 'drop' (grpc-java): requests while a lookup runs or the cache is fresh are ignored; a later
 * request resolves at once, and one during an error backoff cancels the backoff and resolves at once.
 */
export class ResolutionLimiter {
  /** Requests ignored under 'drop'. */
  dropped = 0;
  private resolvedOnce = false;
  private lastSuccess = 0;
  private dueAt = NEVER;
  private inFlight = false;
  private pending = false;
  private failures = 0;

  constructor(
    readonly settings: ResolutionSettings,
    private readonly rng: RngStream,
  ) {}

  /** Whether a lookup is running. */
  get resolving(): boolean {
    return this.inFlight;
  }

  /** A ResolveNow at `now`: when the next lookup should start, or NEVER if no new timer is needed. */
  request(now: SimTime): number {
    if (this.settings.withinWindow === 'defer') {
      if (this.inFlight || this.dueAt !== NEVER) {
        this.pending = true;
        return NEVER;
      }
      this.dueAt = this.resolvedOnce ? Math.max(now, this.lastSuccess + this.settings.minInterval) : now;
      return this.dueAt;
    }
    if (this.inFlight || (this.resolvedOnce && now - this.lastSuccess < this.settings.minInterval)) {
      this.dropped++;
      return NEVER;
    }
    this.dueAt = now;
    return now;
  }

  /** The caller's timer fired: true if a lookup should start now. */
  due(now: SimTime): boolean {
    if (this.inFlight || this.dueAt === NEVER || now < this.dueAt) return false;
    this.dueAt = NEVER;
    this.inFlight = true;
    return true;
  }

  /** The lookup ended at `now`: when the next one should start, or NEVER. */
  resolved(now: SimTime, ok: boolean): number {
    this.inFlight = false;
    if (!ok) {
      this.failures++;
      const retries = this.settings.errorBackoffFrom + this.failures - 1;
      this.dueAt = now + backoffDelay(this.settings.errorBackoff, retries, this.rng.next());
      return this.dueAt;
    }
    this.resolvedOnce = true;
    this.lastSuccess = now;
    this.failures = 0;
    if (!this.pending) return NEVER;
    this.pending = false;
    this.dueAt = now + this.settings.minInterval;
    return this.dueAt;
  }
}
