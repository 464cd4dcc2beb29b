import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/sim/context';
import { atSeconds, seconds, toSeconds } from '../../src/sim/core/time';
import { ClusterDns, clusterDnsOptions } from '../../src/sim/dns/cluster-dns';
import { CACHE_PLUGIN_DEFAULTS } from '../../src/sim/dns/dns-cache';
import { DnsProvider, ROUTE53_DEFAULTS, type DnsProviderOptions } from '../../src/sim/dns/dns-provider';
import { EXTERNAL_DNS_DEFAULTS, ExternalDns, type DesiredRecord, type ExternalDnsOptions } from '../../src/sim/dns/external-dns';
import { podResolvConf, StubResolver } from '../../src/sim/dns/stub-resolver';
import { ipv4 } from '../../src/sim/net/ipv4';
import { FakeDnsTransport } from '../fixtures/fake-dns-transport';

const PROVIDER_IP = ipv4('10.0.0.2');
const RESOLVER_IP = ipv4('10.0.0.53');
const OLD_IP = ipv4('52.0.0.1');
const NEW_IP = ipv4('52.0.0.2');

function setup(options: Partial<ExternalDnsOptions> = {}, providerOptions: Partial<DnsProviderOptions> = {}) {
  const ctx = createContext(13);
  const transport = new FakeDnsTransport(ctx);
  const provider = new DnsProvider(ctx, transport, { ...ROUTE53_DEFAULTS, ...providerOptions });
  transport.listen(9, PROVIDER_IP, provider);
  let desired: DesiredRecord[] = [{ name: 'api.example.com', targets: [{ ip: OLD_IP, terminating: false }] }];
  const controller = new ExternalDns(ctx, provider, () => desired, { ...EXTERNAL_DNS_DEFAULTS, ...options });
  const setDesired = (records: DesiredRecord[]) => {
    desired = records;
    controller.notify();
  };
  const served = (name = 'api.example.com') => provider.servedRecord(name)?.addresses;
  return { ctx, transport, provider, controller, setDesired, served };
}

