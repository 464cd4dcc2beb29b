import { describe, expect, it } from 'vitest';
import { appendForwardedFor, clientAddress, createForwardedFor, formatForwardedFor, forwardedValue, forwardThrough, parseForwardedFor, XFF_UNKNOWN } from '../../src/sim/net/forwarded';
import { ipv4 } from '../../src/sim/net/ipv4';

const CLIENT = ipv4('203.0.113.7');
const LB = ipv4('192.0.2.10');
const INGRESS = ipv4('10.244.1.9');

describe('X-Forwarded-For through a proxy chain (docs/sources/load-balancers.md#forwarded-headers)', () => {
  it('each appending proxy adds its peer; the backend trusting both proxies logs the client', () => {
    const xff = createForwardedFor();
    forwardThrough(xff, 'append', CLIENT); // the LB received the request from the client
    forwardThrough(xff, 'append', LB); // the ingress proxy received it from the LB
    expect(formatForwardedFor(xff)).toBe('203.0.113.7, 192.0.2.10');
    expect(clientAddress(xff, INGRESS, 2)).toBe(CLIENT);
    expect(clientAddress(xff, INGRESS, 1)).toBe(LB);
    expect(clientAddress(xff, INGRESS, 0)).toBe(INGRESS);
  });

  it('a spoofed client value survives appending: the rightmost-trusted rule still finds the client, "leftmost" logs the lie', () => {
    const xff = parseForwardedFor('1.2.3.4');
    forwardThrough(xff, 'append', CLIENT);
    forwardThrough(xff, 'append', LB);
    expect(formatForwardedFor(xff)).toBe('1.2.3.4, 203.0.113.7, 192.0.2.10');
    expect(clientAddress(xff, INGRESS, 2)).toBe(CLIENT);
    expect(clientAddress(xff, INGRESS, Infinity)).toBe(ipv4('1.2.3.4'));
    // Trusting one hop too many hands the choice to the client.
    expect(clientAddress(xff, INGRESS, 3)).toBe(ipv4('1.2.3.4'));
  });

  it('a proxy that resets the header drops the spoofed value and starts again from its peer', () => {
    const xff = parseForwardedFor('1.2.3.4, 5.6.7.8');
    forwardThrough(xff, 'replace', CLIENT);
    forwardThrough(xff, 'append', LB);
    expect(formatForwardedFor(xff)).toBe('203.0.113.7, 192.0.2.10');
    expect(clientAddress(xff, INGRESS, Infinity)).toBe(CLIENT);
  });

  it('an LB that leaves the header alone and SNATs hides the client: the backend sees only the LB', () => {
    const xff = createForwardedFor();
    forwardThrough(xff, 'preserve', CLIENT);
    expect(xff.length).toBe(0);
    expect(clientAddress(xff, LB, 1)).toBe(LB);
    expect(formatForwardedFor(xff)).toBe('');
  });

  it('keeps unknown tokens as placeholders and a full list keeps its rightmost entries', () => {
    const xff = parseForwardedFor('unknown, _hidden, 198.51.100.1,', createForwardedFor(3));
    expect(Array.from(xff.ips.subarray(0, xff.length))).toEqual([XFF_UNKNOWN, XFF_UNKNOWN, ipv4('198.51.100.1')]);
    appendForwardedFor(xff, CLIENT);
    expect(formatForwardedFor(xff)).toBe('unknown, 198.51.100.1, 203.0.113.7');
    expect(xff.dropped).toBe(1);
    expect(clientAddress(xff, LB, 1)).toBe(CLIENT);
  });

  it('builds the RFC 7239 Forwarded value, quoting values with ports', () => {
    const xff = createForwardedFor();
    forwardThrough(xff, 'append', ipv4('192.0.2.43'));
    forwardThrough(xff, 'append', ipv4('198.51.100.17'));
    expect(forwardedValue(xff, { by: ipv4('203.0.113.60'), proto: 'http', host: 'example.com' })).toBe('for=192.0.2.43, for=198.51.100.17;by=203.0.113.60;proto=http;host=example.com');
    expect(forwardedValue(parseForwardedFor('192.0.2.43'), { forPort: 47011, by: LB, byPort: 443, host: 'example.com:8443' })).toBe(
      'for="192.0.2.43:47011";by="192.0.2.10:443";host="example.com:8443"',
    );
    expect(forwardedValue(parseForwardedFor('secret'))).toBe('for=unknown');
  });
});
