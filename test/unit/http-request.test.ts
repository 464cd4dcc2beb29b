import { describe, expect, it } from 'vitest';
import { HTTP_BAD_GATEWAY, HTTP_OK, HttpRequests } from '../../src/sim/apps/http-request';
import { formatForwardedFor, forwardThrough, parseForwardedFor } from '../../src/sim/net/forwarded';
import { ipv4 } from '../../src/sim/net/ipv4';
import type { SimTime } from '../../src/sim/core/time';

const ALICE = ipv4('203.0.113.7');
const t = 0 as SimTime;

describe('HTTP requests in flight and their headers', () => {
  it('numbers requests above any DNS id or gRPC stream message, and tracks only its own', () => {
    const requests = new HttpRequests();
    const id = requests.create(ALICE, null, false, '');
    expect(id).toBeGreaterThanOrEqual(2 ** 40);
    expect(requests.has(id)).toBe(true);
    expect(requests.has(7)).toBe(false);
    expect(requests.xff(7)).toBeUndefined();
    expect(requests.origin(id)).toBe(ALICE);
    expect(requests.status(id)).toBe(HTTP_OK);
  });

  it('copies what the client wrote, so a proxy editing the request does not edit the client', () => {
    const requests = new HttpRequests();
    const written = parseForwardedFor('1.2.3.4');
    const id = requests.create(ALICE, written, false, '');
    forwardThrough(requests.xff(id)!, 'append', ALICE);
    expect(formatForwardedFor(requests.xff(id)!)).toBe('1.2.3.4, 203.0.113.7');
    expect(formatForwardedFor(written)).toBe('1.2.3.4');
  });

  it('forwards a request with its origin, a copy of its header and its journey; an untracked one goes on untracked', () => {
    const requests = new HttpRequests();
    const id = requests.create(ALICE, parseForwardedFor('10.0.0.1'), true, 'alice → shop');
    const upstream = requests.forward(id);
    expect(requests.origin(upstream)).toBe(ALICE);
    forwardThrough(requests.xff(upstream)!, 'append', ipv4('10.0.0.2'));
    expect(formatForwardedFor(requests.xff(id)!)).toBe('10.0.0.1');
    requests.hop(id, t, 'lb/f5', 'in', '203.0.113.7:1000', '192.0.2.10:80');
    requests.hop(upstream, t, 'pod/proxy', 'out', '10.244.1.2:2000', '10.96.0.30:80');
    requests.logged(upstream, ALICE, 'client');
    const [journey] = requests.recent();
    expect(journey!.hops.map((h) => [h.where, h.xff, h.forwarded])).toEqual([
      ['lb/f5', '10.0.0.1', 'for=10.0.0.1'],
      ['pod/proxy', '10.0.0.1, 10.0.0.2', 'for=10.0.0.1, for=10.0.0.2'],
    ]);
    expect(journey!.logged).toEqual({ address: '203.0.113.7', verdict: 'client' });
    const probe = requests.forward(12345);
    expect(requests.has(probe)).toBe(false);
    expect(requests.status(probe)).toBe(HTTP_OK);
  });

  it('forgets a closed request, reuses its header list clean, and keeps the last 40 journeys', () => {
    const requests = new HttpRequests();
    const first = requests.create(ALICE, parseForwardedFor('1.2.3.4'), false, '');
    requests.setStatus(first, HTTP_BAD_GATEWAY);
    expect(requests.status(first)).toBe(HTTP_BAD_GATEWAY);
    requests.close(first);
    expect(requests.inFlight).toBe(0);
    expect(requests.xff(first)).toBeUndefined();
    const second = requests.create(ALICE, null, false, '');
    expect(requests.xff(second)!.length).toBe(0);
    for (let i = 0; i < 45; i++) requests.create(ALICE, null, true, `r${i}`);
    const kept = requests.recent();
    expect(kept.length).toBe(40);
    expect(kept[0]!.summary).toBe('r5');
    expect(kept.at(-1)!.summary).toBe('r44');
  });
});
