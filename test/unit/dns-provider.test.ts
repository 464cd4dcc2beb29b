import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/sim/context';
import { atSeconds, seconds } from '../../src/sim/core/time';
import { DnsProvider, ROUTE53_DEFAULTS, type DnsProviderOptions, type RecordSet } from '../../src/sim/dns/dns-provider';
import { ipv4 } from '../../src/sim/net/ipv4';
import { FakeDnsTransport, RawDnsClient } from '../fixtures/fake-dns-transport';

const PROVIDER_IP = ipv4('10.0.0.2');
const A = ipv4('52.0.0.1');
const B = ipv4('52.0.0.2');

function setup(overrides: Partial<DnsProviderOptions> = {}) {
  const ctx = createContext(9);
  const transport = new FakeDnsTransport(ctx);
  const provider = new DnsProvider(ctx, transport, { ...ROUTE53_DEFAULTS, ...overrides });
  transport.listen(9, PROVIDER_IP, provider);
  const client = new RawDnsClient(ctx, transport, 1);
  return { ctx, provider, client };
}

const record = (name: string, addresses: number[], ttl = 300): RecordSet => ({ name, addresses, ttl, owner: 'default' });

describe('DNS provider (Route 53-like, docs/sources/dns.md#route-53)', () => {
  it('serves upserted records with their TTL, NXDOMAIN for others, and stops serving deleted ones', () => {
    const { ctx, provider, client } = setup();
    expect(provider.changeRecordSets([{ action: 'UPSERT', record: record('api.example.com', [A]) }]).ok).toBe(true);
    const found = client.ask(PROVIDER_IP, 'api.example.com');
    const missing = client.ask(PROVIDER_IP, 'other.example.com');
    ctx.sched.runUntil(atSeconds(1));
    expect(found.answer).toMatchObject({ rcode: 'NOERROR', addresses: [A], ttl: 300 });
    expect(missing.answer).toMatchObject({ rcode: 'NXDOMAIN', ttl: 900 });
    expect(provider.changeRecordSets([{ action: 'DELETE', record: record('api.example.com', [A]) }]).ok).toBe(true);
    const deleted = client.ask(PROVIDER_IP, 'api.example.com');
    ctx.sched.runUntil(atSeconds(2));
    expect(deleted.answer?.rcode).toBe('NXDOMAIN');
  });

  it('applies a change batch all or nothing', () => {
    const { provider } = setup();
    provider.changeRecordSets([{ action: 'CREATE', record: record('a.example.com', [A]) }]);
    const result = provider.changeRecordSets([
      { action: 'CREATE', record: record('b.example.com', [B]) },
      { action: 'CREATE', record: record('a.example.com', [B]) },
    ]);
    expect(result).toMatchObject({ ok: false, error: 'InvalidChangeBatch' });
    expect(provider.servedRecord('b.example.com')).toBeUndefined();
    expect(provider.changeRecordSets([{ action: 'DELETE', record: record('a.example.com', [B]) }]).ok).toBe(false);
  });

  it('throttles API calls with a token bucket of 50 refilled at 10/s', () => {
    const { ctx, provider } = setup();
    let accepted = 0;
    for (let i = 0; i < 60; i++) if (provider.changeRecordSets([{ action: 'UPSERT', record: record(`r${i}.example.com`, [A]) }]).ok) accepted++;
    expect(accepted).toBe(50);
    expect(provider.listRecordSets()).toMatchObject({ ok: false, error: 'Throttling' });
    ctx.sched.runUntil(atSeconds(1));
    accepted = 0;
    for (let i = 0; i < 20; i++) if (provider.listRecordSets().ok) accepted++;
    expect(accepted).toBe(10);
    expect(ctx.metrics.counter('dns.provider.throttled').total).toBe(21);
  });

  it('lists a page of 300 record sets per API call', () => {
    const { ctx, provider } = setup({ apiBurst: 1000 });
    const batch = Array.from({ length: 700 }, (_, i) => ({ action: 'CREATE' as const, record: record(`r${i}.example.com`, [A]) }));
    provider.changeRecordSets(batch);
    const before = ctx.metrics.counter('dns.provider.api_calls').total;
    expect(provider.listRecordSets()).toMatchObject({ ok: true });
    expect(ctx.metrics.counter('dns.provider.api_calls').total - before).toBe(3);
  });

  it('with a propagation delay a change is PENDING and not yet served, then INSYNC', () => {
    const { ctx, provider, client } = setup({ propagationDelay: seconds(60) });
    const change = provider.changeRecordSets([{ action: 'UPSERT', record: record('api.example.com', [A]) }]);
    if (!change.ok) throw new Error(change.message);
    const early = client.ask(PROVIDER_IP, 'api.example.com');
    ctx.sched.runUntil(atSeconds(59));
    expect(provider.getChange(change.value)).toBe('PENDING');
    expect(provider.listRecordSets()).toMatchObject({ ok: true, value: [{ name: 'api.example.com' }] });
    ctx.sched.runUntil(atSeconds(60));
    const late = client.ask(PROVIDER_IP, 'api.example.com');
    ctx.sched.runUntil(atSeconds(61));
    expect(provider.getChange(change.value)).toBe('INSYNC');
    expect(early.answer?.rcode).toBe('NXDOMAIN');
    expect(late.answer?.addresses).toEqual([A]);
  });

  it('refuses names outside its hosted zones', () => {
    const { ctx, client } = setup({ zones: ['example.com'] });
    const outside = client.ask(PROVIDER_IP, 'example.org');
    const inside = client.ask(PROVIDER_IP, 'x.example.com');
    ctx.sched.runUntil(atSeconds(1));
    expect(outside.answer?.rcode).toBe('REFUSED');
    expect(inside.answer?.rcode).toBe('NXDOMAIN');
  });
});