describe('external-dns (docs/sources/dns.md#external-dns, #test-vectors)', () => {
  it('vector 3: an address change reaches the provider at the next run (≤ 60 s) and a TTL-honouring resolver serves the old one until ≈ 360 s', () => {
    const { ctx, transport, controller, setDesired, served } = setup();
    // A resolver that honours record TTLs up to an hour (the cache plugin's default cap) in front of the provider.
    const resolver = new ClusterDns(ctx, transport, clusterDnsOptions({ records: () => null, upstreamServers: [PROVIDER_IP], cache: CACHE_PLUGIN_DEFAULTS }));
    resolver.addReplica(20, RESOLVER_IP, 20, 'resolver');
    const stub = new StubResolver(ctx, transport);
    const conf = podResolvConf('default', [RESOLVER_IP]);
    const seen: { at: number; ip: number }[] = [];
    const receiver = {
      onResolved: (_t: number, addresses: readonly number[]) => seen.push({ at: toSeconds(ctx.sched.now), ip: addresses[0]! }),
      onLookupFailed: () => {},
    };
    const poll = ctx.sched.register('test.poll', () => {
      stub.lookup(1, conf, 'api.example.com.', receiver, 0);
      ctx.sched.after(seconds(1), poll);
    });
    controller.start();
    ctx.sched.runUntil(atSeconds(0.5));
    expect(served()).toEqual([OLD_IP]);
    setDesired([{ name: 'api.example.com', targets: [{ ip: NEW_IP, terminating: false }] }]);
    // Worst case: the resolver fills its cache just before the next run.
    ctx.sched.at(atSeconds(59.5), poll);
    ctx.sched.runUntil(atSeconds(59.9));
    expect(served()).toEqual([OLD_IP]);
    ctx.sched.runUntil(atSeconds(60.01));
    expect(served()).toEqual([NEW_IP]);
    ctx.sched.runUntil(atSeconds(400));
    const lastOld = Math.max(...seen.filter((s) => s.ip === OLD_IP).map((s) => s.at));
    const firstNew = Math.min(...seen.filter((s) => s.ip === NEW_IP).map((s) => s.at));
    expect(lastOld).toBeGreaterThan(359);
    expect(lastOld).toBeLessThanOrEqual(360);
    expect(firstNew).toBeGreaterThan(359.5);
    expect(firstNew).toBeLessThan(361);
  });

  it('with --events the change reaches the provider within the 5 s event window (plus the 1 s tick)', () => {
    const { ctx, controller, setDesired, served } = setup({ events: true });
    controller.start();
    ctx.sched.runUntil(atSeconds(0.5));
    setDesired([{ name: 'api.example.com', targets: [{ ip: NEW_IP, terminating: false }] }]);
    ctx.sched.runUntil(atSeconds(5.4));
    expect(served()).toEqual([OLD_IP]);
    ctx.sched.runUntil(atSeconds(6));
    expect(served()).toEqual([NEW_IP]);
  });

  it('without --events informer events change nothing before the interval', () => {
    const { ctx, controller, setDesired, served } = setup();
    controller.start();
    ctx.sched.runUntil(atSeconds(0.5));
    setDesired([{ name: 'api.example.com', targets: [{ ip: NEW_IP, terminating: false }] }]);
    ctx.sched.runUntil(atSeconds(59.9));
    expect(served()).toEqual([OLD_IP]);
  });

  it('events never bring a run closer than min-event-sync-interval after the last one', () => {
    const { ctx, controller, setDesired } = setup({ events: true, minEventSyncInterval: seconds(30) });
    controller.start();
    ctx.sched.runUntil(atSeconds(1));
    setDesired([]);
    expect(controller.nextRun).toBe(atSeconds(30));
  });

  it('submits more than 1000 changes in batches 1 s apart', () => {
    const { ctx, controller, provider, setDesired } = setup();
    setDesired(Array.from({ length: 2500 }, (_, i) => ({ name: `h${i}.example.com`, targets: [{ ip: OLD_IP + i, terminating: false }] })));
    controller.start();
    const count = () => provider.listRecordSets().ok && provider.listRecordSets();
    ctx.sched.runUntil(atSeconds(0.5));
    expect((count() as { value: unknown[] }).value).toHaveLength(1000);
    ctx.sched.runUntil(atSeconds(1.5));
    expect((count() as { value: unknown[] }).value).toHaveLength(2000);
    ctx.sched.runUntil(atSeconds(2.5));
    expect((count() as { value: unknown[] }).value).toHaveLength(2500);
    expect(ctx.metrics.counter('external_dns.changes').total).toBe(2500);
  });

  it('removeOnTerminating: a terminating pod’s address goes at the next run, otherwise only once the pod is deleted', () => {
    for (const removeOnTerminating of [true, false]) {
      const { ctx, controller, setDesired, served } = setup({ removeOnTerminating });
      setDesired([
        {
          name: 'api.example.com',
          targets: [
            { ip: OLD_IP, terminating: false },
            { ip: NEW_IP, terminating: false },
          ],
        },
      ]);
      controller.start();
      ctx.sched.runUntil(atSeconds(1));
      setDesired([
        {
          name: 'api.example.com',
          targets: [
            { ip: OLD_IP, terminating: true },
            { ip: NEW_IP, terminating: false },
          ],
        },
      ]);
      ctx.sched.runUntil(atSeconds(61));
      expect(served()).toEqual(removeOnTerminating ? [NEW_IP] : [OLD_IP, NEW_IP]);
      setDesired([{ name: 'api.example.com', targets: [{ ip: NEW_IP, terminating: false }] }]);
      ctx.sched.runUntil(atSeconds(121));
      expect(served()).toEqual([NEW_IP]);
    }
  });

  it('policy sync deletes records no longer desired; upsert-only keeps them', () => {
    for (const policy of ['sync', 'upsert-only'] as const) {
      const { ctx, controller, setDesired, served } = setup({ policy });
      controller.start();
      ctx.sched.runUntil(atSeconds(1));
      setDesired([]);
      ctx.sched.runUntil(atSeconds(61));
      expect(served()).toEqual(policy === 'sync' ? undefined : [OLD_IP]);
    }
  });

  it('leaves records it does not own alone', () => {
    const { ctx, controller, provider, served } = setup();
    provider.changeRecordSets([{ action: 'CREATE', record: { name: 'api.example.com', addresses: [NEW_IP], ttl: 60, owner: null } }]);
    controller.start();
    ctx.sched.runUntil(atSeconds(1));
    expect(served()).toEqual([NEW_IP]);
  });

  it('a throttled run changes nothing and is tried again at the next interval', () => {
    const { ctx, controller, provider, served } = setup({}, { apiRatePerSecond: 1 / 30, apiBurst: 2 });
    // Another client has just used up the account's tokens.
    provider.listRecordSets();
    provider.listRecordSets();
    controller.start();
    ctx.sched.runUntil(atSeconds(1));
    expect(served()).toBeUndefined();
    expect(ctx.metrics.counter('external_dns.errors').total).toBe(1);
    expect(ctx.log.since(0).some((e) => e.kind === 'external_dns.run_failed')).toBe(true);
    ctx.sched.runUntil(atSeconds(61));
    expect(served()).toEqual([OLD_IP]);
  });

  it('a throttled batch is retried record by record, and what still fails is done by the next run', () => {
    const { ctx, controller, provider, setDesired } = setup({}, { apiRatePerSecond: 1 / 10, apiBurst: 6 });
    // Leave two tokens: one for the listing and one for the first batch.
    for (let i = 0; i < 4; i++) provider.listRecordSets();
    setDesired(Array.from({ length: 1001 }, (_, i) => ({ name: `h${i}.example.com`, targets: [{ ip: OLD_IP + i, terminating: false }] })));
    controller.start();
    ctx.sched.runUntil(atSeconds(2));
    expect(provider.servedRecord('h0.example.com')).toBeDefined();
    expect(provider.servedRecord('h1000.example.com')).toBeUndefined();
    expect(ctx.log.since(0).some((e) => e.kind === 'external_dns.batch_failed')).toBe(true);
    ctx.sched.runUntil(atSeconds(61));
    expect(provider.servedRecord('h1000.example.com')).toBeDefined();
  });

  it('runs every interval, checking once a second', () => {
    const { ctx, controller } = setup({ interval: seconds(15) });
    controller.start();
    ctx.sched.runUntil(atSeconds(60.000001));
    expect(ctx.metrics.counter('external_dns.runs').total).toBe(5);
  });
});

describe('external-dns controller lifecycle', () => {
  it('a stopped controller publishes nothing until started again', () => {
    const { ctx, controller, setDesired, served } = setup();
    controller.start();
    ctx.sched.runUntil(atSeconds(1));
    controller.stop();
    setDesired([{ name: 'api.example.com', targets: [{ ip: NEW_IP, terminating: false }] }]);
    ctx.sched.runUntil(atSeconds(120));
    expect(served()).toEqual([OLD_IP]);
    controller.start();
    ctx.sched.runUntil(atSeconds(121));
    expect(served()).toEqual([NEW_IP]);
    expect(ctx.metrics.counter('external_dns.runs').total).toBe(2);
  });
});
