import type { ExternalView, LoadBalancerView, NodeView, PodView, RouterView, ServiceView, TopologyView } from '../../sim';
import { MIN_TEXT_PX } from './zoom';

/**
 * Pure geometry for the topology picture, top to bottom: routers, load balancers, Services, then the machines (a cloud
 * instance around its node, or a bare-metal node) with their pods; systems outside the cluster in a column on the left.
 * A deployment with many pods is drawn as one chip per node ("alerting-engine × 20") until it is expanded.
 */

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface NodeBox extends Rect {
  node: NodeView;
  /** The node's own box inside the instance frame (the whole box on bare metal). */
  inner: Rect;
  compact: boolean;
}

export interface PodBox extends Rect {
  pod: PodView;
  compact: boolean;
}

/** Several pods of one deployment on one node, drawn as one chip. */
export interface GroupBox extends Rect {
  key: string;
  node: string;
  deployment: string;
  pods: PodView[];
}

/** A box outside the machines grid, drawn `scale` times its usual size where the machines are grouped. */
export interface ElementBox extends Rect {
  scale: number;
}

export interface ServiceBox extends ElementBox {
  service: ServiceView;
}

export interface RouterBox extends ElementBox {
  router: RouterView;
}

export interface LbBox extends ElementBox {
  lb: LoadBalancerView;
}

export interface ExternalBox extends ElementBox {
  external: ExternalView;
}

/** Machines that run the same thing, drawn as one block under a heading band the gauge layer writes its summary in. */
export interface MachineGroup extends Rect, Heading {
  role: string;
  machines: NodeBox[];
  /** GROUP_BAND_PX, or GROUP_TITLE_PX where the panel has room for the title line only. */
  headingPx: number;
}

/**
 * Where a group's heading starts in the picture at zoom `k`. It keeps its size on screen and sits at the bottom of its
 * band, just above the machines: zoomed in, the room the band grows is above it, not between it and what it names.
 */
export function headingTop(group: Heading, k: number): number {
  return Math.max(group.band.y, group.band.y + group.band.h - group.headingPx / k);
}

/** A frame's heading: as tall in the picture as `headingPx` on screen at the scale the layout was fitted for. */
export interface Heading {
  band: Rect;
  headingPx: number;
}

/** The machines of one rack (or of one room, for machines not in a rack), drawn in a frame titled with where they stand. */
export interface RackFrame extends Rect, Heading {
  rack: string | null;
  room: string | null;
  title: string;
  machines: number;
  /** Machines in the rack with no label whose value names it: the scheduler cannot tell they stand there. */
  unlabelled: number;
  /** The rack's top-of-rack switch has failed (fail-rack-switch): its machines are cut off. */
  switchDown: boolean;
}

export interface TopologyLayout {
  width: number;
  height: number;
  /** Empty unless some machine stands in a rack or room, or while the machines are grouped by role. */
  racks: RackFrame[];
  /** Empty unless the cluster is too big for its machines' names to be read at Fit. */
  machineGroups: MachineGroup[];
  /**
   * A line across the top that names the routers, load balancers, Services and systems outside where the grouped
   * picture leaves them too small to carry their names at Fit; `px` tall on screen at that scale.
   */
  caption: (Rect & { px: number }) | null;
  nodes: NodeBox[];
  nodesByName: Map<string, NodeBox>;
  nodesByIp: Map<string, NodeBox>;
  /** Drawn pods by pod index, which is what connection triples refer to; aggregated pods are absent. */
  pods: Map<number, PodBox>;
  podsByName: Map<string, PodBox>;
  groups: GroupBox[];
  /** Where a pod is drawn: its own box, or the chip of its group. */
  podRect: Map<number, Rect>;
  services: ServiceBox[];
  routers: RouterBox[];
  lbs: LbBox[];
  externals: ExternalBox[];
  /** Deployments and their pod counts (shown pods), in drawing order, for the legend and the colours. */
  deployments: { name: string; pods: number; groupable: boolean; aggregated: boolean }[];
}

