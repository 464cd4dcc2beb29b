import { describe, expect, it } from 'vitest';
import type { LiveView, NodeView, PodView, TopologyView } from '../../src/sim/api';
import { GROUP_FROM, GROUP_TITLE_PX, layoutTopology, searchTopology, sitePoints, type Rect } from '../../src/ui/topology/topology-layout';
import { liveView } from '../fixtures/live-view';
import { busiest, rates } from '../../src/ui/topology/traffic-layer';

function node(i: number, cloud = true): NodeView {
  return {
    index: i,
    name: `node-${i}`,
    ip: `10.0.0.${i + 1}`,
    podCidr: `10.244.${i}.0/24`,
    platform: cloud ? 'cloud' : 'bare-metal',
    rpFilter: 2,
    interfaces: [
      { name: 'eth0', kind: 'primary', ip: `10.0.0.${i + 1}`, rpFilter: 2 },
      { name: 'eth1', kind: 'secondary', ip: null, rpFilter: 2 },
    ],
    conntrackMax: 131072,
    instance: cloud ? { entity: `instance/node-${i}`, allowance: 75000 } : null,
    dnsMaxConcurrent: 1000,
    schedulable: true,
    inCluster: true,
    powered: true,
    uplinkUp: true,
    labels: { 'kubernetes.io/hostname': `node-${i}` },
    rack: null,
    room: null,
  };
}

let podIndex = 0;
function pod(nodeIndex: number, deployment: string, n: number, phase: PodView['phase'] = 'running'): PodView {
  return {
    index: podIndex++,
    name: `${deployment}-${nodeIndex}-${n}`,
    node: `node-${nodeIndex}`,
    ip: `10.244.${nodeIndex}.${n + 2}`,
    deployment,
    phase,
    ready: phase === 'running',
    ipAttached: phase === 'gone',
  };
}

/** Twelve instances, each with twenty clients; one server per instance on the first four. */
function cluster(): TopologyView {
  podIndex = 0;
  const nodes = Array.from({ length: 12 }, (_, i) => node(i));
  const pods = nodes.flatMap((n) => Array.from({ length: 20 }, (_, k) => pod(n.index, 'alerting', k)));
  for (let i = 0; i < 4; i++) pods.push(pod(i, 'metric', 100, i === 0 ? 'gone' : 'running'));
  return {
    version: 1,
    dnsTargets: {},
    nodes,
    pods,
    services: [],
    routers: [{ name: 'tor', entity: 'router/tor', ip: '10.0.0.254', ecmp: 'hash-threshold', hashSeed: 0 }],
    loadBalancers: [],
    externals: [{ entity: 'external/dns-resolver', name: 'dns-resolver', ip: '169.254.169.253', kind: 'resolver' }],
    sites: [...nodes.map((n) => `node/${n.name}`), 'router/tor', 'external/dns-resolver', ...nodes.map((n) => n.instance!.entity), 'network/fabric'],
  };
}

const overlaps = (a: Rect, b: Rect): boolean => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const inside = (a: Rect, b: Rect): boolean => a.x >= b.x && a.y >= b.y && a.x + a.w <= b.x + b.w && a.y + a.h <= b.y + b.h;

