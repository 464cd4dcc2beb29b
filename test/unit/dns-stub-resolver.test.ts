import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/sim/context';
import { atSeconds, seconds, toSeconds } from '../../src/sim/core/time';
import type { Rcode } from '../../src/sim/dns/message';
import { podResolvConf, searchCandidates, StubResolver, type LookupError } from '../../src/sim/dns/stub-resolver';
import { ipv4 } from '../../src/sim/net/ipv4';
import { FakeDnsTransport, scriptedServer } from '../fixtures/fake-dns-transport';

const NS1 = ipv4('169.254.20.10');
const NS2 = ipv4('10.96.0.10');
const EXTERNAL_IP = ipv4('52.1.2.3');

interface Result {
  addresses?: readonly number[];
  error?: LookupError;
  at: number;
}

function setup(nameservers = [NS1]) {
  const ctx = createContext(5);
  const transport = new FakeDnsTransport(ctx);
  const stub = new StubResolver(ctx, transport);
  const conf = podResolvConf('default', nameservers);
  const results: Result[] = [];
  const receiver = {
    onResolved: (token: number, addresses: readonly number[]) => (results[token] = { addresses, at: toSeconds(ctx.sched.now) }),
    onLookupFailed: (token: number, error: LookupError) => (results[token] = { error, at: toSeconds(ctx.sched.now) }),
  };
  const resolve = (name: string) => stub.lookup(7, conf, name, receiver, results.push({ at: -1 }) - 1);
  const serve = (ip: number, reply: (name: string) => { rcode: Rcode; addresses?: number[] } | null) =>
    transport.listen(
      1,
      ip,
      scriptedServer(transport, (q) => reply(q.name)),
    );
  const asked = (ip: number) => transport.deliveredTo(ip).map((q) => q.name);
  const queries = () => ctx.metrics.counter('dns.client.queries').total;
  return { ctx, transport, conf, results, resolve, serve, asked, queries };
}

describe('search list and ndots (docs/sources/dns.md#pod-resolver)', () => {
  const conf = podResolvConf('shop', [NS1]);

  it('builds the pod search list for its namespace, with ndots:5, timeout 5 s and 2 attempts', () => {
    expect(conf.search).toEqual(['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local']);
    expect(conf).toMatchObject({ ndots: 5, timeout: seconds(5), attempts: 2 });
  });

  it('tries a name with fewer dots than ndots with each search suffix first, then as is', () => {
    expect(searchCandidates('api.example.com', conf)).toEqual([
      'api.example.com.shop.svc.cluster.local',
      'api.example.com.svc.cluster.local',
      'api.example.com.cluster.local',
      'api.example.com',
    ]);
  });

  it('tries a name with at least ndots dots as is first, and a name ending in a dot only as is', () => {
    expect(searchCandidates('a.b.c.d.e.f', conf)[0]).toBe('a.b.c.d.e.f');
    expect(searchCandidates('a.b.c.d.e.f', conf)).toHaveLength(4);
    expect(searchCandidates('api.example.com.', conf)).toEqual(['api.example.com']);
  });
});

