import { describe, expect, it } from 'vitest';
import type { TopologyView } from '../../src/sim/api';
import { groupUse, keepRoles, machineRoles, podsLine } from '../../src/ui/topology/machine-groups';
import { GROUP_BAND_PX, GROUP_TITLE_PX, layoutTopology, sitePoints } from '../../src/ui/topology/topology-layout';
import { anchorsOf, mergeAtAnchors } from '../../src/ui/topology/traffic-layer';
import { liveView } from '../fixtures/live-view';
import { shippedSim } from '../fixtures/scenario-run';

const itsNotDns = shippedSim('its-not-dns.yaml').topology();
const demo = shippedSim('demo.yaml').topology();
/** The part of a widescreen topology panel that Fit fills (zoom.ts freeArea), as Chromium lays it out at 1920×1080. */
const PANEL = { width: 1217, height: 404 };
/** The same at 1280×720, where the picture is short. */
const SHORT_PANEL = { width: 692, height: 228 };
const fitScale = (l: { width: number; height: number }, view: { width: number; height: number }): number => Math.min(view.width / l.width, view.height / l.height);

const count = (roles: Map<string, string>): Record<string, number> => {
  const by: Record<string, number> = {};
  for (const role of roles.values()) by[role] = (by[role] ?? 0) + 1;
  return by;
};