export const POD_W = 156;
export const POD_H = 46;
const COMPACT_POD = 20;
/** A node with more drawn items than this shows pods as small squares; names move to tooltips. */
const COMPACT_ABOVE = 6;
/** This many pods of one deployment on one node are drawn as a chip, unless the deployment is expanded. */
export const GROUP_FROM = 4;
const GROUP_W = 168;
const GROUP_H = 26;
const GAP = 8;
const NODE_PAD = 12;
/** Node title, addresses and interfaces, the control-plane line (kube-proxy, BGP), then the gauges row. */
const NODE_HEADER = 102;
/** Baseline of the node's control-plane line, which the gauge layer writes every frame. */
export const STATUS_Y = 69;
const INSTANCE_BAND = 30;
const INSTANCE_PAD = 6;
const CELL_GAP = 22;
/** A gauge's geometry: its label and figures on one line (baseline textY), its bar below it. */
export const GAUGE = { w: 150, textY: 10, barY: 14, barH: 7, gap: 16, nodeX: 12, nodeY: 74, instanceY: 4, instanceRight: 14 } as const;
/** Room for the node's two gauges side by side. */
const NODE_W_COMPACT = 2 * NODE_PAD + 2 * GAUGE.w + GAUGE.gap;
const NODE_W_FULL = 2 * NODE_PAD + 2 * POD_W + GAP;
const SVC_W = 250;
const SVC_H = 64;
const BOX_GAP = 28;
const ROUTER_W = 250;
const ROUTER_H = 64;
const LB_W = 300;
const LB_H = 78;
const BAND_GAP = 40;
const EXT_W = 220;
const EXT_H = 50;
const EXT_GAP_Y = 12;
const EXT_GAP = 70;
/** What the zoom's Fit leaves around the picture (zoom.ts: PAD on each side, PAD_BOTTOM for the legend). */
/** Below this scale a machine's far-view name (34 px) would be drawn under 11 px: the picture shows groups instead. */
export const GROUPS_BELOW = 11 / 34;
/** A group's heading on screen: its title, its tables summed and its fullest machine, one line each. */
export const GROUP_BAND_PX = 64;
/** A heading of its title line only, for a short panel (an embed). */
export const GROUP_TITLE_PX = 26;
/** The far view's names of elements (`.topo-far-name` in topology.css). */
export const FAR_NAME_PX = 26;
/** Where the heading's lines go, in screen pixels from the band's top left: the title's baseline, the tables' row (label baseline, then the bar), the fullest machine's baseline. */
export const GROUP_HEADING = { x: 14, titleY: 19, tablesY: 37, barY: 41, barH: 6, fullestY: 60, tableW: 170, tableGap: 18 } as const;
const GROUP_PAD = 14;
/** Fewer machines than this are drawn one by one at any size: a heading would take more room than it saves. */
const GROUP_MIN_MACHINES = 12;
/** Keeps a heading's height in the picture finite when the viewport is too small for any positive scale. */
const MIN_FIT_SCALE_GUESS = 0.05;
/** On screen at Fit, the boxes around a grouped grid are drawn at this scale: their 15 px names at 12.75 px. */
const ELEMENT_SHOWN = 0.85;
/** ...and not at all bigger if there is no room for their names to reach 11 px. */
const ELEMENT_SHOWN_MIN = 11 / 15;
/** The panel size assumed when the caller does not know it yet: a widescreen panel's. */
const DEFAULT_VIEWPORT = { width: 1550, height: 720 };

const phaseOrder = { running: 0, pending: 1, terminating: 2, gone: 3 } as const;

function podOrder(a: PodView, b: PodView): number {
  return a.deployment.localeCompare(b.deployment) || phaseOrder[a.phase] - phaseOrder[b.phase] || a.name.localeCompare(b.name);
}

const nodeAddresses = (node: NodeView): string => `${node.ip} · pods ${node.podCidr}`;

export function interfacesLine(node: NodeView): string {
  return node.interfaces.map((i) => `${i.name} ${i.ip ?? 'no IPv4'}`).join(' · ');
}

export { nodeAddresses as nodeSubtitle };

