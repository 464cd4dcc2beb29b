/**
 * kube-scheduler's node choice for one pod of a deployment: filter (nodeSelector, required pod anti-affinity,
 * DoNotSchedule spread constraints), score (preferred anti-affinity, ScheduleAnyway spread constraints), then the
 * node with the fewest pods, then the first in the topology's order. Every rule is against the deployment's own pods,
 * as a manifest's label selector on its app label is (docs/sources/kubernetes-scheduling.md).
 */

export type NodeLabels = Readonly<Record<string, string>>;

/** Set on every node by the kubelet from its name (docs/sources/kubernetes-scheduling.md#node-labels). */
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';

export interface AntiAffinityTerm {
  topologyKey: string;
}

export interface WeightedAntiAffinityTerm extends AntiAffinityTerm {
  /** 1 to 100 (docs/sources/kubernetes-scheduling.md#inter-pod-anti-affinity). */
  weight: number;
}

export interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
}

export interface PlacementRules {
  required: readonly AntiAffinityTerm[];
  preferred: readonly WeightedAntiAffinityTerm[];
  spread: readonly SpreadConstraint[];
}

export const NO_RULES: PlacementRules = { required: [], preferred: [], spread: [] };

/** One node as the scheduler sees it for this pod. */
export interface NodeView {
  labels: NodeLabels;
  /** The deployment's pending and running pods on the node. */
  own: number;
  /**
   * The deployment's terminating pods on the node: still bound to it, so anti-affinity counts them; spreading does not
   * (docs/sources/kubernetes-scheduling.md#inter-pod-anti-affinity, #topology-spread-constraints).
   */
  terminating: number;
  /** All active pods on the node. */
  load: number;
  /** It may take the pod: schedulable, allowed by the selector, with a free pod address. */
  candidate: boolean;
  /** Its pods and its domains count for spreading: in the cluster and allowed by the selector, cordoned or not. */
  counted: boolean;
}

// Default score-plugin weights of kube-scheduler's profile (docs/sources/kubernetes-scheduling.md#scoring).
const INTER_POD_AFFINITY_WEIGHT = 2;
const POD_TOPOLOGY_SPREAD_WEIGHT = 2;
const MAX_NODE_SCORE = 100;

/** A node's labels with the hostname label the kubelet adds. */
export function nodeLabels(name: string, labels: NodeLabels = {}): NodeLabels {
  return { ...labels, [HOSTNAME_LABEL]: name };
}

/** The index of the node the pod goes to, or -1 when every node is filtered out. */
export function chooseNode(nodes: readonly NodeView[], rules: PlacementRules): number {
  return rank(nodes, rules).best;
}

/** The feasible nodes with their weighted scores, and the one the scheduler takes. */
function rank(nodes: readonly NodeView[], rules: PlacementRules): { feasible: number[]; scores: number[]; best: number } {
  const feasible: number[] = [];
  for (let i = 0; i < nodes.length; i++) if (nodes[i]!.candidate && passesFilters(nodes, i, rules)) feasible.push(i);
  const affinity = affinityScores(nodes, feasible, rules.preferred);
  const spread = spreadScores(
    nodes,
    feasible,
    rules.spread.filter((c) => c.whenUnsatisfiable === 'ScheduleAnyway'),
  );
  const scores = feasible.map((_, k) => INTER_POD_AFFINITY_WEIGHT * affinity[k]! + POD_TOPOLOGY_SPREAD_WEIGHT * spread[k]!);
  let best = -1;
  let bestScore = -Infinity;
  let bestLoad = Infinity;
  feasible.forEach((node, k) => {
    const load = nodes[node]!.load;
    if (scores[k]! > bestScore || (scores[k] === bestScore && load < bestLoad)) {
      best = node;
      bestScore = scores[k]!;
      bestLoad = load;
    }
  });
  return { feasible, scores, best };
}

/**
 * Why the scheduler took node `chosen`, for the why chains: how many nodes its filters left, whether the scores
 * decided or the fewest-pods tie-break did, and the topology keys the node lacks, which leave it out of those rules.
 */
export function explainChoice(nodes: readonly NodeView[], rules: PlacementRules, chosen: number): string {
  const { feasible, scores } = rank(nodes, rules);
  const k = feasible.indexOf(chosen);
  const candidates = nodes.filter((n) => n.candidate).length;
  const parts = [`${feasible.length} of ${candidates} schedulable nodes passed its filters`];
  const tied = scores.filter((s) => s === scores[k]).length;
  parts.push(tied > 1 ? `${tied} tied on its score (${scores[k]}), and this one had the fewest pods (${nodes[chosen]!.load})` : `this one scored highest (${scores[k]})`);
  const keys = [...new Set([...rules.required, ...rules.preferred, ...rules.spread].map((r) => r.topologyKey))];
  const missing = keys.filter((key) => nodes[chosen]!.labels[key] === undefined);
  if (missing.length > 0) parts.push(`it has no ${missing.join(' or ')} label, so the rules on that key do not count it or the pods on it`);
  const domains = keys.filter((key) => !missing.includes(key) && new Set(feasible.map((i) => nodes[i]!.labels[key])).size === 1);
  if (domains.length > 0) parts.push(`every node that passed is in one ${domains.join(' and one ')}, so rules on it cannot tell them apart`);
  return parts.join('; ');
}