describe('machines grouped by what runs on them', () => {
  it('groups the hundred instances of its-not-dns as the talk tells it: twenty running metric, eighty running alerting', () => {
    // alerting runs everywhere, metric on a fifth of the machines; index, store, meta and DNS are too small to split.
    expect(count(machineRoles(itsNotDns))).toEqual({ metric: 20, alerting: 80 });
    const names = new Set(itsNotDns.nodes.filter((n) => machineRoles(itsNotDns).get(n.name) === 'metric').map((n) => n.name));
    expect(podsLine(itsNotDns, names)).toBe('alerting 400 · metric 20');
  });

  it('keeps a machine in its group when its pods move, and moves it when it leaves the cluster', () => {
    const first = machineRoles(itsNotDns);
    // The rollout moves every metric pod to node-50; the metric machines keep their group, node-50 keeps its own.
    const moved: TopologyView = { ...itsNotDns, pods: itsNotDns.pods.map((p) => (p.deployment === 'metric' ? { ...p, node: 'node-50' } : p)) };
    expect(count(machineRoles(moved))).not.toEqual({ metric: 20, alerting: 80 });
    expect(keepRoles(first, moved)).toEqual(first);
    const left: TopologyView = { ...itsNotDns, nodes: itsNotDns.nodes.map((n) => (n.name === 'node-03' ? { ...n, inCluster: false } : n)) };
    const kept = keepRoles(first, left);
    expect(kept.get('node-03')).toBe('not in the cluster');
    expect(count(kept)).toEqual({ metric: 19, alerting: 80, 'not in the cluster': 1 });
    // Another scenario's machines are grouped afresh, not by the names left from the last one.
    const other = new Map([
      ['node-a', 'left over'],
      ['node-z', 'left over'],
    ]);
    expect(keepRoles(other, demo)).toEqual(machineRoles(demo));
  });

  it('lays the groups out as blocks whose headings keep their height on screen at Fit, every machine in one of them', () => {
    const l = layoutTopology(itsNotDns, new Set(), PANEL, machineRoles(itsNotDns));
    expect(l.machineGroups.map((g) => [g.role, g.machines.length])).toEqual([
      ['metric', 20],
      ['alerting', 80],
    ]);
    expect(l.machineGroups.flatMap((g) => g.machines).sort((a, b) => a.node.index - b.node.index)).toEqual([...l.nodes].sort((a, b) => a.node.index - b.node.index));
    const [metric, alerting] = l.machineGroups as [(typeof l.machineGroups)[0], (typeof l.machineGroups)[0]];
    expect(metric.y + metric.h).toBeLessThanOrEqual(alerting.y);
    for (const g of l.machineGroups) {
      for (const m of g.machines) expect(m.y).toBeGreaterThanOrEqual(g.band.y + g.band.h);
      for (const m of g.machines) expect(m.y + m.h).toBeLessThanOrEqual(g.y + g.h);
    }
    expect(metric.headingPx).toBe(GROUP_BAND_PX);
    expect(metric.band.h * fitScale(l, PANEL)).toBeGreaterThanOrEqual(GROUP_BAND_PX * 0.95);
    // An embed's short panel has room for the title lines only.
    const embed = layoutTopology(itsNotDns, new Set(), { width: 732, height: 124 }, machineRoles(itsNotDns));
    expect(embed.machineGroups.map((g) => g.headingPx)).toEqual([GROUP_TITLE_PX, GROUP_TITLE_PX]);
  });

  it('names the Services and resolvers in a caption above them where a short panel leaves them too small to carry their names', () => {
    const wide = layoutTopology(itsNotDns, new Set(), PANEL, machineRoles(itsNotDns));
    expect(wide.caption).toBeNull();
    const l = layoutTopology(itsNotDns, new Set(), SHORT_PANEL, machineRoles(itsNotDns));
    const k = fitScale(l, SHORT_PANEL);
    expect(l.caption).not.toBeNull();
    const caption = l.caption!;
    // Its line, and the groups' headings, keep their height on screen at Fit; everything else starts below it.
    expect(caption.h * k).toBeGreaterThanOrEqual(GROUP_TITLE_PX * 0.95);
    for (const g of l.machineGroups) expect(g.band.h * k).toBeGreaterThanOrEqual(g.headingPx * 0.95);
    for (const box of [...l.services, ...l.externals, ...l.nodes]) expect(box.y).toBeGreaterThanOrEqual(caption.y + caption.h);
    expect(caption.w).toBe(l.width);
  });

  it('leaves a small cluster, or a panel too short for headings, one grid in the topology order', () => {
    const small = layoutTopology(demo, new Set(), PANEL, machineRoles(demo));
    expect(small.machineGroups).toEqual([]);
    expect(small.nodes.map((n) => [n.node.name, n.x, n.y])).toEqual(layoutTopology(demo, new Set(), PANEL).nodes.map((n) => [n.node.name, n.x, n.y]));
    expect(layoutTopology(itsNotDns, new Set(), { width: 652, height: 74 }, machineRoles(itsNotDns)).machineGroups).toEqual([]);
  });

  it('draws all sites of a group at one anchor, adding up its flows and drops; a mark asks about the site that dropped most', () => {
    const l = layoutTopology(itsNotDns, new Set(), PANEL, machineRoles(itsNotDns));
    const points = sitePoints(itsNotDns, l, true);
    const anchor = anchorsOf(points);
    const site = (entity: string): number => itsNotDns.sites.indexOf(entity);
    const [n3, n7, n40, i3] = [site('node/node-03'), site('node/node-07'), site('node/node-40'), site(itsNotDns.nodes[3]!.instance!.entity)];
    expect(anchor[n3]).toBe(anchor[n7]);
    expect(anchor[n3]).toBe(anchor[i3]);
    expect(anchor[n3]).not.toBe(anchor[n40]);
    expect(anchorsOf(sitePoints(itsNotDns, l, false))[n7]).toBe(n7);

    const merged = mergeAtAnchors(
      {
        flows: [
          { from: n40, to: n3, rate: 300, synShare: 1 },
          { from: n40, to: n7, rate: 100, synShare: 0 },
          { from: n3, to: n7, rate: 50, synShare: 0 },
        ],
        drops: [
          { site: n3, reason: 'rp_filter_martian', rate: 10 },
          { site: i3, reason: 'rp_filter_martian', rate: 30 },
          { site: n7, reason: 'no_socket_reset', rate: 5 },
        ],
      },
      anchor,
    );
    expect(merged.flows).toEqual([{ from: anchor[n40], to: anchor[n3], rate: 400, synShare: 0.75 }]);
    expect(merged.drops).toEqual([
      { site: i3, at: anchor[n3], reason: 'rp_filter_martian', rate: 40 },
      { site: n7, at: anchor[n3], reason: 'no_socket_reset', rate: 5 },
    ]);
  });

  it('sums each table over a group and names its fullest machine', () => {
    const nodes = itsNotDns.nodes.slice(0, 3);
    const tracked = new Float64Array(itsNotDns.nodes.length);
    tracked.set([10_000, 75_000, 0]);
    const use = groupUse(liveView({ instanceTracked: tracked, conntrackUsed: new Float64Array(itsNotDns.nodes.length) }), nodes);
    const allowance = nodes[0]!.instance!.allowance;
    expect(use.tables.find((t) => t.kind === 'tracked')).toEqual({ kind: 'tracked', used: 85_000, max: 3 * allowance });
    expect(use.fullest).toMatchObject({ node: nodes[1], kind: 'tracked', used: 75_000, max: allowance });
    expect(use.full).toBe(1);
  });
});