/** Lays boxes of equal width left to right in rows, centred in `width`; returns the height used. */
function row<T extends Rect>(boxes: T[], y: number, width: number, gap: number): number {
  if (boxes.length === 0) return 0;
  const total = boxes.reduce((s, b) => s + b.w, 0) + (boxes.length - 1) * gap;
  let x = Math.max(0, (width - total) / 2);
  for (const b of boxes) {
    b.x = x;
    b.y = y;
    x += b.w + gap;
  }
  return Math.max(...boxes.map((b) => b.h));
}

/**
 * Columns for the machines grid that let the whole picture be drawn biggest in the viewport, and that scale. Each block
 * of machines starts a row of its own; headings and captions take `screenPx` of the height on screen at any scale.
 * With `frames`, blocks are framed (racks) and may stand side by side, `across` to a row, each `pad` wider on both sides
 * and taller than its machines where `titled`, under a heading `titlePx` tall on screen in every row of frames that has
 * a title; frames that leave their titles `titleW` on screen come first.
 */
function bestColumns(
  blocks: number[][],
  cellW: number,
  fixed: { w: number; h: number; left: number; leftH: number },
  screenPx: number,
  viewport: { width: number; height: number },
  frames?: { pad: number; titled: boolean[]; titlePx: number; titleW: number },
): { cols: number; across: number; scale: number } {
  let best = { cols: 1, across: 1, scale: 0 };
  // Frames at least as wide as their titles, where some column count gives that; the narrowest title-cut ones otherwise.
  let titled = false;
  const most = Math.max(1, ...blocks.map((b) => b.length));
  const pad = frames?.pad ?? 0;
  for (let cols = 1; cols <= most; cols++) {
    const blockH = blocks.map((heights, b) => {
      let h = frames?.titled[b] ? 2 * pad : 0;
      for (let start = 0; start < heights.length; start += cols) h += Math.max(...heights.slice(start, start + cols)) + CELL_GAP;
      return h;
    });
    for (let across = 1; across <= (frames ? blocks.length : 1); across++) {
      let h = fixed.h;
      let titles = 0;
      for (let start = 0; start < blockH.length; start += across) {
        h += Math.max(...blockH.slice(start, start + across));
        if (frames?.titled.slice(start, start + across).some(Boolean)) titles += frames.titlePx;
      }
      h = Math.max(h, fixed.leftH);
      const frameW = cols * cellW + (cols - 1) * CELL_GAP + 2 * pad;
      const w = fixed.left + Math.max(fixed.w, across * frameW + (across - 1) * CELL_GAP);
      // k * h + screenPx <= viewport height.
      const scale = Math.min(viewport.width / w, (viewport.height - screenPx - titles) / h);
      const fits = frameW * scale >= (frames?.titleW ?? 0);
      if ((fits && !titled) || (fits === titled && scale > best.scale * 1.001)) best = { cols, across, scale };
      titled ||= fits;
    }
  }
  return best;
}

/** Machines that start rows of their own: a role's (machine-groups.ts), or a rack's, titled with where it stands. */
interface Block {
  role: string | null;
  site: Omit<RackFrame, keyof Rect | keyof Heading | 'machines' | 'title'> | null;
  members: number[];
}

/**
 * "rack r3 · switch down · none labelled r3 · room-1": the rack, what is wrong with it, and its room last, so a title cut
 * short keeps what matters.
 */
function rackTitle(site: NonNullable<Block['site']>, machines: number): string {
  const note = site.unlabelled === 0 ? null : site.unlabelled === machines ? `none labelled ${site.rack}` : `${site.unlabelled} not labelled ${site.rack}`;
  return [site.rack === null ? null : `rack ${site.rack}`, site.switchDown ? 'switch down' : null, note, site.room].filter((t) => t !== null).join(' · ');
}

/** A rack title's width on screen, roughly: `.topo-rack-title` is 13 px bold, under 0.6 of that a character. */
const rackTitleW = (title: string): number => 2 * GROUP_HEADING.x + title.length * 13 * 0.6;

/**
 * The machines by where they stand, racks in the order their first machine comes in the topology, and machines in no
 * rack or room after them; one block of all machines where none says where it stands.
 */
