/**
 * Per-RPC deadline, transparent retry and the optional retry policy of gRFC A6
 * (docs/sources/grpc.md#deadlines-and-retries).
 */
import type { RngStream } from '../../core/rng';
import { millis, type Duration, type SimTime } from '../../core/time';

export type StatusCode = 'UNAVAILABLE' | 'DEADLINE_EXCEEDED' | 'RESOURCE_EXHAUSTED' | 'INTERNAL' | 'UNKNOWN';

/**
 * How an attempt failed: 'not_sent' never left the client (its transport closed before the stream went out);
 * 'refused' reached the server but was not processed (above a GOAWAY's last-stream-id, or REFUSED_STREAM), which the
 * app reports as UNAVAILABLE if it is not retried; otherwise the status the attempt ended with.
 */
export type AttemptFailure = 'not_sent' | 'refused' | StatusCode;

export interface RetryPolicy {
  /** Attempts including the first; values above 5 count as 5. */
  maxAttempts: number;
  initialBackoff: Duration;
  maxBackoff: Duration;
  backoffMultiplier: number;
  retryableCodes: readonly StatusCode[];
}

export interface CallSettings {
  /** Time from the RPC's start to DEADLINE_EXCEEDED, across all attempts; 0: no deadline. */
  deadline: Duration;
  retry: RetryPolicy | null;
}

// maxAttempts above 5 are treated as 5 (gRFC A6 retry policy validation).
export const MAX_ATTEMPTS_LIMIT = 5;

export const GRPC_CALL_DEFAULTS: CallSettings = {
  // gRPC sets no deadline unless the caller gives one (grpc.io deadlines guide).
  deadline: 0 as Duration,
  // No retry policy unless the service config has one; transparent retries happen regardless (gRFC A6).
  retry: null,
};

/**
 * Model choice: the incident's clients retried, so they saw latency rather than errors
 * (docs/sources/incidents.md#it-wasnt-dns), but the talk gives no numbers; 3 attempts on UNAVAILABLE, 100 ms growing ×2
 * to 1 s, are placeholders to tune.
 */
export const INCIDENT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  initialBackoff: millis(100),
  maxBackoff: millis(1000),
  backoffMultiplier: 2,
  retryableCodes: ['UNAVAILABLE'],
};

/** Returned by `afterFailure` when the RPC fails for good. */
export const GIVE_UP = -1;
/** `deadlineAt` of an RPC without a deadline. */
export const NO_DEADLINE = -1;

/** The retry bookkeeping of one RPC; the app may pool these and reuse them through `CallPolicy.start`. */
export class CallAttempts {
  /** Attempts counted against maxAttempts (transparent retries are not counted). */
  attempts = 0;
  transparentRetried = false;
  deadlineAt = NO_DEADLINE;
}

/** Upper bound of the wait before retry `n` (1-based): min(initialBackoff · multiplier^(n−1), maxBackoff), in µs. */
export function retryBackoffBound(policy: RetryPolicy, n: number): number {
  let bound: number = policy.initialBackoff;
  for (let i = 1; i < n && bound < policy.maxBackoff; i++) bound *= policy.backoffMultiplier;
  return Math.min(bound, policy.maxBackoff);
}

/**
 * gRFC A6 applied to one RPC: an attempt that never left the client is retried at once, as often as it takes; one
 * the server refused unprocessed is retried at once the first time, and after that is an UNAVAILABLE like any other.
 * A failure whose status the retry policy lists is retried after random(0, retryBackoffBound(n)) while attempts remain.
 * The deadline covers every attempt: once it has passed nothing is retried.
 */
export class CallPolicy {
  constructor(
    readonly settings: CallSettings,
    private readonly rng: RngStream,
  ) {}

  /** Starts an RPC at `now`: returns its deadline, at which the app fails it DEADLINE_EXCEEDED, or NO_DEADLINE. */
  start(call: CallAttempts, now: SimTime): number {
    call.attempts = 1;
    call.transparentRetried = false;
    call.deadlineAt = this.settings.deadline > 0 ? now + this.settings.deadline : NO_DEADLINE;
    return call.deadlineAt;
  }

  /** An attempt failed at `now`: µs to wait before the next attempt (0: at once), or GIVE_UP. */
  afterFailure(call: CallAttempts, failure: AttemptFailure, now: SimTime): number {
    if (call.deadlineAt !== NO_DEADLINE && now >= call.deadlineAt) return GIVE_UP;
    if (failure === 'not_sent') return 0;
    let status: StatusCode;
    if (failure === 'refused') {
      if (!call.transparentRetried) {
        call.transparentRetried = true;
        return 0;
      }
      status = 'UNAVAILABLE';
    } else {
      status = failure;
    }
    const retry = this.settings.retry;
    if (!retry || !retry.retryableCodes.includes(status)) return GIVE_UP;
    if (call.attempts >= Math.min(retry.maxAttempts, MAX_ATTEMPTS_LIMIT)) return GIVE_UP;
    const bound = retryBackoffBound(retry, call.attempts);
    call.attempts++;
    return Math.round(this.rng.next() * bound);
  }
}
