import { describe, expect, it } from 'vitest';
import { faultCatalog } from '../../src/sim/faults/catalog';
import { DNS_TARGET_ENTITIES } from '../../src/sim/world-dns';
import { dnsTargetOf, faultsForBox, targetFor, type BoxInfo } from '../../src/state/fault-placement';

const catalog = faultCatalog();
const fault = (id: string) => catalog.find((f) => f.id === id)!;

function box(entity: string | null, deployment: string | null, node: string | null): BoxInfo {
  return { entity, deployment, node, dns: dnsTargetOf(DNS_TARGET_ENTITIES, entity, deployment) };
}

describe('where a dropped fault lands', () => {
  it('aims DNS faults at the upstream a box stands for, as the simulation names it', () => {
    expect(targetFor(fault('break-upstream'), box('pod/coredns-0', 'coredns', 'node-1'))).toBe('dns/cluster');
    expect(targetFor(fault('break-upstream'), box('service/kube-dns', null, null))).toBe('dns/cluster');
    expect(targetFor(fault('slow-upstream'), box('external/dns-resolver', null, null))).toBe('dns/provider');
    // A pod of another deployment is no DNS server; the fault does not take it.
    expect(targetFor(fault('break-upstream'), box('pod/web-0', 'web', 'node-1'))).toBeNull();
  });

  it('prefers the box itself, then its deployment, then its node', () => {
    expect(targetFor(fault('delete-pod'), box('pod/web-0', 'web', 'node-1'))).toBe('pod/web-0');
    expect(targetFor(fault('rolling-update'), box('pod/web-0', 'web', 'node-1'))).toBe('deployment/web');
    expect(targetFor(fault('drain-node'), box('pod/web-0', 'web', 'node-1'))).toBe('node/node-1');
    expect(targetFor(fault('delete-pod'), box('node/node-1', null, 'node-1'))).toBeNull();
  });

  it('offers on a CoreDNS pod both the pod faults and the DNS ones', () => {
    const offered = faultsForBox(catalog, box('pod/coredns-0', 'coredns', 'node-1')).map((o) => `${o.fault.id} → ${o.target}`);
    expect(offered).toEqual(expect.arrayContaining(['delete-pod → pod/coredns-0', 'break-upstream → dns/cluster', 'slow-upstream → dns/cluster']));
  });
});