function siteBlocks(nodes: readonly NodeView[]): Block[] {
  const bySite = new Map<string, Block>();
  const elsewhere: number[] = [];
  nodes.forEach((node, i) => {
    if (node.rack === null && node.room === null) {
      elsewhere.push(i);
      return;
    }
    const key = `${node.room ?? ''}/${node.rack ?? ''}`;
    const block = bySite.get(key) ?? { role: null, site: { rack: node.rack, room: node.room, unlabelled: 0, switchDown: node.rack !== null }, members: [] };
    block.members.push(i);
    if (node.rack !== null && !Object.values(node.labels).includes(node.rack)) block.site!.unlabelled++;
    if (node.uplinkUp) block.site!.switchDown = false;
    bySite.set(key, block);
  });
  const blocks = [...bySite.values()];
  if (elsewhere.length > 0) blocks.push({ role: null, site: null, members: elsewhere });
  return blocks;
}

/**
 * `view` is the part of the panel that Fit fills (zoom.ts freeArea). `roles` (machine-groups.ts) groups the machines
 * when a hundred of them would leave each too small to name at Fit; without it, or for a cluster that fits, the machines
 * lie in one grid in the topology's order.
 */
export function layoutTopology(
  topology: TopologyView,
  expanded: ReadonlySet<string> = new Set(),
  view: { width: number; height: number } = DEFAULT_VIEWPORT,
  roles?: ReadonlyMap<string, string>,
): TopologyLayout {
  const counts = new Map<string, number>();
  const perNode = new Map<string, number>();
  for (const pod of topology.pods) {
    counts.set(pod.deployment, (counts.get(pod.deployment) ?? 0) + 1);
    const key = `${pod.node}/${pod.deployment}`;
    perNode.set(key, (perNode.get(key) ?? 0) + 1);
  }
  const crowded = new Set([...perNode].filter(([, n]) => n >= GROUP_FROM).map(([key]) => key.slice(key.indexOf('/') + 1)));
  const deployments = [...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, pods]) => ({ name, pods, groupable: crowded.has(name), aggregated: crowded.has(name) && !expanded.has(name) }));
  const aggregated = new Set(deployments.filter((d) => d.aggregated).map((d) => d.name));

  const podsOn = new Map<string, PodView[]>();
  for (const pod of topology.pods) {
    const list = podsOn.get(pod.node) ?? [];
    list.push(pod);
    podsOn.set(pod.node, list);
  }

  const sized = topology.nodes.map((node) => {
    const all = (podsOn.get(node.name) ?? []).sort(podOrder);
    const single = all.filter((p) => !aggregated.has(p.deployment));
    const grouped = new Map<string, PodView[]>();
    for (const p of all) {
      if (!aggregated.has(p.deployment)) continue;
      const list = grouped.get(p.deployment);
      if (list) list.push(p);
      else grouped.set(p.deployment, [p]);
    }
    const compact = single.length + grouped.size > COMPACT_ABOVE;
    return { node, single, grouped, compact };
  });
  const anyFull = sized.some((s) => !s.compact && s.single.length > 0);
  const nodeW = anyFull ? Math.max(NODE_W_FULL, NODE_W_COMPACT) : NODE_W_COMPACT;
  const inner = nodeW - 2 * NODE_PAD;

  /** Places a node's chips and pods from (0, 0) inside its pod area; returns its height. */
  function placeContents(s: (typeof sized)[number], ox: number, oy: number, pods: Map<number, PodBox>, groups: GroupBox[]): number {
    let y = oy;
    for (const [deployment, list] of s.grouped) {
      groups.push({ key: `${s.node.name}/${deployment}`, node: s.node.name, deployment, pods: list, x: ox, y, w: Math.min(GROUP_W, inner), h: GROUP_H });
      y += GROUP_H + GAP;
    }
    const cw = s.compact ? COMPACT_POD : POD_W;
    const ch = s.compact ? COMPACT_POD : POD_H;
    const gap = s.compact ? 4 : GAP;
    const cols = Math.max(1, Math.floor((inner + gap) / (cw + gap)));
    s.single.forEach((pod, i) => {
      pods.set(pod.index, { pod, compact: s.compact, x: ox + (i % cols) * (cw + gap), y: y + Math.floor(i / cols) * (ch + gap), w: cw, h: ch });
    });
    const rows = Math.ceil(s.single.length / cols);
    y += rows * ch + Math.max(0, rows - 1) * gap;
    return Math.max(y - oy, COMPACT_POD);
  }

  const scratchPods = new Map<number, PodBox>();
  const heights = sized.map((s) => {
    const contents = placeContents(s, 0, 0, scratchPods, []);
    const cloud = s.node.instance !== null;
    return NODE_HEADER + contents + NODE_PAD + (cloud ? INSTANCE_BAND + INSTANCE_PAD : 0);
  });
  const cellW = nodeW + (sized.some((s) => s.node.instance) ? 2 * INSTANCE_PAD : 0);
  const indices = sized.map((_, i) => i);
  /**
   * Routers, load balancers, Services and systems outside, at a scale, and what they take around the grid; a band
   * wider than `wrap` (at scale 1) goes on as many lines as it needs.
   */
  const elements = (scale: number, wrap = Infinity) => {
    const externals: ExternalBox[] = topology.externals.map((external) => ({ external, scale, x: 0, y: 0, w: EXT_W * scale, h: EXT_H * scale }));
    const routers: RouterBox[] = topology.routers.map((router) => ({ router, scale, x: 0, y: 0, w: ROUTER_W * scale, h: ROUTER_H * scale }));
    const lbs: LbBox[] = topology.loadBalancers.map((lb) => ({ lb, scale, x: 0, y: 0, w: LB_W * scale, h: LB_H * scale }));
    const services: ServiceBox[] = topology.services.map((service) => ({ service, scale, x: 0, y: 0, w: SVC_W * scale, h: SVC_H * scale }));
    const gap = BOX_GAP * scale;
    const lines: ElementBox[][] = [];
    for (const band of [routers, lbs, services] as ElementBox[][]) {
      let line: ElementBox[] = [];
      let w = -gap;
      for (const box of band) {
        if (line.length > 0 && w + gap + box.w > wrap * scale) {
          lines.push(line);
          line = [];
          w = -gap;
        }
        line.push(box);
        w += gap + box.w;
      }
      if (line.length > 0) lines.push(line);
    }
    const rowW = Math.max(0, ...lines.map((b) => b.reduce((s, r) => s + r.w + gap, -gap)));
    const bandsH = lines.reduce((s, b) => s + Math.max(...b.map((r) => r.h)) + BAND_GAP * scale, 0);
    const left = externals.length > 0 ? (EXT_W + EXT_GAP) * scale : 0;
    const leftH = externals.length * (EXT_H + EXT_GAP_Y) * scale;
    return { externals, routers, lbs, services, lines, gap, rowW, bandsH, left, leftH, scale, wrap };
  };
  let el = elements(1);
  let blocks: Block[] = siteBlocks(sized.map((s) => s.node));
  const racked = blocks.filter((b) => b.site !== null).length;
  const rackPad = racked > 0 ? GROUP_PAD : 0;
  const fitSites = (around: typeof el) =>
    bestColumns(
      blocks.map((b) => b.members.map((i) => heights[i]!)),
      cellW,
      { w: around.rowW, h: around.bandsH, left: around.left, leftH: around.leftH },
      0,
      view,
      {
        pad: rackPad,
        titled: blocks.map((b) => b.site !== null),
        titlePx: GROUP_TITLE_PX,
        titleW: Math.max(0, ...blocks.map((b) => (b.site ? rackTitleW(rackTitle(b.site, b.members.length)) : 0))),
      },
    );
  let fitted = fitSites(el);
  // A band of many boxes in one line would shrink the whole picture for its sake: it may wrap, at as many boxes a line
  // (three at least) as draws the picture biggest.
  const longest = Math.max(topology.routers.length, topology.loadBalancers.length, topology.services.length);
  for (let perLine = 3; perLine < longest; perLine++) {
    const wrapped = elements(1, perLine * (SVC_W + BOX_GAP));
    const f = fitSites(wrapped);
    if (f.scale > fitted.scale * 1.001) [el, fitted] = [wrapped, f];
  }
  const byRole = new Map<string, number[]>();
  for (const i of indices) {
    const role = roles?.get(sized[i]!.node.name) ?? '';
    byRole.set(role, [...(byRole.get(role) ?? []), i]);
  }
  // Headings take room on screen whatever the zoom: a short panel gets their title lines only, a shorter one none.
  let captionPx = 0;
  const headingPx = byRole.size * GROUP_BAND_PX <= view.height * 0.6 ? GROUP_BAND_PX : byRole.size * GROUP_TITLE_PX <= view.height * 0.6 ? GROUP_TITLE_PX : 0;
  if (roles && fitted.scale < GROUPS_BELOW && sized.length >= GROUP_MIN_MACHINES && headingPx > 0) {
    blocks = [...byRole].map(([role, members]) => ({ role, site: null, members }));
    const blockHeights = blocks.map((b) => b.members.map((i) => heights[i]!));
    const groupsH = blocks.length * (2 * GROUP_PAD + CELL_GAP);
    const around = { w: el.rowW, h: el.bandsH + groupsH, left: el.left + 2 * GROUP_PAD, leftH: el.leftH };
    fitted = bestColumns(blockHeights, cellW, around, blocks.length * headingPx, view);
    // The boxes around the grid keep names readable at Fit, drawn at `shown` of their size on screen, if they fit:
    // across the view, and in 45 % of its height. The grid is fitted to the room they leave.
    const wrapped = elements(1, view.width / ELEMENT_SHOWN - el.left);
    const shown = Math.min(ELEMENT_SHOWN, view.width / (wrapped.left + wrapped.rowW), (view.height * 0.45) / Math.max(1, wrapped.bandsH));
    if (shown >= ELEMENT_SHOWN_MIN && shown > fitted.scale) {
      const rest = { width: view.width - wrapped.left * shown, height: view.height - wrapped.bandsH * shown };
      fitted = bestColumns(blockHeights, cellW, { w: 0, h: groupsH, left: 2 * GROUP_PAD, leftH: 0 }, blocks.length * headingPx, rest);
      el = elements(shown / Math.max(fitted.scale, MIN_FIT_SCALE_GUESS), wrapped.wrap);
    } else if (topology.routers.length + topology.loadBalancers.length + topology.services.length + topology.externals.length > 0 && FAR_NAME_PX * fitted.scale < MIN_TEXT_PX) {
      // Too small at Fit for even their far names: they are named in a caption line above them instead.
      captionPx = GROUP_TITLE_PX;
      fitted = bestColumns(blockHeights, cellW, around, blocks.length * headingPx + captionPx, view);
    }
  }
  const { externals, routers, lbs, services, lines, left, rowW: bandRowW } = el;
  const grouped = blocks[0]!.role !== null;
  const cols = fitted.cols;
  const fitScale = Math.max(fitted.scale, MIN_FIT_SCALE_GUESS);
  const bandH = (grouped ? headingPx : GROUP_TITLE_PX) / fitScale;
  const pad = grouped ? GROUP_PAD : rackPad;
  const gridW = cols * cellW + (cols - 1) * CELL_GAP;
  const across = grouped ? 1 : fitted.across;
  const blocksW = across * (gridW + 2 * pad) + (across - 1) * CELL_GAP;
  const bandsW = Math.max(blocksW, bandRowW);
  const caption = captionPx > 0 ? { x: 0, y: 0, w: left + bandsW, h: captionPx / fitScale, px: captionPx } : null;
  let y = caption?.h ?? 0;
  for (const line of lines) {
    const h = row(line, y, bandsW, el.gap);
    for (const b of line) b.x += left;
    if (h > 0) y += h + BAND_GAP * el.scale;
  }

  const nodes: NodeBox[] = [];
  const nodesByName = new Map<string, NodeBox>();
  const nodesByIp = new Map<string, NodeBox>();
  const pods = new Map<number, PodBox>();
  const groups: GroupBox[] = [];
  const machineGroups: MachineGroup[] = [];
  const racks: RackFrame[] = [];
  const blocksLeft = left + Math.max(0, (bandsW - blocksW) / 2);
  // Blocks stand `across` to a row; each row of blocks starts below the tallest of the row before.
  let rowTop = y;
  blocks.forEach((block, b) => {
    if (b % across === 0) rowTop = y;
    const gridLeft = blocksLeft + (b % across) * (gridW + 2 * pad + CELL_GAP) + pad;
    const top = rowTop;
    let by = top;
    if (grouped || block.site) by += pad + bandH;
    const machines: NodeBox[] = [];
    for (let start = 0; start < block.members.length; start += cols) {
      const members = block.members.slice(start, start + cols);
      const rowH = Math.max(...members.map((i) => heights[i]!));
      members.forEach((m, i) => {
        const s = sized[m]!;
        const x = gridLeft + i * (cellW + CELL_GAP);
        const cloud = s.node.instance !== null;
        const innerRect = cloud ? { x: x + INSTANCE_PAD, y: by + INSTANCE_BAND, w: nodeW, h: rowH - INSTANCE_BAND - INSTANCE_PAD } : { x, y: by, w: nodeW, h: rowH };
        const box: NodeBox = { node: s.node, inner: innerRect, compact: s.compact, x, y: by, w: cellW, h: rowH };
        nodes.push(box);
        machines.push(box);
        nodesByName.set(s.node.name, box);
        nodesByIp.set(s.node.ip, box);
        placeContents(s, innerRect.x + NODE_PAD, innerRect.y + NODE_HEADER, pods, groups);
      });
      by += rowH + CELL_GAP;
    }
    if (grouped || block.site) {
      by += pad - CELL_GAP;
      const frame = { x: gridLeft - pad, y: top, w: gridW + 2 * pad, h: by - top };
      const band = { x: frame.x, y: top, w: frame.w, h: pad + bandH };
      if (grouped) machineGroups.push({ role: block.role!, machines, ...frame, band, headingPx });
      else racks.push({ ...block.site!, machines: block.members.length, title: rackTitle(block.site!, block.members.length), ...frame, band, headingPx: GROUP_TITLE_PX });
      by += CELL_GAP;
    }
    y = Math.max(y, by);
  });
  const height = Math.max(y - CELL_GAP, 0);

  let ey = caption?.h ?? 0;
  for (const e of externals) {
    e.y = ey;
    ey += e.h + EXT_GAP_Y * el.scale;
  }

  const podsByName = new Map<string, PodBox>();
  const podRect = new Map<number, Rect>();
  for (const box of pods.values()) {
    podsByName.set(box.pod.name, box);
    podRect.set(box.pod.index, box);
  }
  for (const g of groups) for (const p of g.pods) podRect.set(p.index, g);

  return {
    width: left + bandsW,
    height: Math.max(height, ey),
    racks,
    machineGroups,
    caption,
    nodes,
    nodesByName,
    nodesByIp,
    pods,
    podsByName,
    groups,
    podRect,
    services,
    routers,
    lbs,
    externals,
    deployments,
  };
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

