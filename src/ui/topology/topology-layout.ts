import type { NodeView, PodView, ServiceView, TopologyView } from '../../sim/api';

/** Pure geometry for the topology picture: services on top, nodes below with their pods in a grid. */

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface NodeBox extends Rect {
  node: NodeView;
  compact: boolean;
}

export interface PodBox extends Rect {
  pod: PodView;
  compact: boolean;
}

export interface ServiceBox extends Rect {
  service: ServiceView;
}

export interface TopologyLayout {
  width: number;
  height: number;
  nodes: NodeBox[];
  /** By pod index, which is what connection triples refer to. */
  pods: Map<number, PodBox>;
  podsByName: Map<string, PodBox>;
  services: ServiceBox[];
}

export const POD_W = 156;
export const POD_H = 46;
const COMPACT_POD = 22;
/** Above this many pods a node draws them as small squares; names move to tooltips. */
const COMPACT_ABOVE = 24;
const POD_GAP = 10;
const NODE_PAD = 14;
const NODE_HEADER = 50;
const NODE_GAP = 28;
const NODES_PER_ROW = 4;
const SVC_W = 250;
const SVC_H = 64;
const SVC_GAP = 28;
const SVC_TO_NODES = 60;
const ARC_ROOM = 40;

function columnsFor(n: number, compact: boolean): number {
  if (compact) return Math.ceil(Math.sqrt(n * 2));
  if (n <= 1) return 1;
  if (n <= 4) return 2;
  if (n <= 9) return 3;
  return Math.ceil(Math.sqrt(n));
}

const phaseOrder = { running: 0, pending: 1, terminating: 2, gone: 3 } as const;

function podOrder(a: PodView, b: PodView): number {
  return (
    a.deployment.localeCompare(b.deployment) ||
    phaseOrder[a.phase] - phaseOrder[b.phase] ||
    a.name.localeCompare(b.name)
  );
}

/** Width the node's header text needs (12 px monospace is about 7.3 px per character). */
export function nodeLabelWidth(node: NodeView): number {
  return Math.ceil(nodeSubtitle(node).length * 7.3) + 2 * NODE_PAD;
}

export const nodeSubtitle = (node: NodeView): string => `${node.ip} · pods ${node.podCidr}`;

export function layoutTopology(topology: TopologyView): TopologyLayout {
  const podsOn = new Map<string, PodView[]>();
  for (const pod of topology.pods) {
    const list = podsOn.get(pod.node) ?? [];
    list.push(pod);
    podsOn.set(pod.node, list);
  }

  const sized = topology.nodes.map((node) => {
    const pods = (podsOn.get(node.name) ?? []).sort(podOrder);
    const compact = pods.length > COMPACT_ABOVE;
    const cols = Math.max(1, columnsFor(pods.length, compact));
    const rows = Math.ceil(pods.length / cols);
    const cw = compact ? COMPACT_POD : POD_W;
    const ch = compact ? COMPACT_POD : POD_H;
    const gap = compact ? 4 : POD_GAP;
    const w = Math.max(POD_W + 2 * NODE_PAD, cols * cw + (cols - 1) * gap + 2 * NODE_PAD, nodeLabelWidth(node));
    const h = NODE_HEADER + Math.max(1, rows) * ch + Math.max(0, rows - 1) * gap + NODE_PAD;
    return { node, pods, compact, cols, cw, ch, gap, w, h };
  });

  const hasServices = topology.services.length > 0;
  const nodesTop = hasServices ? SVC_H + SVC_TO_NODES : 0;
  const nodes: NodeBox[] = [];
  const pods = new Map<number, PodBox>();
  const podsByName = new Map<string, PodBox>();
  let y = nodesTop;
  let width = 0;
  for (let start = 0; start < sized.length; start += NODES_PER_ROW) {
    const row = sized.slice(start, start + NODES_PER_ROW);
    const rowH = Math.max(...row.map((r) => r.h));
    let x = 0;
    for (const r of row) {
      nodes.push({ node: r.node, compact: r.compact, x, y, w: r.w, h: rowH });
      r.pods.forEach((pod, i) => {
        const box: PodBox = {
          pod,
          compact: r.compact,
          x: x + NODE_PAD + (i % r.cols) * (r.cw + r.gap),
          y: y + NODE_HEADER + Math.floor(i / r.cols) * (r.ch + r.gap),
          w: r.cw,
          h: r.ch,
        };
        pods.set(pod.index, box);
        podsByName.set(pod.name, box);
      });
      x += r.w + NODE_GAP;
    }
    width = Math.max(width, x - NODE_GAP);
    y += rowH + NODE_GAP;
  }
  // Connection arcs bulge below the nodes; keep room for them inside the fitted area.
  const height = Math.max(nodesTop, y - NODE_GAP) + ARC_ROOM;

  const svcRowW = topology.services.length * SVC_W + Math.max(0, topology.services.length - 1) * SVC_GAP;
  width = Math.max(width, svcRowW);
  let sx = (width - svcRowW) / 2;
  const services = topology.services.map((service) => {
    const box: ServiceBox = { service, x: sx, y: 0, w: SVC_W, h: SVC_H };
    sx += SVC_W + SVC_GAP;
    return box;
  });

  return { width, height, nodes, pods, podsByName, services };
}

export interface ConnectionGroup {
  client: number;
  server: number;
  state: number;
  count: number;
}

/** Folds connection triples into one line per (client, server, state) with a count. */
export function groupConnections(triples: Int32Array): ConnectionGroup[] {
  const groups = new Map<string, ConnectionGroup>();
  for (let i = 0; i + 2 < triples.length; i += 3) {
    const client = triples[i]!;
    const server = triples[i + 1]!;
    const state = triples[i + 2]!;
    const key = `${client}:${server}:${state}`;
    const g = groups.get(key);
    if (g) g.count++;
    else groups.set(key, { client, server, state, count: 1 });
  }
  return [...groups.values()];
}

/** A gentle arc between two pods; each state bends a little more so overlapping states stay visible. */
export function connectionPath(a: Rect, b: Rect, state: number): { d: string; mid: [number, number] } {
  const x1 = a.x + a.w / 2;
  const y1 = a.y + a.h / 2;
  const x2 = b.x + b.w / 2;
  const y2 = b.y + b.h / 2;
  const dx = x2 - x1;
  const dy = y2 - y1;
  const dist = Math.hypot(dx, dy) || 1;
  const bend = Math.max(28, dist * (0.16 + 0.07 * state));
  // Bulge downwards (or rightwards for vertical pairs), away from node titles and the service row.
  let nx = -dy / dist;
  let ny = dx / dist;
  if (ny < 0 || (ny === 0 && nx < 0)) {
    nx = -nx;
    ny = -ny;
  }
  const cx = (x1 + x2) / 2 + nx * bend;
  const cy = (y1 + y2) / 2 + ny * bend;
  // The midpoint of a quadratic Bézier is halfway between the chord's midpoint and the control point.
  const mid: [number, number] = [((x1 + x2) / 2 + cx) / 2, ((y1 + y2) / 2 + cy) / 2];
  return { d: `M${x1},${y1}Q${cx},${cy} ${x2},${y2}`, mid };
}
