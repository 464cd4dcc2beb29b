import { describe, expect, it } from 'vitest';
import { CallAttempts, CallPolicy, GIVE_UP, GRPC_CALL_DEFAULTS, INCIDENT_RETRY_POLICY, NO_DEADLINE, retryBackoffBound, type CallSettings } from '../../src/sim/apps/grpc/call-policy';
import { Rng } from '../../src/sim/core/rng';
import { atSeconds, millis, seconds, type Duration } from '../../src/sim/core/time';

const policy = (settings: Partial<CallSettings>, seed = 1) => new CallPolicy({ ...GRPC_CALL_DEFAULTS, ...settings }, new Rng(seed).stream('calls'));

describe('gRPC call deadline and retries (gRFC A6; docs/sources/grpc.md#deadlines-and-retries; docs/sources/incidents.md#it-wasnt-dns)', () => {
  it('a deadline covers every attempt: nothing is retried once it has passed', () => {
    const calls = policy({ deadline: seconds(2), retry: INCIDENT_RETRY_POLICY });
    const call = new CallAttempts();
    expect(calls.start(call, atSeconds(1))).toBe(atSeconds(3));
    expect(calls.afterFailure(call, 'not_sent', atSeconds(2.9))).toBe(0);
    expect(calls.afterFailure(call, 'not_sent', atSeconds(3))).toBe(GIVE_UP);
    expect(calls.afterFailure(call, 'UNAVAILABLE', atSeconds(3.5))).toBe(GIVE_UP);
    expect(policy({}).start(call, atSeconds(1))).toBe(NO_DEADLINE);
  });

  it('gRPC defaults: no retry policy, but a stream refused by GOAWAY is retried once, transparently and at once', () => {
    const calls = policy({});
    const call = new CallAttempts();
    calls.start(call, atSeconds(0));
    expect(calls.afterFailure(call, 'refused', atSeconds(0))).toBe(0);
    expect(calls.afterFailure(call, 'refused', atSeconds(0))).toBe(GIVE_UP);
    calls.start(call, atSeconds(1));
    expect(calls.afterFailure(call, 'UNAVAILABLE', atSeconds(1))).toBe(GIVE_UP);
  });

  it('an attempt that never left the client is retried at once as often as it takes, and counts no attempt', () => {
    const calls = policy({ retry: INCIDENT_RETRY_POLICY });
    const call = new CallAttempts();
    calls.start(call, atSeconds(0));
    for (let i = 0; i < 100; i++) expect(calls.afterFailure(call, 'not_sent', atSeconds(i))).toBe(0);
    expect(call.attempts).toBe(1);
  });

  it("the incident's retry policy: UNAVAILABLE retried after random(0, 100 ms) then random(0, 200 ms), then given up", () => {
    const waits: number[][] = [[], []];
    for (let seed = 0; seed < 200; seed++) {
      const calls = policy({ retry: INCIDENT_RETRY_POLICY }, seed);
      const call = new CallAttempts();
      calls.start(call, atSeconds(0));
      waits[0]!.push(calls.afterFailure(call, 'UNAVAILABLE', atSeconds(0)));
      waits[1]!.push(calls.afterFailure(call, 'UNAVAILABLE', atSeconds(0)));
      expect(calls.afterFailure(call, 'UNAVAILABLE', atSeconds(0))).toBe(GIVE_UP);
      expect(call.attempts).toBe(3);
    }
    expect(Math.min(...waits[0]!)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...waits[0]!)).toBeLessThanOrEqual(millis(100));
    expect(Math.max(...waits[1]!)).toBeLessThanOrEqual(millis(200));
    expect(Math.max(...waits[1]!)).toBeGreaterThan(millis(150));
  });

  it('a refused stream spends its transparent retry first, then counts against the retry policy', () => {
    const calls = policy({ retry: INCIDENT_RETRY_POLICY });
    const call = new CallAttempts();
    calls.start(call, atSeconds(0));
    expect(calls.afterFailure(call, 'refused', atSeconds(0))).toBe(0);
    expect(call.attempts).toBe(1);
    expect(calls.afterFailure(call, 'refused', atSeconds(0))).toBeGreaterThanOrEqual(0);
    expect(call.attempts).toBe(2);
  });

  it('statuses the policy does not list are not retried', () => {
    const calls = policy({ retry: INCIDENT_RETRY_POLICY });
    const call = new CallAttempts();
    calls.start(call, atSeconds(0));
    expect(calls.afterFailure(call, 'INTERNAL', atSeconds(0))).toBe(GIVE_UP);
    expect(calls.afterFailure(call, 'DEADLINE_EXCEEDED', atSeconds(0))).toBe(GIVE_UP);
  });

  it('maxAttempts above 5 count as 5, and the backoff bound grows to maxBackoff', () => {
    const retry = { ...INCIDENT_RETRY_POLICY, maxAttempts: 10 };
    const calls = policy({ retry });
    const call = new CallAttempts();
    calls.start(call, atSeconds(0));
    let retries = 0;
    while (calls.afterFailure(call, 'UNAVAILABLE', atSeconds(0)) !== GIVE_UP) retries++;
    expect(retries).toBe(4);
    const bounds = [1, 2, 3, 4, 5, 6].map((n) => retryBackoffBound(retry, n) / 1000);
    expect(bounds).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(retryBackoffBound({ ...retry, initialBackoff: seconds(1) as Duration, backoffMultiplier: 1.6, maxBackoff: seconds(120) }, 3)).toBeCloseTo(2.56e6, 3);
  });
});
