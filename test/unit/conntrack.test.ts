import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atSeconds, type SimTime } from '../../src/sim/core/time';
import { ConntrackTable, CtState, KERNEL_TIMEOUTS, KUBE_PROXY_TIMEOUTS, kubeProxyConntrackMax } from '../../src/sim/net/conntrack';

const TCP = 6;
const UDP = 17;

describe('conntrack defaults (docs/sources/linux-conntrack.md)', () => {
  it('vector 5: kube-proxy sizes the table max(131072, 32768 × cores)', () => {
    expect(kubeProxyConntrackMax(8)).toBe(262_144);
    expect(kubeProxyConntrackMax(2)).toBe(131_072);
  });

  it('has the kernel timeouts and kube-proxy overrides', () => {
    expect(KERNEL_TIMEOUTS.synSent).toBe(120);
    expect(KERNEL_TIMEOUTS.established).toBe(432_000);
    expect(KERNEL_TIMEOUTS.close).toBe(10);
    expect(KERNEL_TIMEOUTS.udpUnreplied).toBe(30);
    expect(KUBE_PROXY_TIMEOUTS.established).toBe(86_400);
    expect(KUBE_PROXY_TIMEOUTS.closeWait).toBe(3_600);
  });
});

describe('conntrack table', () => {
  it('finds an entry from both directions and tells which one created it', () => {
    const t = new ConntrackTable(16);
    const id = t.insert(TCP, 1, 40000, 2, 80, CtState.synSent, atSeconds(0));
    expect(t.lookup(TCP, 1, 40000, 2, 80, atSeconds(1))).toBe(id);
    expect(t.lookup(TCP, 2, 80, 1, 40000, atSeconds(1))).toBe(id);
    expect(t.isReply(id, 2, 80)).toBe(true);
    expect(t.isReply(id, 1, 40000)).toBe(false);
    expect(t.lookup(UDP, 1, 40000, 2, 80, atSeconds(1))).toBe(-1);
    expect(t.lookup(TCP, 1, 40001, 2, 80, atSeconds(1))).toBe(-1);
  });

  it('expires entries on their state timeout, and a state change restarts it', () => {
    const t = new ConntrackTable(16);
    const id = t.insert(TCP, 1, 40000, 2, 80, CtState.synSent, atSeconds(0));
    expect(t.expiresAt(id)).toBe(atSeconds(120));
    t.update(id, CtState.established, atSeconds(10));
    expect(t.expiresAt(id)).toBe(atSeconds(432_010));
    const udp = t.insert(UDP, 3, 5353, 4, 53, CtState.udpUnreplied, atSeconds(0));
    expect(t.expire(atSeconds(29.9))).toBe(0);
    expect(t.expire(atSeconds(30))).toBe(1);
    expect(t.lookup(UDP, 3, 5353, 4, 53, atSeconds(30))).toBe(-1);
    expect(udp).toBeGreaterThanOrEqual(0);
    expect(t.size).toBe(1);
  });

  it('refuses new flows when full and takes them again once an entry goes', () => {
    const t = new ConntrackTable(3);
    for (let port = 1; port <= 3; port++) expect(t.insert(TCP, 1, port, 2, 80, CtState.synSent, atSeconds(0))).toBeGreaterThanOrEqual(0);
    expect(t.full).toBe(true);
    expect(t.insert(TCP, 1, 4, 2, 80, CtState.synSent, atSeconds(0))).toBe(-1);
    t.remove(t.lookup(TCP, 1, 2, 2, 80, atSeconds(0)));
    expect(t.insert(TCP, 1, 4, 2, 80, CtState.synSent, atSeconds(0))).toBeGreaterThanOrEqual(0);
    expect(t.lookup(TCP, 1, 1, 2, 80, atSeconds(0))).toBeGreaterThanOrEqual(0);
    expect(t.lookup(TCP, 1, 3, 2, 80, atSeconds(0))).toBeGreaterThanOrEqual(0);
  });

  it('holds anonymous entries that count, expire and are reclaimed like kept ones, but that no lookup finds', () => {
    const t = new ConntrackTable(3);
    const kept = t.insert(TCP, 1, 1, 2, 80, CtState.synSent, atSeconds(0));
    const a = t.insertAnonymous(TCP, 5, 40000, 2, 80, 2, 80, 5, 40000, CtState.synSent, atSeconds(1));
    const b = t.insertAnonymous(TCP, 5, 40001, 2, 80, 2, 80, 5, 40001, CtState.synSent, atSeconds(1));
    expect(t.size).toBe(3);
    expect(t.full).toBe(true);
    expect(t.insert(TCP, 1, 4, 2, 80, CtState.synSent, atSeconds(2))).toBe(-1);
    expect(t.lookup(TCP, 5, 40000, 2, 80, atSeconds(2))).toBe(-1);
    expect(t.holds(a, t.incarnationOf(a))).toBe(true);
    // Its own reply moves it on by id, as a lookup's would: a reset closes it for 10 s.
    t.update(a, CtState.close, atSeconds(3));
    expect(t.expiresAt(a)).toBe(atSeconds(13));
    // Promoted, it is hashed: lookups find it from both ends.
    t.promote(b);
    expect(t.lookup(TCP, 2, 80, 5, 40001, atSeconds(4))).toBe(b);
    expect(t.holds(b, t.incarnationOf(b))).toBe(false);
    // Once a's CLOSE is over, a full table reclaims its id for the next flow, which gets a new incarnation.
    const before = t.incarnationOf(a);
    const c = t.insert(TCP, 1, 5, 2, 80, CtState.synSent, atSeconds(14));
    expect(c).toBe(a);
    expect(t.incarnationOf(c)).toBe(before + 1);
    expect(t.lookup(TCP, 1, 1, 2, 80, atSeconds(14))).toBe(kept);
  });

  it('fills, drains and refuses exactly alike whether a flow is kept or anonymous', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ anon: fc.boolean(), gap: fc.integer({ min: 0, max: 20 }), close: fc.boolean() }), { maxLength: 200 }), (ops) => {
        const kept = new ConntrackTable(16);
        const mixed = new ConntrackTable(16);
        let now = 0;
        ops.forEach(({ anon, gap, close }, port) => {
          now += gap;
          const t = atSeconds(now) as SimTime;
          const k = kept.insert(TCP, 1, port, 2, 80, CtState.synSent, t);
          const m = anon ? mixed.insertAnonymous(TCP, 1, port, 2, 80, 2, 80, 1, port, CtState.synSent, t) : mixed.insert(TCP, 1, port, 2, 80, CtState.synSent, t);
          expect(m).toBe(k);
          if (close && k >= 0) {
            kept.update(k, CtState.close, t);
            mixed.update(m, CtState.close, t);
          }
          if (port % 7 === 0) {
            kept.sweep(t, 5);
            mixed.sweep(t, 5);
          }
          expect(mixed.size).toBe(kept.size);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('matches a Map model under random inserts, lookups, removals and expiry, and never exceeds its limit', () => {
    type Op = { kind: 'insert' | 'lookup' | 'remove' | 'advance'; flow: number; seconds: number };
    const op = fc.record({
      kind: fc.constantFrom<Op['kind']>('insert', 'insert', 'lookup', 'remove', 'advance'),
      flow: fc.integer({ min: 0, max: 40 }),
      seconds: fc.integer({ min: 1, max: 40 }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const max = 24;
        const table = new ConntrackTable(max);
        const model = new Map<number, number>();
        let now = 0;
        // Flows collide on purpose: few addresses and ports, both protocols.
        const tuple = (f: number) => [f % 2 ? UDP : TCP, 10 + (f % 5), 1000 + (f % 7), 20 + (f % 3), 53] as const;
        for (const { kind, flow, seconds } of ops) {
          const [proto, sip, sport, dip, dport] = tuple(flow);
          const key = (proto * 100 + sip) * 10_000 + sport * 10 + dip;
          const t = atSeconds(now) as SimTime;
          for (const [k, expiresAt] of model) if (expiresAt <= now) model.delete(k);
          const found = table.lookup(proto, sip, sport, dip, dport, t);
          expect(found >= 0).toBe(model.has(key));
          if (kind === 'insert' && found < 0) {
            const id = table.insert(proto, sip, sport, dip, dport, proto === UDP ? CtState.udpUnreplied : CtState.synSent, t);
            if (model.size < max) {
              expect(id).toBeGreaterThanOrEqual(0);
              model.set(key, now + (proto === UDP ? 30 : 120));
            }
          } else if (kind === 'remove' && found >= 0) {
            table.remove(found);
            model.delete(key);
          } else if (kind === 'advance') {
            now += seconds;
            table.expire(atSeconds(now) as SimTime);
          }
          expect(table.size).toBeLessThanOrEqual(max);
        }
      }),
      { numRuns: 300 },
    );
  });
});