/** A gentle arc between two boxes; each state bends a little more so overlapping states stay visible. */
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

/** A gauge drawn at (x, y) in the picture: which node, which table, and its limit. */
export interface GaugeBox {
  node: number;
  kind: 'ct' | 'dns' | 'tracked';
  x: number;
  y: number;
  max: number;
}

/** Every machine's gauges: the node's conntrack and node-local DNS slots, and the instance's tracked connections. */
export function gaugeBoxes(l: TopologyLayout): GaugeBox[] {
  return l.nodes.flatMap((b) => {
    const n = b.node;
    const x = b.inner.x + GAUGE.nodeX;
    const y = b.inner.y + GAUGE.nodeY;
    const out: GaugeBox[] = [{ node: n.index, kind: 'ct', x, y, max: n.conntrackMax }];
    if (n.dnsMaxConcurrent !== null) out.push({ node: n.index, kind: 'dns', x: x + GAUGE.w + GAUGE.gap, y, max: n.dnsMaxConcurrent });
    if (n.instance) out.push({ node: n.index, kind: 'tracked', x: b.x + b.w - GAUGE.w - GAUGE.instanceRight, y: b.y + GAUGE.instanceY, max: n.instance.allowance });
    return out;
  });
}

/** Where a wire site is drawn: traffic lines meet at `flow`; drop marks line up leftwards from `mark`, clear of the text. */
export interface SitePoint {
  flow: [number, number];
  mark: [number, number];
}

