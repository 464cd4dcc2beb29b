import { describe, expect, it } from 'vitest';
import { cidr, ipv4 } from '../../src/sim/net/ipv4';
import { RouteTable } from '../../src/sim/net/route-table';
import { effectiveRpFilter, validateSource, type RpFilterMode } from '../../src/sim/net/rp-filter';

/** A node whose default route and pod network leave by eth0; eth1 and tunl0 are other interfaces. */
function node() {
  const table = new RouteTable();
  table.add({ dst: cidr('10.0.0.0/16'), type: 'unicast', dev: 'eth0' });
  table.add({ dst: cidr('192.168.50.0/24'), type: 'unicast', dev: 'eth1' });
  table.add({ dst: cidr('10.0.9.0/24'), type: 'blackhole' });
  return table;
}

function check(src: string, dev: string, devHasAddress: boolean, mode: RpFilterMode, table = node()) {
  const ip = ipv4(src);
  return validateSource({ src: ip, dev, devHasAddress, mode, reverse: table.lookup(ip), srcIsLocal: false });
}

describe('reverse-path filtering (docs/sources/linux-routing-rp-filter.md#test-vectors)', () => {
  it('vector 1: loose mode drops a packet on an interface without an IPv4 address; an address or rp_filter=0 lets it pass', () => {
    expect(check('10.0.1.5', 'tunl0', false, 2)).toBe('martian');
    expect(check('10.0.1.5', 'tunl0', true, 2)).toBe('accept');
    expect(check('10.0.1.5', 'tunl0', false, 0)).toBe('accept');
  });

  it('vector 2: strict mode drops when the best route back leaves by another interface; loose accepts', () => {
    expect(check('10.0.1.5', 'eth1', true, 1)).toBe('martian');
    expect(check('10.0.1.5', 'eth1', true, 2)).toBe('accept');
    expect(check('10.0.1.5', 'eth0', true, 1)).toBe('accept');
  });

  it('vector 3: with no route to the source, strict and loose drop and 0 accepts', () => {
    const empty = new RouteTable();
    expect(check('172.16.0.1', 'eth0', true, 1, empty)).toBe('martian');
    expect(check('172.16.0.1', 'eth0', true, 2, empty)).toBe('martian');
    expect(check('172.16.0.1', 'eth0', true, 0, empty)).toBe('accept');
  });

  it('vector 4: the effective mode is max(all, interface)', () => {
    expect(effectiveRpFilter(2, 0)).toBe(2);
    expect(effectiveRpFilter(0, 1)).toBe(1);
    expect(effectiveRpFilter(1, 2)).toBe(2);
  });

  it('refuses a reverse route that is not unicast, and our own address as a source unless accept_local', () => {
    expect(check('10.0.9.7', 'eth0', true, 2)).toBe('invalid');
    const local = { src: ipv4('10.0.0.11'), dev: 'eth0', devHasAddress: true, reverse: undefined, srcIsLocal: true };
    expect(validateSource({ ...local, mode: 0 })).toBe('invalid');
    expect(validateSource({ ...local, mode: 0, acceptLocal: true })).toBe('accept');
  });
});

describe('route table', () => {
  it('picks the longest matching prefix, and forgets removed routes', () => {
    const table = node();
    table.add({ dst: cidr('10.0.1.0/24'), type: 'unicast', dev: 'eni1' });
    expect(table.lookup(ipv4('10.0.1.5'))?.dev).toBe('eni1');
    expect(table.lookup(ipv4('10.0.2.5'))?.dev).toBe('eth0');
    expect(table.lookup(ipv4('8.8.8.8'))).toBeUndefined();
    expect(table.remove((r) => r.dev === 'eni1')).toBe(1);
    expect(table.lookup(ipv4('10.0.1.5'))?.dev).toBe('eth0');
  });
});
