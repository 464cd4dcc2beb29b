import { formatCount, type LiveView, type NodeView, type TopologyView } from '../../sim';

/**
 * Machines grouped by what runs on them, for the picture's far view: from the pods the simulation placed, not from
 * names. A machine's role is the deployment that sets it apart from the others: the biggest one on it that spans a
 * fair share of the machines but not nearly all of them; a machine with none of those takes the one that runs almost
 * everywhere. Small deployments (a few DNS or index pods) do not split the picture into crumbs.
 */

/** A deployment on at least this share of the machines runs "everywhere" and does not set a machine apart. */
const EVERYWHERE = 0.9;
/** A deployment on fewer than this share of the machines is too small to make a group of its own. */
const SIGNIFICANT = 0.1;

const NO_PODS = 'no pods';
const OUT = 'not in the cluster';

/** Each machine's role by node name. */
export function machineRoles(topology: TopologyView): Map<string, string> {
  const on = new Map<string, Map<string, number>>();
  const footprint = new Map<string, Set<string>>();
  const total = new Map<string, number>();
  for (const p of topology.pods) {
    if (p.phase === 'gone') continue;
    const here = on.get(p.node) ?? new Map<string, number>();
    here.set(p.deployment, (here.get(p.deployment) ?? 0) + 1);
    on.set(p.node, here);
    footprint.set(p.deployment, (footprint.get(p.deployment) ?? new Set()).add(p.node));
    total.set(p.deployment, (total.get(p.deployment) ?? 0) + 1);
  }
  const machines = Math.max(1, topology.nodes.filter((n) => n.inCluster).length);
  const share = (d: string): number => (footprint.get(d)?.size ?? 0) / machines;
  const bigger = (a: string, b: string): number => (total.get(b) ?? 0) - (total.get(a) ?? 0) || a.localeCompare(b);
  const roles = new Map<string, string>();
  for (const node of topology.nodes) {
    if (!node.inCluster) {
      roles.set(node.name, OUT);
      continue;
    }
    const here = [...(on.get(node.name)?.keys() ?? [])].sort(bigger);
    const distinct = here.find((d) => share(d) >= SIGNIFICANT && share(d) < EVERYWHERE);
    roles.set(node.name, distinct ?? here.find((d) => share(d) >= EVERYWHERE) ?? here[0] ?? NO_PODS);
  }
  return roles;
}

/**
 * Roles kept for the machines already seen: a rolling update moves pods, and machines changing groups mid-run would
 * make the picture jump. Machines not seen before take the role their pods give them now; a topology without some
 * machine seen before is another scenario, and is grouped afresh.
 */
export function keepRoles(previous: ReadonlyMap<string, string> | null, topology: TopologyView): Map<string, string> {
  const now = machineRoles(topology);
  // Another scenario (a machine seen before is missing) groups its machines afresh.
  if (!previous || [...previous.keys()].some((name) => !now.has(name))) return now;
  const kept = new Map<string, string>();
  for (const node of topology.nodes) {
    const before = previous.get(node.name);
    // A machine that left or joined the cluster moves to the group that says so.
    const stays = before !== undefined && (before === OUT) === !node.inCluster;
    kept.set(node.name, stays ? before : now.get(node.name)!);
  }
  return kept;
}

/** What a group's heading says about its machines: how many and of which kind. */
export function machineNoun(nodes: readonly NodeView[]): string {
  const cloud = nodes.every((n) => n.instance !== null);
  const noun = cloud ? 'instance' : 'node';
  return `${formatCount(nodes.length)} ${noun}${nodes.length === 1 ? '' : 's'}`;
}

export function groupTitle(role: string, nodes: readonly NodeView[]): string {
  if (role === OUT || role === NO_PODS) return `${machineNoun(nodes)} ${role}`;
  return `${machineNoun(nodes)} running ${role}`;
}

/** The group's pods now, biggest deployment first: "alerting 1,600 · index 2". */
export function podsLine(topology: TopologyView, nodes: ReadonlySet<string>): string {
  const by = new Map<string, number>();
  for (const p of topology.pods) if (p.phase !== 'gone' && nodes.has(p.node)) by.set(p.deployment, (by.get(p.deployment) ?? 0) + 1);
  if (by.size === 0) return 'no pods';
  return [...by]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([d, n]) => `${d} ${formatCount(n)}`)
    .join(' · ');
}

export type TableKind = 'ct' | 'dns' | 'tracked';

export const TABLE_LABEL: Record<TableKind, string> = { ct: 'conntrack', dns: 'DNS slots', tracked: 'tracked' };

/** How full one table of one machine is, from the latest frame; null where the machine has no such table. */
export function tableUse(live: LiveView, node: NodeView, kind: TableKind): { used: number; max: number } | null {
  const i = node.index;
  if (kind === 'ct') return { used: Math.max(0, live.conntrackUsed[i] ?? 0), max: node.conntrackMax };
  if (kind === 'dns') return node.dnsMaxConcurrent === null ? null : { used: Math.max(0, live.dnsInFlight[i] ?? 0), max: node.dnsMaxConcurrent };
  return node.instance ? { used: Math.max(0, live.instanceTracked[i] ?? 0), max: node.instance.allowance } : null;
}

export interface GroupUse {
  /** Each table kind the group's machines have, summed over them. */
  tables: { kind: TableKind; used: number; max: number }[];
  /** The machine whose table is fullest, and that table. */
  fullest: { node: NodeView; kind: TableKind; used: number; max: number } | null;
  /** Machines with a table at 95 % or more. */
  full: number;
}

export function groupUse(live: LiveView, nodes: readonly NodeView[]): GroupUse {
  const sums = new Map<TableKind, { used: number; max: number }>();
  let fullest: GroupUse['fullest'] = null;
  let full = 0;
  for (const node of nodes) {
    let worst = 0;
    for (const kind of ['ct', 'dns', 'tracked'] as const) {
      const use = tableUse(live, node, kind);
      if (!use) continue;
      const sum = sums.get(kind) ?? { used: 0, max: 0 };
      sum.used += use.used;
      sum.max += use.max;
      sums.set(kind, sum);
      const ratio = use.max > 0 ? use.used / use.max : 0;
      worst = Math.max(worst, ratio);
      if (!fullest || ratio > fullest.used / Math.max(1, fullest.max)) fullest = { node, kind, ...use };
    }
    if (worst >= 0.95) full++;
  }
  return { tables: [...sums].map(([kind, s]) => ({ kind, ...s })), fullest, full };
}
