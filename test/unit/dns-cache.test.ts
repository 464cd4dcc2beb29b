import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/sim/core/metrics';
import { atSeconds } from '../../src/sim/core/time';
import { CACHE_PLUGIN_DEFAULTS, cacheCappedAt, DnsCache, NODELOCAL_CLUSTER_ZONE_CACHE, type CacheSettings } from '../../src/sim/dns/dns-cache';
import { MessageIds, newAnswer, newQuery, type Rcode } from '../../src/sim/dns/message';

const IP = 0x0a000001;

function cache(settings: CacheSettings) {
  const metrics = new Metrics();
  const ids = new MessageIds();
  const c = new DnsCache(settings, {
    hits: metrics.counter('hits'),
    misses: metrics.counter('misses'),
    entries: metrics.gauge('entries'),
  });
  const put = (name: string, rcode: Rcode, ttl: number, at = 0) => c.store(newAnswer(ids, newQuery(ids, name), rcode, rcode === 'NOERROR' ? [IP] : [], ttl), atSeconds(at));
  const get = (name: string, at: number) => c.lookup(ids, newQuery(ids, name), atSeconds(at));
  /** Seconds the entry is served for, probing at 0.1 s steps. */
  const lifetime = (name: string) => {
    let t = 0;
    while (get(name, t + 0.1) !== undefined) t += 0.1;
    return Math.round(t + 0.1);
  };
  return { c, put, get, lifetime, metrics };
}

describe('cache plugin (docs/sources/dns.md#cache-plugin)', () => {
  it('`cache 30` caps a 300 s record at 30 s and never extends a shorter TTL', () => {
    const { put, lifetime } = cache(cacheCappedAt(30));
    put('long.example.com', 'NOERROR', 300);
    put('short.example.com', 'NOERROR', 12);
    expect(lifetime('long.example.com')).toBe(30);
    expect(lifetime('short.example.com')).toBe(12);
  });

  it('node-local’s cluster zone keeps positives 30 s and denials 5 s', () => {
    const { put, lifetime } = cache(NODELOCAL_CLUSTER_ZONE_CACHE);
    put('web.default.svc.cluster.local', 'NOERROR', 30);
    put('x.svc.cluster.local', 'NXDOMAIN', 30);
    expect(lifetime('web.default.svc.cluster.local')).toBe(30);
    expect(lifetime('x.svc.cluster.local')).toBe(5);
  });

  it('raises TTLs below the 5 s minimum, and by default caps at 3600 s and 1800 s for denials', () => {
    const { put, get } = cache(CACHE_PLUGIN_DEFAULTS);
    put('tiny.example.com', 'NOERROR', 1);
    put('huge.example.com', 'NOERROR', 86_400);
    put('gone.example.com', 'NXDOMAIN', 86_400);
    expect(get('tiny.example.com', 4.9)).toBeDefined();
    expect(get('huge.example.com', 3599)).toBeDefined();
    expect(get('huge.example.com', 3600.1)).toBeUndefined();
    expect(get('gone.example.com', 1799)).toBeDefined();
    expect(get('gone.example.com', 1800.1)).toBeUndefined();
  });

  it('keeps SERVFAIL 5 s and never keeps REFUSED', () => {
    const { put, get, lifetime } = cache(cacheCappedAt(30));
    put('broken.example.com', 'SERVFAIL', 0);
    put('refused.example.com', 'REFUSED', 0);
    expect(lifetime('broken.example.com')).toBe(5);
    expect(get('refused.example.com', 0)).toBeUndefined();
  });

  it('serves the TTL an entry has left', () => {
    const { put, get } = cache(cacheCappedAt(30));
    put('web.example.com', 'NOERROR', 300);
    expect(get('web.example.com', 0)!.ttl).toBe(30);
    expect(get('web.example.com', 20.5)!.ttl).toBe(10);
    expect(get('web.example.com', 29.5)!.ttl).toBe(1);
  });

  it('holds at most its capacity per type, evicting the oldest entry', () => {
    const { c, put, get, metrics } = cache({ ...CACHE_PLUGIN_DEFAULTS, successCapacity: 3 });
    for (let i = 0; i < 5; i++) put(`h${i}.example.com`, 'NOERROR', 60);
    put('x.example.com', 'NXDOMAIN', 60);
    expect(c.size).toBe(4);
    expect(get('h0.example.com', 1)).toBeUndefined();
    expect(get('h4.example.com', 1)).toBeDefined();
    expect(metrics.gauge('entries').value).toBe(4);
  });

  it('a new answer for a name replaces the old one', () => {
    const { c, put, get } = cache(cacheCappedAt(30));
    put('flip.example.com', 'NOERROR', 30);
    put('flip.example.com', 'NXDOMAIN', 30, 1);
    expect(get('flip.example.com', 2)!.rcode).toBe('NXDOMAIN');
    expect(c.size).toBe(1);
  });
});