/** Why no node takes the pod, for the log: the filter each node fails first, counted by reason, as kube-scheduler reports. */
export function unschedulableReasons(nodes: readonly NodeView[], rules: PlacementRules): string {
  const counts = new Map<string, number>();
  nodes.forEach((node, i) => {
    const reason = node.candidate ? failedFilter(nodes, i, rules) : 'cordoned, outside the selector or out of pod addresses';
    if (reason !== undefined) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  });
  const parts = [...counts].map(([reason, n]) => `${n} ${reason}`);
  return `0/${nodes.length} nodes are available: ${parts.join('; ')}`;
}

function passesFilters(nodes: readonly NodeView[], i: number, rules: PlacementRules): boolean {
  return failedFilter(nodes, i, rules) === undefined;
}

function failedFilter(nodes: readonly NodeView[], i: number, rules: PlacementRules): string | undefined {
  const labels = nodes[i]!.labels;
  // A node without the key is outside every domain of the term, so the term never rejects it.
  for (const term of rules.required) {
    const value = labels[term.topologyKey];
    if (value !== undefined && ownIn(nodes, term.topologyKey, value) > 0) return `with a pod of the deployment in the same ${term.topologyKey} (required anti-affinity)`;
  }
  const hard = rules.spread.filter((c) => c.whenUnsatisfiable === 'DoNotSchedule');
  if (hard.length === 0) return undefined;
  const keys = hard.map((c) => c.topologyKey);
  if (!keys.every((key) => labels[key] !== undefined)) return `without the label ${keys.join(', ')} the spread constraints need`;
  for (const c of hard) {
    const counts = domainCounts(nodes, c.topologyKey, (n) => n.counted && keys.every((key) => n.labels[key] !== undefined));
    const min = Math.min(...counts.values());
    const skew = (counts.get(labels[c.topologyKey]!) ?? 0) + 1 - min;
    if (skew > c.maxSkew) return `where the skew over ${c.topologyKey} would be ${skew}, above maxSkew ${c.maxSkew}`;
  }
  return undefined;
}

/** The deployment's pods, terminating ones too, on nodes whose `key` label is `value`: what anti-affinity counts. */
function ownIn(nodes: readonly NodeView[], key: string, value: string): number {
  let sum = 0;
  for (const n of nodes) if (n.labels[key] === value) sum += n.own + n.terminating;
  return sum;
}

/**
 * The deployment's pods in each domain of `key`, over the nodes `include` keeps, terminating ones left out, as spreading
 * counts them; a domain without pods counts 0.
 */
function domainCounts(nodes: readonly NodeView[], key: string, include: (n: NodeView) => boolean): Map<string, number> {
  const counts = new Map<string, number>();
  for (const n of nodes) {
    const value = n.labels[key];
    if (value === undefined || !include(n)) continue;
    counts.set(value, (counts.get(value) ?? 0) + n.own);
  }
  return counts;
}

/**
 * InterPodAffinity's score: minus each preferred term's weight for every pod of the deployment in the node's domain,
 * scaled so the feasible nodes run from 0 (most penalised) to 100 (docs/sources/kubernetes-scheduling.md#scoring).
 */
function affinityScores(nodes: readonly NodeView[], feasible: readonly number[], preferred: readonly WeightedAntiAffinityTerm[]): number[] {
  const raw = feasible.map((i) => {
    let score = 0;
    for (const term of preferred) {
      const value = nodes[i]!.labels[term.topologyKey];
      if (value !== undefined) score -= term.weight * ownIn(nodes, term.topologyKey, value);
    }
    return score;
  });
  const min = Math.min(...raw);
  const max = Math.max(...raw);
  return raw.map((s) => (max > min ? Math.floor((MAX_NODE_SCORE * (s - min)) / (max - min)) : 0));
}

/**
 * PodTopologySpread's score for ScheduleAnyway constraints: the pods in the node's domain, weighted by the log of the
 * number of domains, plus maxSkew − 1; fewer is better, and a node lacking a key scores 0
 * (docs/sources/kubernetes-scheduling.md#scoring).
 */
function spreadScores(nodes: readonly NodeView[], feasible: readonly number[], soft: readonly SpreadConstraint[]): number[] {
  if (soft.length === 0) return feasible.map(() => 0);
  const keys = soft.map((c) => c.topologyKey);
  const hasKeys = (n: NodeView) => keys.every((key) => n.labels[key] !== undefined);
  const scored = feasible.filter((i) => hasKeys(nodes[i]!));
  const raw = new Map<number, number>();
  for (const c of soft) {
    const domains = new Set(scored.map((i) => nodes[i]!.labels[c.topologyKey]!)).size;
    const weight = Math.log(domains + 2);
    const counts = domainCounts(nodes, c.topologyKey, (n) => n.counted && hasKeys(n));
    for (const i of scored) raw.set(i, (raw.get(i) ?? 0) + (counts.get(nodes[i]!.labels[c.topologyKey]!) ?? 0) * weight + (c.maxSkew - 1));
  }
  for (const [i, s] of raw) raw.set(i, Math.round(s));
  const values = [...raw.values()];
  const max = Math.max(0, ...values);
  const min = values.length ? Math.min(...values) : 0;
  return feasible.map((i) => {
    const s = raw.get(i);
    if (s === undefined) return 0;
    return max === 0 ? MAX_NODE_SCORE : Math.floor((MAX_NODE_SCORE * (max + min - s)) / max);
  });
}
