import { describe, expect, it } from 'vitest';
import { BlockIpam } from '../../src/sim/infra/block-ipam';
import { cidr, cidrSize, formatCidr, formatIpv4, ipv4 } from '../../src/sim/net/ipv4';

describe('Calico block IPAM (docs/sources/calico.md#ip-pools-and-blocks)', () => {
  it('vector 1: a /16 pool in /26 blocks is 1024 blocks of 64; 100 pods and the tunnel need two blocks', () => {
    const ipam = new BlockIpam(cidr('10.244.0.0/16'), 26);
    expect(ipam.capacity).toBe(64);
    const tunnel = ipam.allocate('ipip-tunnel-addr-node-a')!;
    // The tunnel takes the first block's first address, as calico-node's logs show (172.24.88.64 from .64/26).
    expect(formatIpv4(tunnel)).toBe('10.244.0.0');
    for (let i = 0; i < 100; i++) ipam.allocate(`k8s-pod-network.pod-${i}`);
    expect(ipam.blocks.map(formatCidr)).toEqual(['10.244.0.0/26', '10.244.0.64/26']);
    expect(ipam.blocks.map((b) => ipam.used(b))).toEqual([64, 37]);
    expect(cidrSize(cidr('10.244.0.0/16')) / ipam.capacity).toBe(1024);
    // A smaller pool filled to the last address: every block claimed, every address handed out once.
    const small = new BlockIpam(cidr('10.244.0.0/22'), 26);
    const given = new Set<number>();
    for (let ip = small.allocate('x'); ip !== null; ip = small.allocate('x')) given.add(ip);
    expect(given.size).toBe(1024);
    expect(small.blocks.length).toBe(16);
  });

  it('vector 2: a released tunnel address is the lowest free one, so the next pod on the node gets it', () => {
    const ipam = new BlockIpam(cidr('10.244.2.0/24'), 26);
    const tunnel = ipam.allocate('ipip-tunnel-addr-node-b')!;
    ipam.allocate('k8s-pod-network.web-1');
    expect(ipam.handleOf(tunnel)).toBe('ipip-tunnel-addr-node-b');
    // The garbage collector releases the allocation of the deleted node; tunl0 is not told.
    ipam.release(tunnel);
    expect(ipam.allocate('k8s-pod-network.web-4')).toBe(tunnel);
    expect(ipam.handleOf(tunnel)).toBe('k8s-pod-network.web-4');
  });

  it('claims the block of an address placed by hand, and rejects a block larger than the pool', () => {
    const ipam = new BlockIpam(cidr('10.244.1.0/24'), 26);
    ipam.assign(ipv4('10.244.1.200'), 'pinned');
    expect(ipam.blocks.map(formatCidr)).toEqual(['10.244.1.192/26']);
    expect(formatIpv4(ipam.allocate('next')!)).toBe('10.244.1.192');
    expect(() => new BlockIpam(cidr('10.244.1.0/24'), 20)).toThrow('block size /20 does not fit the pool 10.244.1.0/24');
  });
});