describe('stub resolver lookups', () => {
  it('an external name costs a query per search suffix before the one that answers', () => {
    const s = setup();
    s.serve(NS1, (name) => (name === 'api.example.com' ? { rcode: 'NOERROR', addresses: [EXTERNAL_IP] } : { rcode: 'NXDOMAIN' }));
    s.resolve('api.example.com');
    s.ctx.sched.runUntil(atSeconds(1));
    expect(s.asked(NS1)).toEqual(['api.example.com.default.svc.cluster.local', 'api.example.com.svc.cluster.local', 'api.example.com.cluster.local', 'api.example.com']);
    expect(s.results[0]!.addresses).toEqual([EXTERNAL_IP]);
    expect(s.queries()).toBe(4);
  });

  it('a Service name resolves with its first suffix', () => {
    const s = setup();
    s.serve(NS1, (name) => (name === 'web.default.svc.cluster.local' ? { rcode: 'NOERROR', addresses: [ipv4('10.96.1.1')] } : { rcode: 'NXDOMAIN' }));
    s.resolve('web');
    s.ctx.sched.runUntil(atSeconds(1));
    expect(s.asked(NS1)).toEqual(['web.default.svc.cluster.local']);
    expect(s.results[0]!.addresses).toEqual([ipv4('10.96.1.1')]);
  });

  it('gives up after attempts × timeout = 2 × 5 s when the only nameserver is silent', () => {
    const s = setup();
    s.serve(NS1, () => null);
    s.resolve('api.example.com');
    s.ctx.sched.runUntil(atSeconds(30));
    expect(s.results[0]).toEqual({ error: 'timeout', at: 10 });
    expect(s.queries()).toBe(2);
    expect(s.ctx.metrics.counter('dns.client.failures', { reason: 'timeout' }).total).toBe(1);
  });

  it('rounds over two silent nameservers twice before giving up (4 tries, 20 s)', () => {
    const s = setup([NS1, NS2]);
    s.serve(NS1, () => null);
    s.serve(NS2, () => null);
    s.resolve('web');
    s.ctx.sched.runUntil(atSeconds(30));
    expect(s.results[0]).toEqual({ error: 'timeout', at: 20 });
    expect(s.asked(NS1)).toHaveLength(2);
    expect(s.asked(NS2)).toHaveLength(2);
  });

  it('moves on to the next nameserver at once after REFUSED or SERVFAIL', () => {
    for (const rcode of ['REFUSED', 'SERVFAIL'] as const) {
      const s = setup([NS1, NS2]);
      s.serve(NS1, () => ({ rcode }));
      s.serve(NS2, () => ({ rcode: 'NOERROR', addresses: [EXTERNAL_IP] }));
      s.resolve('api.example.com.');
      s.ctx.sched.runUntil(atSeconds(1));
      expect(s.results[0]!.addresses).toEqual([EXTERNAL_IP]);
      expect(s.results[0]!.at).toBeLessThan(0.01);
    }
  });

  it('fails with refused when every try is refused, and stops the search there', () => {
    const s = setup([NS1, NS2]);
    s.serve(NS1, () => ({ rcode: 'REFUSED' }));
    s.serve(NS2, () => ({ rcode: 'REFUSED' }));
    s.resolve('api.example.com');
    s.ctx.sched.runUntil(atSeconds(1));
    expect(s.results[0]!.error).toBe('refused');
    expect(s.queries()).toBe(4);
  });

  it('goes on down the search list after SERVFAIL, and reports servfail if nothing answers', () => {
    const s = setup();
    s.serve(NS1, () => ({ rcode: 'SERVFAIL' }));
    s.resolve('api.example.com');
    s.ctx.sched.runUntil(atSeconds(1));
    expect(s.results[0]!.error).toBe('servfail');
    expect(s.queries()).toBe(8);
  });

  it('reports nxdomain when every candidate is NXDOMAIN', () => {
    const s = setup();
    s.serve(NS1, () => ({ rcode: 'NXDOMAIN' }));
    s.resolve('nope');
    s.ctx.sched.runUntil(atSeconds(1));
    expect(s.results[0]!.error).toBe('nxdomain');
    expect(s.asked(NS1)).toHaveLength(4);
  });

  it('takes a late answer to the first try while waiting on the retry, as the retry reuses the query id', () => {
    const s = setup();
    s.serve(NS1, () => ({ rcode: 'NOERROR', addresses: [EXTERNAL_IP] }));
    s.transport.setPath(NS1, { latency: seconds(3) });
    s.resolve('api.example.com.');
    s.ctx.sched.runUntil(atSeconds(20));
    expect(s.results[0]).toEqual({ addresses: [EXTERNAL_IP], at: 6 });
  });

  it('moves on at once when the nameserver port is unreachable', () => {
    const s = setup([NS1, NS2]);
    s.serve(NS2, () => ({ rcode: 'NOERROR', addresses: [EXTERNAL_IP] }));
    s.resolve('api.example.com.');
    s.ctx.sched.runUntil(atSeconds(1));
    expect(s.results[0]!.addresses).toEqual([EXTERNAL_IP]);
  });
});
