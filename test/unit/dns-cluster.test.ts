import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/sim/context';
import { atSeconds } from '../../src/sim/core/time';
import { ClusterDns, clusterDnsOptions, serviceDnsName, type ClusterDnsOptions } from '../../src/sim/dns/cluster-dns';
import { ipv4 } from '../../src/sim/net/ipv4';
import { FakeDnsTransport, RawDnsClient, scriptedServer } from '../fixtures/fake-dns-transport';

const REPLICA_IP = ipv4('10.244.1.5');
const VPC_RESOLVER = ipv4('10.0.0.2');
const WEB_IP = ipv4('10.96.3.3');

function setup(overrides: Partial<ClusterDnsOptions> = {}) {
  const ctx = createContext(3);
  const transport = new FakeDnsTransport(ctx);
  const services = new Map<string, number[]>([[serviceDnsName('web', 'default'), [WEB_IP]]]);
  const dns = new ClusterDns(ctx, transport, clusterDnsOptions({ records: (name) => services.get(name) ?? null, upstreamServers: [VPC_RESOLVER], ...overrides }));
  const replica = dns.addReplica(5, REPLICA_IP, 5, 'coredns-0');
  const client = new RawDnsClient(ctx, transport, 1);
  return { ctx, transport, services, dns, replica, client };
}

describe('cluster DNS (CoreDNS with the kubeadm Corefile, docs/sources/dns.md#kubeadm-corefile)', () => {
  it('answers a Service name from the records source with TTL 30, and NXDOMAIN for unknown names in the zone', () => {
    const { ctx, client, transport } = setup();
    const web = client.ask(REPLICA_IP, 'web.default.svc.cluster.local');
    const missing = client.ask(REPLICA_IP, 'nope.default.svc.cluster.local');
    ctx.sched.runUntil(atSeconds(1));
    expect(web.answer).toMatchObject({ rcode: 'NOERROR', addresses: [WEB_IP], ttl: 30 });
    expect(missing.answer).toMatchObject({ rcode: 'NXDOMAIN', ttl: 30 });
    expect(transport.deliveredTo(VPC_RESOLVER)).toHaveLength(0);
    expect(ctx.metrics.counter('dns.cluster.nxdomain').total).toBe(1);
  });

  it('forwards other names to its upstream and caches them up to 30 s', () => {
    const { ctx, client, transport } = setup();
    transport.listen(
      9,
      VPC_RESOLVER,
      scriptedServer(transport, () => ({ rcode: 'NOERROR', addresses: [ipv4('52.1.2.3')], ttl: 300 })),
    );
    client.ask(REPLICA_IP, 'api.example.com');
    ctx.sched.runUntil(atSeconds(10.5));
    const cached = client.ask(REPLICA_IP, 'api.example.com');
    ctx.sched.runUntil(atSeconds(31));
    client.ask(REPLICA_IP, 'api.example.com');
    ctx.sched.runUntil(atSeconds(32));
    expect(cached.answer).toMatchObject({ rcode: 'NOERROR', ttl: 20 });
    expect(transport.deliveredTo(VPC_RESOLVER)).toHaveLength(2);
  });

  it('forwards with max_concurrent 1000: the 1001st concurrent query to a silent upstream is REFUSED', () => {
    const { ctx, client, transport, dns, replica } = setup();
    transport.listen(
      9,
      VPC_RESOLVER,
      scriptedServer(transport, () => null),
    );
    for (let i = 0; i < 1001; i++) client.ask(REPLICA_IP, `h${i}.example.com`);
    ctx.sched.runUntil(atSeconds(0.01));
    expect(dns.inflight(replica)).toBe(1000);
    expect(client.asked.filter((a) => a.answer?.rcode === 'REFUSED')).toHaveLength(1);
    expect(ctx.metrics.counter('dns.cluster.refused').total).toBe(1);
  });

  it('with the cluster zone cached, a changed Service IP is served stale for up to 30 s', () => {
    const { ctx, client, services } = setup();
    client.ask(REPLICA_IP, 'web.default.svc.cluster.local');
    ctx.sched.runUntil(atSeconds(1));
    services.set('web.default.svc.cluster.local', [ipv4('10.96.9.9')]);
    const stale = client.ask(REPLICA_IP, 'web.default.svc.cluster.local');
    ctx.sched.runUntil(atSeconds(31));
    const fresh = client.ask(REPLICA_IP, 'web.default.svc.cluster.local');
    ctx.sched.runUntil(atSeconds(32));
    expect(stale.answer?.addresses).toEqual([WEB_IP]);
    expect(fresh.answer?.addresses).toEqual([ipv4('10.96.9.9')]);
  });

  it('without the cluster zone cached, a changed Service IP is served at once', () => {
    const { ctx, client, services } = setup({ cacheClusterZone: false });
    client.ask(REPLICA_IP, 'web.default.svc.cluster.local');
    ctx.sched.runUntil(atSeconds(1));
    services.set('web.default.svc.cluster.local', [ipv4('10.96.9.9')]);
    const next = client.ask(REPLICA_IP, 'web.default.svc.cluster.local');
    ctx.sched.runUntil(atSeconds(2));
    expect(next.answer?.addresses).toEqual([ipv4('10.96.9.9')]);
  });

  it('a removed replica stops answering', () => {
    const { ctx, client, dns, replica } = setup();
    dns.removeReplica(replica);
    const lost = client.ask(REPLICA_IP, 'web.default.svc.cluster.local');
    ctx.sched.runUntil(atSeconds(1));
    expect(lost.answer).toBeNull();
  });
});