/**
 * Anchors of each wire site (TopologyView.sites): a node's box, an instance's band, an element's box; null if not drawn.
 * With `grouped`, every site of a group's machines shares the group's anchor (one object), on its frame's left edge
 * beside the heading, so traffic between groups reads like a service graph and a group's drops are marked once.
 */
export function sitePoints(topology: TopologyView, l: TopologyLayout, grouped = false): (SitePoint | null)[] {
  const byEntity = new Map<string, SitePoint>();
  // Marks sit on a box's top edge at its right end, away from the name at its left.
  const boxPoint = (r: Rect): SitePoint => ({ flow: [r.x + r.w / 2, r.y + r.h / 2], mark: [r.x + r.w, r.y] });
  for (const n of l.nodes) {
    const i = n.inner;
    byEntity.set(`node/${n.node.name}`, { flow: [i.x + i.w / 2, i.y + NODE_HEADER / 2], mark: [i.x + i.w, i.y] });
    if (n.node.instance) byEntity.set(n.node.instance.entity, { flow: [n.x + n.w / 2, n.y + INSTANCE_BAND / 2], mark: [n.x + n.w, n.y] });
  }
  if (grouped) {
    for (const g of l.machineGroups) {
      const point: SitePoint = { flow: [g.x, g.band.y + g.band.h / 2], mark: [g.x + g.w, g.y] };
      for (const m of g.machines) {
        byEntity.set(`node/${m.node.name}`, point);
        if (m.node.instance) byEntity.set(m.node.instance.entity, point);
      }
    }
  }
  for (const r of l.routers) byEntity.set(r.router.entity, boxPoint(r));
  for (const b of l.lbs) byEntity.set(b.lb.entity, boxPoint(b));
  for (const e of l.externals) byEntity.set(e.external.entity, boxPoint(e));
  return topology.sites.map((s) => byEntity.get(s) ?? null);
}

