import { describe, expect, it } from 'vitest';
import type { SimContext } from '../../src/sim/context';
import { atSeconds } from '../../src/sim/core/time';
import { packetsOf, type Registration, type ZkReader, type ZkWatcher } from '../../src/sim/discovery/zookeeper';
import type { World } from '../../src/sim/world';
import { meshScenario } from '../fixtures/mesh-scenario';
import type { ParamsInput, ScenarioDraft } from '../fixtures/scenario-builder';
import { worldOf } from '../fixtures/scenario-run';

interface Shape {
  backends: number;
  clients: number;
  zkServers?: number;
  params?: ParamsInput;
}

/** `clients` mesh-client pods using `search`, served by `backends` nerve-announced mesh-server pods. */
function scenario({ backends, clients, zkServers = 3, params = {} }: Shape, edit?: (draft: ScenarioDraft) => void): string {
  return meshScenario({ id: 'zk', nodes: 3, zkServers, backends, clients, params }, edit);
}

const at = (ctx: SimContext, s: number) => ctx.sched.runUntil(atSeconds(s));
const total = (ctx: SimContext, name: string) => ctx.metrics.counter(name).total;
const podOf = (w: World, r: Registration) => w.workloads.pods[r.pod]!;

describe('ZooKeeper read load per membership change (docs/sources/service-discovery.md#zookeeper-reads, #load-formulas)', () => {
  // watchers × backends: every combination costs watchers × (1 + N) reads with N the children after the change.
  it.each([
    [4, 10],
    [4, 30],
    [10, 10],
    [10, 30],
    [25, 10],
    [25, 30],
  ])('%i watchers, %i backends: one backend added costs watchers × (1 + N + 1) reads', (watchers, backends) => {
    const { ctx, w } = worldOf(scenario({ backends, clients: watchers }));
    const zk = w.mesh!.zk;
    at(ctx, 1);
    expect(zk.children('search')).toHaveLength(backends);
    // Pods running at the start took their list before the run: no read is counted for them.
    expect(total(ctx, 'zk.reads')).toBe(0);
    const changes = zk.changes('search');
    w.workloads.scale('search', backends + 1, 'test');
    at(ctx, 6);
    expect(zk.children('search')).toHaveLength(backends + 1);
    expect(zk.changes('search') - changes).toBe(1);
    expect(total(ctx, 'zk.watch.notifications')).toBe(watchers);
    expect(total(ctx, 'zk.reads')).toBe(watchers * (1 + backends + 1));
    expect(zk.readsFor('search')).toBe(watchers * (1 + backends + 1));
    // Unsaturated: nothing was dropped, so the count is the formula and nothing more.
    expect(total(ctx, 'zk.packets.dropped')).toBe(0);
    // Every watcher ended with the new list.
    for (const watcher of w.mesh!.clients.watchers.of('search')) expect(watcher.list).toHaveLength(backends + 1);
  });

  it.each([
    [5, 20],
    [12, 40],
  ])('%i watchers, %i backends: one backend removed costs watchers × (1 + N − 1) reads', (watchers, backends) => {
    const { ctx, w } = worldOf(scenario({ backends, clients: watchers }));
    at(ctx, 1);
    const changes = w.mesh!.zk.changes('search');
    w.workloads.scale('search', backends - 1, 'test');
    at(ctx, 6);
    expect(w.mesh!.zk.changes('search') - changes).toBe(1);
    expect(total(ctx, 'zk.reads')).toBe(watchers * (1 + backends - 1));
  });

  it('vector 2: a watcher of 50 instances does 1 getChildren + 51 getData when one is added', () => {
    const { ctx, w } = worldOf(scenario({ backends: 50, clients: 1 }));
    at(ctx, 1);
    w.workloads.scale('search', 51, 'test');
    at(ctx, 6);
    expect(total(ctx, 'zk.reads')).toBe(52);
    expect(ctx.metrics.histogram('zk.read.seconds', [0.01, 0.1, 0.5, 1, 2, 5, 10, 30, 60]).count).toBe(1);
  });

  it('with single-roundtrip reads one change costs exactly one read per watcher', () => {
    const params: ParamsInput = { zookeeper: { read: 'single-roundtrip' } };
    for (const [watchers, backends] of [
      [6, 20],
      [15, 50],
    ] as const) {
      const { ctx, w } = worldOf(scenario({ backends, clients: watchers, params }));
      at(ctx, 1);
      const changes = w.mesh!.zk.changes('search');
      w.workloads.scale('search', backends + 1, 'test');
      at(ctx, 6);
      expect(w.mesh!.zk.changes('search') - changes).toBe(1);
      expect(total(ctx, 'zk.reads')).toBe(watchers);
      // Still the whole list: one request, not a shorter answer.
      for (const watcher of w.mesh!.clients.watchers.of('search')) expect(watcher.list).toHaveLength(backends + 1);
    }
  });
});

