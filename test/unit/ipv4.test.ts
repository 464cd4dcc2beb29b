import { describe, expect, it } from 'vitest';
import { cidr, cidrContains, cidrSize, formatCidr, formatIpv4, parseCidr, parseIpv4 } from '../../src/sim/net/ipv4';

describe('IPv4 addresses', () => {
  it('parses and formats dotted quads as unsigned 32-bit integers', () => {
    expect(parseIpv4('10.0.0.1')).toBe(0x0a000001);
    expect(parseIpv4('255.255.255.255')).toBe(0xffffffff);
    expect(formatIpv4(0xc0a80101)).toBe('192.168.1.1');
    expect(formatIpv4(parseIpv4('100.64.3.7')!)).toBe('100.64.3.7');
  });

  it('rejects malformed addresses', () => {
    for (const bad of ['10.0.0', '10.0.0.256', '10.0.0.01', '1.2.3.4.5', 'a.b.c.d', '', '10..0.1', ' 10.0.0.1']) {
      expect(parseIpv4(bad), bad).toBeNull();
    }
  });
});

describe('CIDR blocks', () => {
  it('checks membership and size', () => {
    const block = cidr('10.244.1.0/24');
    expect(cidrContains(block, parseIpv4('10.244.1.200')!)).toBe(true);
    expect(cidrContains(block, parseIpv4('10.244.2.1')!)).toBe(false);
    expect(cidrSize(block)).toBe(256);
    expect(cidrSize(cidr('10.0.0.0/26'))).toBe(64);
    expect(cidrContains(cidr('0.0.0.0/0'), parseIpv4('8.8.8.8')!)).toBe(true);
    expect(formatCidr(block)).toBe('10.244.1.0/24');
  });

  it('rejects host bits, bad prefixes and junk', () => {
    expect(parseCidr('10.244.1.5/24')).toBeNull();
    expect(parseCidr('10.0.0.0/33')).toBeNull();
    expect(parseCidr('10.0.0.0')).toBeNull();
    expect(parseCidr('10.0.0.0/8/1')).toBeNull();
    expect(parseCidr('10.0.0.0/x')).toBeNull();
  });
});
