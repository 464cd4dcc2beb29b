import { describe, expect, it } from 'vitest';
import { GRPC_GO_RESOLUTION, GRPC_JAVA_RESOLUTION, NEVER, ResolutionLimiter, type ResolutionSettings } from '../../src/sim/apps/grpc/resolution-limiter';
import { createContext } from '../../src/sim/context';
import { Rng } from '../../src/sim/core/rng';
import { atSeconds, seconds, toSeconds, type SimTime } from '../../src/sim/core/time';

const at = atSeconds;
const limiter = (settings: ResolutionSettings, seed = 1) => new ResolutionLimiter(settings, new Rng(seed).stream('resolver'));

/** Starts and finishes a lookup at `t` (instant DNS). */
function lookupAt(r: ResolutionLimiter, t: number, ok = true): number {
  expect(r.due(at(t))).toBe(true);
  return r.resolved(at(t), ok);
}

/**
 * Runs a channel's resolver on the scheduler: ResolveNow at each of `requests` (seconds), lookups answered after
 * `lookupMs`. Returns the times lookups started.
 */
function drive(settings: ResolutionSettings, requests: number[], until: number, lookupMs = 0): number[] {
  const ctx = createContext(9);
  const r = new ResolutionLimiter(settings, ctx.rng.stream('resolver'));
  const lookups: number[] = [];
  const arm = (t: number) => {
    if (t !== NEVER) ctx.sched.at(t as SimTime, timer);
  };
  const answer = ctx.sched.register('test.answer', () => arm(r.resolved(ctx.sched.now, true)));
  const timer = ctx.sched.register('test.resolve', () => {
    if (!r.due(ctx.sched.now)) return;
    lookups.push(toSeconds(ctx.sched.now));
    ctx.sched.after(seconds(lookupMs / 1000), answer);
  });
  const request = ctx.sched.register('test.request', () => arm(r.request(ctx.sched.now)));
  ctx.sched.at(at(0), request);
  for (const t of requests) ctx.sched.at(at(t), request);
  ctx.sched.runUntil(at(until));
  return lookups;
}

describe('gRPC DNS re-resolution limit (docs/sources/grpc.md#dns-re-resolution, #test-vectors, vector 3)', () => {
  it('vector 3, grpc-go / C-core: lookup at 0, connection lost at 5 s ⇒ the re-resolution runs at 30 s', () => {
    const r = limiter(GRPC_GO_RESOLUTION);
    expect(r.request(at(0))).toBe(at(0));
    expect(lookupAt(r, 0)).toBe(NEVER);
    expect(r.request(at(5))).toBe(at(30));
    expect(r.due(at(29.999))).toBe(false);
    expect(r.due(at(30))).toBe(true);
    expect(r.resolving).toBe(true);
    expect(drive(GRPC_GO_RESOLUTION, [5], 100)).toEqual([0, 30]);
  });

  it('vector 3, grpc-java: the refresh at 5 s is dropped; the first refresh after 30 s resolves at once', () => {
    const r = limiter(GRPC_JAVA_RESOLUTION);
    expect(r.request(at(0))).toBe(at(0));
    expect(lookupAt(r, 0)).toBe(NEVER);
    expect(r.request(at(5))).toBe(NEVER);
    expect(r.request(at(29.9))).toBe(NEVER);
    expect(r.dropped).toBe(2);
    expect(r.request(at(41))).toBe(at(41));
    expect(drive(GRPC_JAVA_RESOLUTION, [5], 100)).toEqual([0]);
    expect(drive(GRPC_JAVA_RESOLUTION, [5, 41], 100)).toEqual([0, 41]);
  });

  it('a request long after the last lookup resolves at once in both flavours', () => {
    expect(drive(GRPC_GO_RESOLUTION, [300], 400)).toEqual([0, 300]);
    expect(drive(GRPC_JAVA_RESOLUTION, [300], 400)).toEqual([0, 300]);
  });

  it('grpc-go remembers one request made while a deferred lookup waits, so steady failures re-resolve every 30 s', () => {
    // A client redialling a dead address asks for re-resolution every second: lookups land on a 30 s grid.
    const everySecond = Array.from({ length: 95 }, (_, i) => 5 + i);
    expect(drive(GRPC_GO_RESOLUTION, everySecond, 100)).toEqual([0, 30, 60, 90]);
    // Two requests inside one window give two lookups, a window apart; a third one adds nothing.
    expect(drive(GRPC_GO_RESOLUTION, [5, 10, 12], 200)).toEqual([0, 30, 60]);
    expect(drive(GRPC_JAVA_RESOLUTION, [5, 10, 12], 200)).toEqual([0]);
  });

  it('grpc-go defers a request made during a slow lookup to a window after that lookup ends', () => {
    expect(drive(GRPC_GO_RESOLUTION, [1], 100, 2000)).toEqual([0, 32]);
    expect(drive(GRPC_JAVA_RESOLUTION, [1], 100, 2000)).toEqual([0]);
  });

  it('lookup errors retry with backoff: grpc-go from 1.6 s ± 20 %, grpc-java from 1 s; a success resets it', () => {
    const go = limiter(GRPC_GO_RESOLUTION, 3);
    go.request(at(0));
    const first = toSeconds(lookupAt(go, 0, false) as SimTime);
    expect(first).toBeGreaterThanOrEqual(1.28);
    expect(first).toBeLessThanOrEqual(1.92);
    const second = toSeconds(lookupAt(go, first, false) as SimTime) - first;
    expect(second).toBeGreaterThanOrEqual(2.048);
    expect(second).toBeLessThanOrEqual(3.072);
    expect(lookupAt(go, 10, true)).toBe(NEVER);
    go.request(at(100));
    const again = toSeconds(lookupAt(go, 100, false) as SimTime) - 100;
    expect(again).toBeGreaterThanOrEqual(1.28);
    expect(again).toBeLessThanOrEqual(1.92);

    const java = limiter(GRPC_JAVA_RESOLUTION);
    java.request(at(0));
    expect(lookupAt(java, 0, false)).toBe(at(1));
  });

  it('grpc-go keeps a request made during an error backoff and re-resolves a window after the retry succeeds', () => {
    const r = limiter(GRPC_GO_RESOLUTION);
    r.request(at(0));
    const retryAt = lookupAt(r, 0, false) as SimTime;
    expect(r.request(at(1))).toBe(NEVER);
    expect(r.due(retryAt)).toBe(true);
    expect(r.resolved(retryAt, true)).toBe(retryAt + seconds(30));
  });

  it('grpc-java cancels an error backoff when asked to refresh, and ignores the stale timer', () => {
    const r = limiter(GRPC_JAVA_RESOLUTION);
    r.request(at(0));
    expect(lookupAt(r, 0, false)).toBe(at(1));
    expect(r.request(at(0.5))).toBe(at(0.5));
    expect(r.due(at(0.5))).toBe(true);
    expect(r.resolved(at(0.5), true)).toBe(NEVER);
    expect(r.due(at(1))).toBe(false);
  });
});