/** What a search term finds: the entity and the box to zoom to, by name or address, exact matches first. */
export function searchTopology(topology: TopologyView, layout: TopologyLayout, term: string): { entity: string; deployment?: string; box?: Rect } | null {
  const q = term.trim().toLowerCase();
  if (!q) return null;
  const candidates: { entity: string; keys: string[]; deployment?: string; box: () => Rect | undefined }[] = [
    ...topology.pods.map((p) => ({ entity: `pod/${p.name}`, keys: [p.name, p.ip], deployment: p.deployment, box: () => layout.podRect.get(p.index) })),
    ...layout.nodes.map((n) => ({ entity: `node/${n.node.name}`, keys: [n.node.name, n.node.ip, ...n.node.interfaces.flatMap((i) => (i.ip ? [i.ip] : []))], box: () => n.inner })),
    ...layout.nodes.flatMap((n) => (n.node.instance ? [{ entity: n.node.instance.entity, keys: [] as string[], box: () => n as Rect }] : [])),
    ...layout.routers.map((r) => ({ entity: r.router.entity, keys: [r.router.name, r.router.ip], box: () => r })),
    ...layout.lbs.map((b) => ({ entity: b.lb.entity, keys: [b.lb.name, b.lb.ip], box: () => b })),
    ...layout.services.map((s) => ({ entity: `service/${s.service.name}`, keys: [s.service.name, s.service.clusterIp], box: () => s })),
    ...layout.externals.map((e) => ({ entity: e.external.entity, keys: [e.external.name, e.external.ip ?? ''], box: () => e })),
  ];
  const exact = candidates.find((c) => c.entity.toLowerCase() === q || c.keys.some((k) => k.toLowerCase() === q));
  const hit = exact ?? candidates.find((c) => c.keys.some((k) => k.toLowerCase().includes(q)));
  if (!hit) return null;
  const box = hit.box();
  return { entity: hit.entity, ...(hit.deployment ? { deployment: hit.deployment } : {}), ...(box ? { box } : {}) };
}