describe('one-shot child watches', () => {
  it('changes that land during a read cause exactly one more read per watcher, not one per change', () => {
    const watchers = 4;
    const backends = 20;
    // One server answering 40 requests/s: four reads of 21 requests take about 2 s together.
    const { ctx, w } = worldOf(scenario({ backends, clients: watchers, zkServers: 1, params: { zookeeper: { readsPerSecond: 40 } } }));
    const zk = w.mesh!.zk;
    const changes = zk.changes('search');
    // Four new backends, each registering 2 s after its scale-up: at 12.0, 12.5, 13.0 and 13.5 s.
    for (let i = 0; i < 4; i++) {
      at(ctx, 10 + i / 2);
      w.workloads.scale('search', backends + 1 + i, 'test');
    }
    at(ctx, 13.6);
    expect(zk.changes('search') - changes).toBe(4);
    // The first reads, started by the change at 12 s, are still running: slow enough for the later changes to land.
    expect(total(ctx, 'zk.reads')).toBe(0);
    at(ctx, 30);
    // The first change fires the watches; the second fires the watches the reads set again, while they still run;
    // the last two find no watch. So two notifications and two reads per watcher.
    expect(total(ctx, 'zk.watch.notifications')).toBe(2 * watchers);
    expect(ctx.metrics.histogram('zk.read.seconds', [0.01, 0.1, 0.5, 1, 2, 5, 10, 30, 60]).count).toBe(2 * watchers);
    // The first read listed 21 children, the second (started after the last change) 24.
    expect(total(ctx, 'zk.reads')).toBe(watchers * (1 + 21) + watchers * (1 + 24));
    for (const watcher of w.mesh!.clients.watchers.of('search')) expect(watcher.list).toHaveLength(24);
  });
});

describe('sessions and ephemeral registrations', () => {
  it('a partition longer than the session timeout expires the sessions: registrations are gone at the heal, then re-registered', () => {
    const backends = 8;
    const { ctx, w } = worldOf(scenario({ backends, clients: 3 }));
    const zk = w.mesh!.zk;
    at(ctx, 2);
    const before = [...zk.children('search')];
    expect(before).toHaveLength(backends);
    // 18.25 s without the ensemble (session timeout 10 s); the heal falls between two nerve checks (every 0.5 s).
    zk.partition(atSeconds(20.25));
    at(ctx, 8);
    // Not yet expired: ephemeral nodes outlive a short loss of contact.
    expect(zk.children('search')).toEqual(before);
    at(ctx, 20.3);
    expect(zk.children('search')).toEqual([]);
    for (const r of before) expect(r.deletedAt).toBeLessThan(atSeconds(20.25));
    expect(total(ctx, 'zk.sessions.expired')).toBe(backends + 3);
    // The announcers learn of the expiry at the heal and register again with new sessions at their next check.
    at(ctx, 21);
    const after = zk.children('search');
    expect(after).toHaveLength(backends);
    expect(new Set(after.map((r) => r.pod))).toEqual(new Set(before.map((r) => r.pod)));
    for (const r of after) {
      expect(before.some((b) => b.name === r.name || b.session === r.session)).toBe(false);
      expect(podOf(w, r).phase).toBe('running');
    }
  });

  it('a partition shorter than the session timeout expires nothing', () => {
    const { ctx, w } = worldOf(scenario({ backends: 8, clients: 3 }));
    const zk = w.mesh!.zk;
    at(ctx, 2);
    const before = [...zk.children('search')];
    zk.partition(atSeconds(8));
    at(ctx, 30);
    expect(total(ctx, 'zk.sessions.expired')).toBe(0);
    expect(zk.children('search')).toEqual(before);
  });
});

