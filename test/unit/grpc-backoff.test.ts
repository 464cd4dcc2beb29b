import { describe, expect, it } from 'vitest';
import { backoffDelay, ConnectionBackoff, connectTimeout, fixedBackoff, GRPC_BACKOFF, INCIDENT_RECONNECT_INTERVAL, nominalBackoff } from '../../src/sim/apps/grpc/backoff';
import { Rng, type RngStream } from '../../src/sim/core/rng';
import { millis, seconds, toSeconds, type Duration } from '../../src/sim/core/time';

const LAST_U = 1 - 2 ** -32;

/** An RngStream that fails the test if anything draws from it. */
const noRandomness = new Proxy({} as RngStream, {
  get: () => () => {
    throw new Error('drew randomness');
  },
});

describe('gRPC connection backoff (docs/sources/grpc.md#connection-backoff, #test-vectors)', () => {
  it('vector 1: nominal waits 1.0, 1.6, 2.56, … 109.951, then capped at 120 s', () => {
    const expected = [1.0, 1.6, 2.56, 4.096, 6.554, 10.486, 16.777, 26.844, 42.95, 68.719, 109.951, 120];
    const waits = expected.map((_, retries) => nominalBackoff(GRPC_BACKOFF, retries) / 1e6);
    waits.forEach((wait, i) => expect(wait).toBeCloseTo(expected[i]!, 3));
    expect(nominalBackoff(GRPC_BACKOFF, 12)).toBe(seconds(120));
    expect(nominalBackoff(GRPC_BACKOFF, 500)).toBe(seconds(120));
  });

  it('vector 1: cumulative 15.81 s after five waits', () => {
    let total = 0;
    for (let retries = 0; retries < 5; retries++) total += nominalBackoff(GRPC_BACKOFF, retries);
    expect(total / 1e6).toBeCloseTo(15.81, 2);
  });

  it('vector 1: wait #2 lies in [1.28, 1.92] s and a capped wait in [96, 144] s', () => {
    expect(toSeconds(backoffDelay(GRPC_BACKOFF, 1, 0))).toBeCloseTo(1.28, 6);
    expect(toSeconds(backoffDelay(GRPC_BACKOFF, 1, LAST_U))).toBeCloseTo(1.92, 6);
    expect(toSeconds(backoffDelay(GRPC_BACKOFF, 11, 0))).toBeCloseTo(96, 6);
    expect(toSeconds(backoffDelay(GRPC_BACKOFF, 11, LAST_U))).toBeCloseTo(144, 6);
    const rng = new Rng(1).stream('backoff');
    const second = Array.from({ length: 2000 }, () => toSeconds(backoffDelay(GRPC_BACKOFF, 1, rng.next())));
    expect(Math.min(...second)).toBeGreaterThanOrEqual(1.28);
    expect(Math.max(...second)).toBeLessThanOrEqual(1.92);
    // Jitter disperses clients that failed together across the whole band.
    expect(Math.min(...second)).toBeLessThan(1.3);
    expect(Math.max(...second)).toBeGreaterThan(1.9);
  });

  it('vector 1: the first wait is exactly 1.000 s, whatever the random draw', () => {
    for (const u of [0, 0.5, LAST_U]) expect(backoffDelay(GRPC_BACKOFF, 0, u)).toBe(seconds(1));
    const backoff = new ConnectionBackoff(GRPC_BACKOFF, noRandomness);
    backoff.startAttempt();
    expect(backoff.failed()).toBe(seconds(1));
  });

  it('vector 2: an attempt gets max(20 s, its backoff): 20 s at 4.096 s, 26.844 s at 26.844 s', () => {
    expect(connectTimeout(GRPC_BACKOFF, millis(4096))).toBe(seconds(20));
    expect(connectTimeout(GRPC_BACKOFF, millis(26_844))).toBe(millis(26_844));
    const backoff = new ConnectionBackoff(GRPC_BACKOFF, new Rng(3).stream('backoff'));
    const timeouts: Duration[] = [];
    const waits: Duration[] = [];
    for (let i = 0; i < 10; i++) {
      timeouts.push(backoff.startAttempt());
      waits.push(backoff.failed());
    }
    expect(timeouts.slice(0, 6).every((t) => t === seconds(20))).toBe(true);
    // From the 8th attempt (nominal 26.844 s) the attempt's own backoff is the longer one, and the wait equals it.
    expect(toSeconds(waits[7]!)).toBeGreaterThan(20);
    expect(timeouts.slice(7)).toEqual(waits.slice(7));
    expect(backoff.failures).toBe(10);
  });

  it('a success resets the sequence to the exact 1 s first wait', () => {
    const backoff = new ConnectionBackoff(GRPC_BACKOFF, new Rng(4).stream('backoff'));
    for (let i = 0; i < 4; i++) {
      backoff.startAttempt();
      backoff.failed();
    }
    backoff.startAttempt();
    backoff.succeeded();
    expect(backoff.failures).toBe(0);
    backoff.startAttempt();
    expect(backoff.failed()).toBe(seconds(1));
  });

  it("the incident's fixed mode waits exactly 300 ms every time, draws no randomness, and keeps a configurable connect timeout", () => {
    const config = fixedBackoff(INCIDENT_RECONNECT_INTERVAL);
    const backoff = new ConnectionBackoff(config, noRandomness);
    for (let i = 0; i < 50; i++) {
      expect(backoff.startAttempt()).toBe(seconds(20));
      expect(backoff.failed()).toBe(millis(300));
    }
    const short = new ConnectionBackoff(fixedBackoff(millis(300), seconds(1)), noRandomness);
    expect(short.startAttempt()).toBe(seconds(1));
    expect(new ConnectionBackoff(fixedBackoff(millis(300), 0 as Duration), noRandomness).startAttempt()).toBe(millis(300));
  });
});
