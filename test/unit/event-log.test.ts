import { describe, expect, it } from 'vitest';
import { EventLog } from '../../src/sim/core/event-log';
import type { LogEvent } from '../../src/sim/api';
import type { SimTime } from '../../src/sim/core/time';

const ev = (i: number, kind: string): Omit<LogEvent, 'seq'> => ({
  t: (i * 1000) as SimTime,
  severity: 'info',
  entity: `pod/web-${i}`,
  kind,
  message: `event ${i}`,
});

describe('EventLog', () => {
  it('numbers events from 0 and returns them with their fields', () => {
    const log = new EventLog();
    const first = log.add({ ...ev(0, 'pod.deleted'), reason: 'evicted', cause: 'node/a' });
    const second = log.add(ev(1, 'tcp.reset'));
    expect(first).toEqual({ ...ev(0, 'pod.deleted'), reason: 'evicted', cause: 'node/a', seq: 0 });
    expect(second.seq).toBe(1);
    expect(log.total).toBe(2);
    expect(log.since(0)).toEqual([first, second]);
    expect(log.since(1)).toEqual([second]);
    expect(log.since(2)).toEqual([]);
    expect(log.since(-5)).toEqual([first, second]);
  });

  it('holds only the latest capacity events but counts every kind ever added', () => {
    const log = new EventLog(3);
    const kinds = ['tcp.reset', 'dns.refused', 'tcp.reset', 'pod.deleted', 'tcp.reset'];
    kinds.forEach((k, i) => log.add(ev(i, k)));
    expect(log.total).toBe(5);
    expect(log.since(0).map((e) => e.seq)).toEqual([2, 3, 4]);
    expect(log.since(3).map((e) => e.kind)).toEqual(['pod.deleted', 'tcp.reset']);
    const counts = log.countsByKind();
    expect(counts).toEqual({ 'dns.refused': 1, 'pod.deleted': 1, 'tcp.reset': 3 });
    expect(Object.keys(counts)).toEqual(['dns.refused', 'pod.deleted', 'tcp.reset']);
  });

  it('stays bounded over many events', () => {
    const log = new EventLog(10);
    for (let i = 0; i < 10_000; i++) log.add(ev(i, i % 2 ? 'a' : 'b'));
    const held = log.since(0);
    expect(held.length).toBe(10);
    expect(held[0]!.seq).toBe(9_990);
    expect(log.countsByKind()).toEqual({ a: 5_000, b: 5_000 });
    expect(() => new EventLog(0)).toThrow(RangeError);
  });
});
