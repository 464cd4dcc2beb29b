/**
 * gRPC connection backoff (docs/sources/grpc.md#connection-backoff): how long a subchannel waits after a failed
 * connect, and how long an attempt may take.
 */
import type { RngStream } from '../../core/rng';
import { millis, seconds, type Duration } from '../../core/time';

export interface BackoffConfig {
  /** Wait after the first failure; grpc-go returns it without jitter. */
  baseDelay: Duration;
  /** Growth per further failure; 1 keeps the wait constant. */
  multiplier: number;
  /** Each wait after the first is scaled by 1 + jitter·U(−1, 1). */
  jitter: number;
  maxDelay: Duration;
  /** Shortest time a connection attempt gets: its deadline is max(this, the attempt's backoff). */
  minConnectTimeout: Duration;
}

export const GRPC_BACKOFF: BackoffConfig = {
  // BaseDelay 1 s (grpc-go DefaultConfig, spec INITIAL_BACKOFF; docs/sources/grpc.md#connection-backoff).
  baseDelay: seconds(1),
  // Multiplier 1.6 (spec MULTIPLIER; docs/sources/grpc.md#connection-backoff).
  multiplier: 1.6,
  // Jitter 0.2 (spec JITTER; docs/sources/grpc.md#connection-backoff).
  jitter: 0.2,
  // MaxDelay 120 s (spec MAX_BACKOFF; docs/sources/grpc.md#connection-backoff).
  maxDelay: seconds(120),
  // minConnectTimeout 20 s (grpc-go clientconn.go, spec MIN_CONNECT_TIMEOUT; docs/sources/grpc.md#connection-backoff).
  minConnectTimeout: seconds(20),
};

/**
 * The fixed reconnect interval's range and default, which the deployment knob, the set-reconnect-policy fault and the
 * client's defaults all take from here. The default is the incident's years-old custom setting (docs/sources/incidents.md#it-wasnt-dns).
 */
export const RECONNECT_INTERVAL_MS = { default: 300, min: 1, max: 600_000 } as const;
export const INCIDENT_RECONNECT_INTERVAL = millis(RECONNECT_INTERVAL_MS.default);

/** The backoff in words, from its values: "1 s, ×1.6, up to 120 s" for gRPC's, "every 300 ms" for a fixed one. */
export function describeBackoff(config: BackoffConfig): string {
  const time = (us: number): string => (us >= 1_000_000 ? `${us / 1_000_000} s` : `${us / 1000} ms`);
  if (config.multiplier === 1 && config.jitter === 0) return `every ${time(config.baseDelay)}`;
  return `${time(config.baseDelay)}, ×${config.multiplier}, up to ${time(config.maxDelay)}`;
}

/**
 * A constant reconnect interval, as the incident's custom settings gave: no growth, no jitter. Model choice: the
 * attempt still gets `minConnectTimeout` (grpc-go's 20 s unless the settings changed it too).
 */
export function fixedBackoff(interval: Duration, minConnectTimeout: Duration = GRPC_BACKOFF.minConnectTimeout): BackoffConfig {
  return { baseDelay: interval, multiplier: 1, jitter: 0, maxDelay: interval, minConnectTimeout };
}

/** The un-jittered wait after `retries` + 1 consecutive failures, in µs: base · multiplier^retries, capped at maxDelay. */
export function nominalBackoff(config: BackoffConfig, retries: number): number {
  // Repeated multiplication like grpc-go's loop, rather than Math.pow, whose last bit may differ between engines.
  let backoff: number = config.baseDelay;
  const max: number = config.maxDelay;
  if (config.multiplier > 1) {
    for (let n = retries; backoff < max && n > 0; n--) backoff *= config.multiplier;
  }
  return Math.min(backoff, max);
}

/**
 * grpc-go's `Backoff(retries)`: exactly baseDelay for 0, else the nominal wait scaled by 1 + jitter·(2u − 1), where
 * `u` is uniform in [0, 1).
 */
export function backoffDelay(config: BackoffConfig, retries: number, u: number): Duration {
  if (retries === 0) return config.baseDelay;
  const scaled = nominalBackoff(config, retries) * (1 + config.jitter * (2 * u - 1));
  return Math.max(0, Math.round(scaled)) as Duration;
}

/**
 * How long one connection attempt may take: max(minConnectTimeout, the attempt's backoff)
 * (docs/sources/grpc.md#test-vectors, vector 2).
 */
export function connectTimeout(config: BackoffConfig, backoff: Duration): Duration {
  return Math.max(config.minConnectTimeout, backoff) as Duration;
}

/**
 * One subchannel's backoff state, as grpc-go's addrConn keeps it: an attempt draws its backoff when it starts, gets
 * max(20 s, that backoff) to connect, and on failure waits exactly that backoff (the timer starts after the attempt
 * failed, not when it began). Success resets the failure count.
 */
export class ConnectionBackoff {
  private retries = 0;
  private current: Duration;

  constructor(
    readonly config: BackoffConfig,
    private readonly rng: RngStream,
  ) {
    this.current = config.baseDelay;
  }

  /** Consecutive failed attempts since the last success. */
  get failures(): number {
    return this.retries;
  }

  /** Starts an attempt: returns how long it may take before it counts as failed. */
  startAttempt(): Duration {
    // grpc-go draws jitter only for retries > 0; a jitter-free config draws nothing, so fixed mode uses no randomness.
    const u = this.retries > 0 && this.config.jitter > 0 ? this.rng.next() : 0.5;
    this.current = backoffDelay(this.config, this.retries, u);
    return connectTimeout(this.config, this.current);
  }

  /** The attempt failed: returns how long to wait before the next one may start. */
  failed(): Duration {
    this.retries++;
    return this.current;
  }

  succeeded(): void {
    this.retries = 0;
  }
}