describe('packetsOf', () => {
  it('counts one request, the answer in 1448-byte segments and one ACK per two segments', () => {
    // An empty or short answer is still one segment.
    expect(packetsOf(0)).toBe(1 + 1 + 1);
    expect(packetsOf(100)).toBe(1 + 1 + 1);
    expect(packetsOf(1448)).toBe(1 + 1 + 1);
    expect(packetsOf(1449)).toBe(1 + 2 + 1);
    expect(packetsOf(1800)).toBe(1 + 2 + 1);
    expect(packetsOf(3 * 1448)).toBe(1 + 3 + 2);
    expect(packetsOf(4 * 1448)).toBe(1 + 4 + 2);
    expect(packetsOf(4 * 1448 + 1)).toBe(1 + 5 + 3);
    expect(packetsOf(100_000)).toBe(1 + 70 + 35);
  });

  it.each([
    ['children-then-data', 1 + 50, packetsOf(50 * 48) + 50 * packetsOf(1800)],
    ['single-roundtrip', 1, packetsOf(50 * (48 + 1800))],
  ] as const)('a %s read of 50 children sends the packets its requests and answers take', (read, requests, packets) => {
    // Long sessions, so no ping falls in the measured second; no clients, so the read is the only traffic.
    const text = scenario({ backends: 50, clients: 1, params: { zookeeper: { read, sessionTimeoutS: 120 } } }, (s) => delete s.topology.deployments.api);
    const { ctx, w } = worldOf(text);
    const zk = w.mesh!.zk;
    at(ctx, 1);
    const session = zk.openSession('test/reader', () => {});
    let listed: readonly Registration[] = [];
    const reader: ZkReader = { onRead: (children) => (listed = children) };
    const watcher: ZkWatcher = { onChildrenChanged: () => {} };
    const before = total(ctx, 'zk.packets');
    zk.read(session, 'search', reader, watcher);
    at(ctx, 2);
    expect(listed).toHaveLength(50);
    expect(total(ctx, 'zk.reads')).toBe(requests);
    // The counter books whole packets and carries fractions over, so allow for one packet of rounding.
    expect(Math.abs(total(ctx, 'zk.packets') - before - packets)).toBeLessThanOrEqual(1);
  });
});

describe("a ZooKeeper host's packet allowance is the token bucket of every cloud instance (infra/pps-allowance.ts)", () => {
  it('an idle host passes a second of its allowance at once, then its rate: 1,000 a second deliver 1,000 + 1,000 × 1.95 s in a storm', () => {
    // One server, long sessions so no ping falls in the storm, no clients: the reads below are the only traffic.
    const text = scenario({ backends: 50, clients: 1, zkServers: 1, params: { zookeeper: { ppsAllowance: 1000, sessionTimeoutS: 120 } } }, (s) => delete s.topology.deployments.api);
    const { ctx, w } = worldOf(text);
    const zk = w.mesh!.zk;
    at(ctx, 1);
    const session = zk.openSession('test/reader', () => {});
    const sent = total(ctx, 'zk.packets');
    const dropped = total(ctx, 'zk.packets.dropped');
    // Forty reads of 1 + 50 requests at once offer far more than the allowance in every tick until 3 s.
    for (let i = 0; i < 40; i++) zk.read(session, 'search', { onRead: () => {} }, { onChildrenChanged: () => {} });
    at(ctx, 3);
    expect(zk.inspect()[0]!.rows.find(([k]) => k === 'reads in progress')![1]).toBe('40');
    // The bucket, full after a second idle, gives its 1,000 at the first tick (1.05 s), then 50 in each of the 39
    // ticks to 3 s. Whole packets are booked, so allow one of rounding either way.
    const delivered = total(ctx, 'zk.packets') - sent - (total(ctx, 'zk.packets.dropped') - dropped);
    expect(Math.abs(delivered - (1000 + 1000 * 1.95))).toBeLessThanOrEqual(2);
  });
});