describe('topology layout', () => {
  it('folds a deployment that crowds its nodes into one chip per node, and keeps sparse ones pod by pod', () => {
    const t = cluster();
    const l = layoutTopology(t);
    expect(l.groups).toHaveLength(12);
    expect(l.groups.every((g) => g.deployment === 'alerting' && g.pods.length === 20)).toBe(true);
    expect([...l.pods.values()].map((b) => b.pod.deployment)).toEqual(['metric', 'metric', 'metric', 'metric']);
    expect(l.deployments).toEqual([
      { name: 'alerting', pods: 240, groupable: true, aggregated: true },
      { name: 'metric', pods: 4, groupable: false, aggregated: false },
    ]);
    // Every pod is drawn somewhere: by itself, or as part of its node's chip.
    expect(l.podRect.size).toBe(t.pods.length);
    expect(GROUP_FROM).toBeLessThanOrEqual(20);
  });

  it('draws every pod of an expanded deployment inside its own node', () => {
    const t = cluster();
    const l = layoutTopology(t, new Set(['alerting']));
    expect(l.groups).toHaveLength(0);
    expect(l.pods.size).toBe(t.pods.length);
    for (const box of l.pods.values()) expect(inside(box, l.nodesByName.get(box.pod.node)!.inner)).toBe(true);
  });

  it('keeps machines apart, nodes inside their instances, and bands above the machines', () => {
    const l = layoutTopology(cluster());
    for (let i = 0; i < l.nodes.length; i++) {
      expect(inside(l.nodes[i]!.inner, l.nodes[i]!)).toBe(true);
      for (let j = i + 1; j < l.nodes.length; j++) expect(overlaps(l.nodes[i]!, l.nodes[j]!)).toBe(false);
    }
    const top = Math.min(...l.nodes.map((n) => n.y));
    for (const r of l.routers) expect(r.y + r.h).toBeLessThan(top);
    // Systems outside the cluster sit in a column left of everything else.
    const left = Math.min(...l.nodes.map((n) => n.x), ...l.routers.map((r) => r.x));
    for (const e of l.externals) expect(e.x + e.w).toBeLessThan(left);
  });

  it('frames the machines of each rack, titled with where they stand and whether their labels say so', () => {
    const t = cluster();
    const place = (i: number, rack: string | null, labelled: boolean): void => {
      const n = t.nodes[i]!;
      t.nodes[i] = { ...n, rack, room: rack === null ? null : 'room-1', labels: labelled && rack ? { ...n.labels, rack } : n.labels };
    };
    // Racks interleaved in the topology's order, r2 unlabelled on one machine, r3 on none, two machines in no rack.
    [0, 2, 4].forEach((i) => place(i, 'r1', true));
    [1, 3, 5].forEach((i) => place(i, 'r2', i !== 5));
    [6, 7].forEach((i) => place(i, 'r3', false));
    const l = layoutTopology(t, new Set(), { width: 1550, height: 720 });
    expect(l.machineGroups).toEqual([]);
    expect(l.racks.map((r) => [r.title, r.machines])).toEqual([
      ['rack r1 · room-1', 3],
      ['rack r2 · 1 not labelled r2 · room-1', 3],
      ['rack r3 · none labelled r3 · room-1', 2],
    ]);
    for (const frame of l.racks) {
      const inRack = l.nodes.filter((b) => b.node.rack === frame.rack);
      for (const b of inRack) expect(inside(b, frame)).toBe(true);
      // Machines of other racks, and those in none, lie outside the frame.
      for (const b of l.nodes.filter((n) => n.node.rack !== frame.rack)) expect(overlaps(b, frame)).toBe(false);
      // The heading band above the machines is free of them and as tall in the picture as a title line on screen at Fit.
      expect(frame.headingPx).toBe(GROUP_TITLE_PX);
      expect(Math.min(...inRack.map((b) => b.y))).toBeGreaterThanOrEqual(frame.band.y + frame.band.h);
    }
    for (let i = 0; i < l.racks.length; i++) for (let j = i + 1; j < l.racks.length; j++) expect(overlaps(l.racks[i]!, l.racks[j]!)).toBe(false);
    // A failed switch is said first after the rack's name, so a title cut short keeps it.
    [6, 7].forEach((i) => (t.nodes[i] = { ...t.nodes[i]!, uplinkUp: false }));
    t.nodes[5] = { ...t.nodes[5]!, uplinkUp: false };
    expect(layoutTopology(t, new Set(), { width: 1550, height: 720 }).racks.map((r) => r.title)).toEqual([
      'rack r1 · room-1',
      'rack r2 · 1 not labelled r2 · room-1',
      'rack r3 · switch down · none labelled r3 · room-1',
    ]);
    // Without a rack or room anywhere there is no frame.
    expect(layoutTopology(cluster()).racks).toEqual([]);
  });

  it('chooses more machines per row for a wider panel, so the picture fills it', () => {
    const t = cluster();
    const cols = (width: number, height: number): number => new Set(layoutTopology(t, new Set(), { width, height }).nodes.map((n) => n.x)).size;
    expect(cols(2400, 600)).toBeGreaterThan(cols(800, 900));
    expect(cols(800, 900)).toBeGreaterThanOrEqual(1);
  });

  it('anchors traffic and drop marks at every drawn site and at none for the fabric', () => {
    const t = cluster();
    const points = sitePoints(t, layoutTopology(t));
    expect(points).toHaveLength(t.sites.length);
    expect(points.at(-1)).toBeNull();
    expect(points.slice(0, -1).every((p) => p !== null)).toBe(true);
  });

  it('finds entities by exact name or address first, then by part of one', () => {
    const t = cluster();
    const l = layoutTopology(t);
    expect(searchTopology(t, l, '10.0.0.3')?.entity).toBe('node/node-2');
    expect(searchTopology(t, l, '10.244.2.102')).toMatchObject({ entity: 'pod/metric-2-100', deployment: 'metric' });
    expect(searchTopology(t, l, 'TOR')?.entity).toBe('router/tor');
    expect(searchTopology(t, l, 'resolver')?.entity).toBe('external/dns-resolver');
    expect(searchTopology(t, l, 'alerting-3-7')?.box).toBe(l.podRect.get(t.pods.find((p) => p.name === 'alerting-3-7')!.index));
    expect(searchTopology(t, l, 'no-such-thing')).toBeNull();
    expect(searchTopology(t, l, '  ')).toBeNull();
  });
});

function live(traffic: number[], drops: number[], seconds = 2): LiveView {
  return liveView({ traffic: Float64Array.from(traffic), drops: Float64Array.from(drops), reasons: ['a', 'b'], step: { end: 4e6, seconds } });
}

describe('live traffic rates', () => {
  it("turns a metrics step's counts into per-second rates, with the SYN share", () => {
    const r = rates(live([0, 1, 200, 0, 2, 1, 200, 200, 3, 0, 20, 0], [0, 0, 20, 5]));
    expect(r.flows).toEqual([
      { from: 0, to: 1, rate: 100, synShare: 0 },
      { from: 2, to: 1, rate: 100, synShare: 1 },
      { from: 3, to: 0, rate: 10, synShare: 0 },
    ]);
    // Drops are by site and reason: site 1 dropped 20 of reason a and 5 of reason b in the two-second step.
    expect(r.drops).toEqual([
      { site: 1, reason: 'a', rate: 10 },
      { site: 1, reason: 'b', rate: 2.5 },
    ]);
  });

  it('keeps the busiest flows in the order a stable sort by rate gives them', () => {
    const flows = [3, 9, 1, 9, 5, 3, 7].map((rate, from) => ({ from, to: 0, rate, synShare: 0 }));
    const sorted = [...flows].sort((a, b) => b.rate - a.rate);
    for (const n of [0, 1, 3, 4, 7, 10]) expect(busiest(flows, n)).toEqual(sorted.slice(0, n));
  });

  it('shows nothing before the first step', () => {
    expect(rates(live([0, 1, 100, 0], [1, 0], 0))).toEqual({ flows: [], drops: [] });
  });
});
