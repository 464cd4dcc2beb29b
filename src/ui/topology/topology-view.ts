import { select, type Selection } from 'd3';
import { type LbMemberView, type LiveView, type NodeView, type PodView, type TopologyView, ConnState } from '../../sim';
import { quiet } from '../components/quiet';
import { FAR_BELOW } from './gauge-layer';
import { groupTitle, keepRoles, podsLine } from './machine-groups';
import { MIN_TEXT_PX } from './zoom';
import { fitSvgText } from '../components/fit-text';
import {
  connectionPath,
  groupConnections,
  GAUGE,
  GROUP_HEADING,
  headingTop,
  FAR_NAME_PX,
  interfacesLine,
  layoutTopology,
  nodeSubtitle,
  type ConnectionGroup,
  type ExternalBox,
  type GroupBox,
  type Heading,
  type LbBox,
  type MachineGroup,
  type NodeBox,
  type PodBox,
  type RackFrame,
  type Rect,
  type RouterBox,
  type ServiceBox,
  type TopologyLayout,
} from './topology-layout';

/** Draws the topology into an SVG <g> with d3 joins; knows nothing about React or the store. */

export interface ConnectionCounts {
  connecting: number;
  established: number;
  closing: number;
}

export interface TopologyDrawing {
  /** Redraws structure; returns the new layout for the zoom controller and the traffic layer. */
  setTopology(topology: TopologyView): TopologyLayout;
  /** Gauges, pool members and ECMP next hops of the latest frame. */
  setLive(live: LiveView): void;
  setConnections(triples: Int32Array): ConnectionCounts;
  /** Marks one entity (`kind/name`) as selected, or none. */
  setSelected(entity: string | null): void;
  /** Makes an entity's ring pulse for a few seconds. */
  pulse(entity: string): void;
  /** Deployments drawn pod by pod although they crowd their nodes; the others become one chip per node. */
  setExpanded(deployments: ReadonlySet<string>): TopologyLayout | undefined;
  /** The part of the panel that Fit fills, which decides how many machines go in a row; relays out when it changes. */
  setViewport(width: number, height: number): TopologyLayout | undefined;
  /** Far away, boxes show only their name and their fullest gauge, in bigger type. */
  setZoomScale(k: number): void;
  destroy(): void;
}

const MAX_NAME = 18;
/** Characters of a name that fit its box in the far view's big type: an element's (250 px at 26 px), a system outside's (220 px), a pod's (156 px at 22 px). */
const FAR_NAME = 15;
const FAR_EXTERNAL_NAME = 12;
const FAR_POD_NAME = 11;
/** As long as the CSS pulse animation runs (4 × 0.8 s). */
const PULSE_MS = 3200;
const clip = (s: string, n = MAX_NAME): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
/** Deployment colours in the theme (--c-d0 … --c-d7). */
const PALETTE_SIZE = 8;

export function podState(pod: PodView): string {
  if (pod.phase === 'running') return pod.ready ? 'ready' : 'not ready';
  if (pod.phase === 'gone') return pod.ipAttached ? 'gone, IP still attached' : 'gone';
  return pod.phase;
}

const STATE_ORDER = ['ready', 'not ready', 'pending', 'terminating', 'gone, IP still attached', 'gone'];

/** Pods per state, in the order the pods first show each state. */
function stateCounts(pods: readonly PodView[]): Map<string, number> {
  const by = new Map<string, number>();
  for (const p of pods) {
    const state = podState(p);
    by.set(state, (by.get(state) ?? 0) + 1);
  }
  return by;
}

function podTitle(pod: PodView): string {
  return `pod/${pod.name} · ${pod.ip || 'no IP'} · ${podState(pod)} · deployment ${pod.deployment} · node ${pod.node}`;
}

/** Outline drawn around a selected or keyboard-focused box, a few pixels outside it. */
function ringPath(w: number, h: number, radius: number, o: number): string {
  const r = radius + o;
  const W = w + 2 * o;
  const H = h + 2 * o;
  return `M${-o + r},${-o}h${W - 2 * r}a${r},${r} 0 0 1 ${r},${r}v${H - 2 * r}a${r},${r} 0 0 1 ${-r},${r}h${-(W - 2 * r)}a${r},${r} 0 0 1 ${-r},${-r}v${-(H - 2 * r)}a${r},${r} 0 0 1 ${r},${-r}z`;
}

const stateName = (state: number): string => (state === ConnState.connecting ? 'connecting' : state === ConnState.established ? 'established' : 'closing');

type Gauge = 'ct' | 'dns' | 'tracked';

/** A gauge's label and empty track; the gauge layer paints its fill and figures every frame. */
function appendGauge(parent: Selection<SVGGElement, NodeBox, SVGGElement, unknown>, kind: Gauge, x: number, y: number, label: string): void {
  const g = parent.append('g').attr('class', `topo-gauge detail`).attr('data-gauge', kind).attr('transform', `translate(${x},${y})`);
  g.append('text').attr('class', 'topo-gauge-label').attr('y', GAUGE.textY).text(label);
  g.append('rect')
    .attr('class', 'topo-gauge-track')
    .attr('x', 0)
    .attr('y', GAUGE.barY)
    .attr('width', GAUGE.w)
    .attr('height', GAUGE.barH)
    .attr('rx', GAUGE.barH / 2);
}

export function createTopologyDrawing(root: SVGGElement): TopologyDrawing {
  const g = select(root);
  g.selectAll('*').remove();
  const defs = g.append('defs');
  defs
    .append('pattern')
    .attr('id', 'topo-hatch')
    .attr('patternUnits', 'userSpaceOnUse')
    .attr('width', 6)
    .attr('height', 6)
    .attr('patternTransform', 'rotate(45)')
    .append('rect')
    .attr('width', 2.5)
    .attr('height', 6)
    .attr('class', 'topo-hatch-stripe');
  const rackLayer = g.append('g').attr('class', 'topo-racks');
  const machineGroupLayer = g.append('g').attr('class', 'topo-mgroups');
  const captionLayer = g.append('g').attr('class', 'topo-caption');
  const bandLinks = g.append('g').attr('class', 'topo-band-links');
  const endpointLayer = g.append('g').attr('class', 'topo-endpoints');
  const nodeLayer = g.append('g').attr('class', 'topo-nodes');
  const connLayer = g.append('g').attr('class', 'topo-conns');
  const groupLayer = g.append('g').attr('class', 'topo-groups');
  const podLayer = g.append('g').attr('class', 'topo-pods');
  const bandLayer = g.append('g').attr('class', 'topo-bands');
  const extLayer = g.append('g').attr('class', 'topo-externals');
  let topology: TopologyView | undefined;
  let layout: TopologyLayout | undefined;
  let expanded: ReadonlySet<string> = new Set();
  let lastTriples: Int32Array = new Int32Array(0);
  let lastLive: LiveView | undefined;
  let selected: string | null = null;
  let pulseTimer: ReturnType<typeof setTimeout> | undefined;
  let colourOf = new Map<string, number>();
  let deploymentByPod = new Map<number, string>();
  let viewport = { width: 1550, height: 720 };
  let far: boolean | null = null;
  let scale = 1;
  let roles: Map<string, string> | null = null;
  /** Texts under this size (CSS px at scale 1) are hidden: at the zoom shown they would be drawn under MIN_TEXT_PX. */
  let minFont = 0;
  // Pool members and ECMP next hops as last drawn; empty after a relayout so they are drawn again.
  let lastMembers = '';
  let lastRoutes = '';
  let lastSessions = '';

  /** Each group's frame and heading; the heading keeps its size on screen (GROUP_HEADING), the gauge layer fills it. */
  function drawMachineGroups(groups: MachineGroup[]): void {
    const t = topology!;
    machineGroupLayer
      .selectAll<SVGGElement, MachineGroup>('g.topo-mgroup')
      .data(groups, (d) => d.role)
      .join((enter) => {
        const m = enter.append('g').attr('class', 'topo-mgroup').attr('data-testid', 'machine-group').attr('role', 'button').attr('tabindex', 0);
        m.append('rect').attr('class', 'topo-mgroup-box').attr('rx', 18);
        const label = m.append('g').attr('class', 'topo-mgroup-label');
        const title = label.append('text').attr('class', 'topo-mgroup-title screen-text').attr('x', GROUP_HEADING.x).attr('y', GROUP_HEADING.titleY);
        title.append('tspan').attr('class', 'topo-mgroup-name');
        title.append('tspan').attr('class', 'topo-mgroup-pods');
        m.append('title');
        return m;
      })
      .call((m) => {
        const title = (d: MachineGroup): string =>
          groupTitle(
            d.role,
            d.machines.map((b) => b.node),
          );
        quiet(m)
          .attr('data-role', (d) => d.role)
          .attr('aria-label', (d) => `${title(d)}; press to zoom in on them`);
        quiet(m.select('rect'))
          .attr('x', (d) => d.x)
          .attr('y', (d) => d.y)
          .attr('width', (d) => d.w)
          .attr('height', (d) => d.h);
        quiet(m.select('.topo-mgroup-name')).text(title);
        quiet(m.select('.topo-mgroup-pods')).text((d) => ` · ${podsLine(t, new Set(d.machines.map((b) => b.node.name)))}`);
        quiet(m.select('title')).text((d) => `${d.machines.map((b) => b.node.name).join(', ')}. Press to zoom in on them.`);
      });
  }

  /** Each rack's frame around its machines, titled with where they stand and how many of them no label places there. */
  function drawRacks(racks: RackFrame[]): void {
    rackLayer
      .selectAll<SVGGElement, RackFrame>('g.topo-rack')
      .data(racks, (d) => `${d.room ?? ''}/${d.rack ?? ''}`)
      .join((enter) => {
        const r = enter.append('g').attr('class', 'topo-rack').attr('data-testid', 'rack');
        r.append('rect').attr('class', 'topo-rack-box').attr('rx', 12);
        r.append('path').attr('class', 'topo-ring');
        r.append('g').attr('class', 'topo-rack-label').append('text').attr('class', 'topo-rack-title screen-text').attr('x', GROUP_HEADING.x).attr('y', GROUP_HEADING.titleY);
        r.append('title');
        return r;
      })
      .call((r) => {
        // A rack is a fault target (its switch); a room alone is only a frame.
        quiet(r)
          .attr('aria-label', rackLabel)
          .attr('data-rack', (d) => d.rack ?? '')
          .attr('data-switch', (d) => (d.rack === null ? null : d.switchDown ? 'down' : 'up'))
          .attr('data-entity', (d) => (d.rack === null ? null : `rack/${d.rack}`))
          .attr('role', (d) => (d.rack === null ? 'group' : 'button'))
          .attr('tabindex', (d) => (d.rack === null ? null : 0));
        quiet(r.select('.topo-rack-box'))
          .attr('x', (d) => d.x)
          .attr('y', (d) => d.y)
          .attr('width', (d) => d.w)
          .attr('height', (d) => d.h);
        quiet(r.select('.topo-ring'))
          .attr('d', (d) => ringPath(d.w, d.h, 12, 3))
          .attr('transform', (d) => `translate(${d.x},${d.y})`);
        quiet(r.select('title')).text(rackLabel);
      });
  }

  /** The caption naming the boxes around the grid that are too small at Fit to carry their own names. */
  function drawCaption(l: TopologyLayout): void {
    const t = topology!;
    const counts = new Map<string, number>();
    const names = [
      ...t.routers.map((r) => `router/${r.name}`),
      ...t.loadBalancers.map((lb) => `lb/${lb.name}`),
      ...t.services.map((s) => `svc/${s.name}`),
      ...t.externals.map((e) => e.name),
    ];
    for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
    const words = [...counts].map(([name, n]) => (n > 1 ? `${name} × ${n}` : name)).join(' · ');
    captionLayer
      .selectAll<SVGTextElement, Rect & { px: number }>('text')
      .data(l.caption ? [l.caption] : [])
      .join((enter) => enter.append('text').attr('class', 'topo-caption-text screen-text').attr('data-testid', 'element-caption').attr('x', GROUP_HEADING.x).attr('y', GROUP_HEADING.titleY))
      .attr('data-words', words);
  }

  function placeHeadings(): void {
    // From each frame's data, which the last drawing set: the label inside still holds the data it was created with.
    const place = (label: Element, d: Heading): void => label.setAttribute('transform', `translate(${d.band.x},${headingTop(d, scale)}) scale(${1 / scale})`);
    machineGroupLayer.selectAll<SVGGElement, MachineGroup>('g.topo-mgroup').each(function (d) {
      place(this.querySelector('.topo-mgroup-label')!, d);
    });
    rackLayer.selectAll<SVGGElement, RackFrame>('g.topo-rack').each(function (d) {
      const label = this.querySelector('.topo-rack-label')!;
      place(label, d);
      // A frame narrower on screen than its title (racks of one machine, zoomed out) cuts it; the tooltip keeps it whole.
      fitSvgText(label.querySelector('text')!, d.title, d.w * scale - 2 * GROUP_HEADING.x);
    });
    // The caption goes once the boxes' own names can be read; it is cut to the width it has on screen.
    captionLayer.selectAll<SVGTextElement, Rect & { px: number }>('text').each(function (c) {
      const shown = scale * FAR_NAME_PX < MIN_TEXT_PX;
      this.toggleAttribute('data-tiny', !shown);
      if (!shown) return;
      this.setAttribute('transform', `translate(${c.x},${Math.max(c.y, c.y + c.h - c.px / scale)}) scale(${1 / scale})`);
      fitSvgText(this, this.getAttribute('data-words') ?? '', c.w * scale - 2 * GROUP_HEADING.x);
    });
  }

  function drawNodes(boxes: NodeBox[]): void {
    nodeLayer
      .selectAll<SVGGElement, NodeBox>('g.topo-machine')
      .data(boxes, (b) => b.node.name)
      .join((enter) => {
        const m = enter.append('g').attr('class', 'topo-machine');
        const inst = m.append('g').attr('class', 'topo-instance').attr('role', 'button').attr('tabindex', 0);
        inst.append('path').attr('class', 'topo-ring');
        inst.append('rect').attr('class', 'topo-instance-box').attr('rx', 14);
        inst.append('text').attr('class', 'topo-instance-title detail').attr('x', 12).attr('y', 20);
        inst.append('title');
        const n = m.append('g').attr('class', 'topo-node').attr('role', 'button').attr('tabindex', 0);
        n.append('path').attr('class', 'topo-ring');
        n.append('rect').attr('class', 'topo-node-box').attr('rx', 10);
        n.append('text').attr('class', 'topo-node-title detail').attr('x', 12).attr('y', 22);
        n.append('text').attr('class', 'topo-node-sub detail').attr('x', 12).attr('y', 39);
        n.append('text').attr('class', 'topo-node-sub topo-ifaces detail').attr('x', 12).attr('y', 54);
        appendGauge(n, 'ct', GAUGE.nodeX, GAUGE.nodeY, 'conntrack');
        appendGauge(n, 'dns', GAUGE.nodeX + GAUGE.w + GAUGE.gap, GAUGE.nodeY, 'DNS slots');
        n.append('text').attr('class', 'topo-far-title far').attr('x', 14).attr('y', 44);
        n.append('title');
        // The instance's gauge sits in its band, drawn after the node so it stays on top.
        m.append('g').attr('class', 'topo-instance-gauge');
        return m;
      })
      .call((m) => {
        quiet(m).attr('data-node', (b) => b.node.name);
        const inst = m.select<SVGGElement>('.topo-instance');
        quiet(inst)
          .attr('display', (b) => (b.node.instance ? null : 'none'))
          .attr('data-entity', (b) => b.node.instance?.entity ?? null)
          .attr('aria-label', (b) => `instance ${b.node.name}`)
          .attr('transform', (b) => `translate(${b.x},${b.y})`);
        quiet(inst.select('.topo-ring')).attr('d', (b) => ringPath(b.w, b.h, 14, 4));
        quiet(inst.select('rect'))
          .attr('width', (b) => b.w)
          .attr('height', (b) => b.h);
        quiet(inst.select('.topo-instance-title')).text((b) => `instance/${b.node.name}`);
        quiet(inst.select('title')).text(
          (b) => `instance/${b.node.name}: the hypervisor in front of node ${b.node.name}; it tracks connections up to its allowance of ${b.node.instance?.allowance ?? 0}`,
        );
        const instGauge = m.select<SVGGElement>('.topo-instance-gauge');
        quiet(instGauge)
          .attr('display', (b) => (b.node.instance ? null : 'none'))
          .attr('transform', (b) => `translate(${b.x + b.w - GAUGE.w - GAUGE.instanceRight},${b.y + GAUGE.instanceY})`);
        instGauge.each(function (b) {
          const sel = select(this);
          if (sel.select('.topo-gauge').empty() && b.node.instance) appendGauge(sel as never, 'tracked', 0, 0, 'tracked');
        });
        const n = m.select<SVGGElement>('.topo-node');
        quiet(n)
          .attr('data-entity', (b) => `node/${b.node.name}`)
          .attr('data-in-cluster', (b) => String(b.node.inCluster))
          .attr('data-powered', (b) => String(b.node.powered))
          .attr('data-uplink', (b) => String(b.node.uplinkUp))
          .attr('aria-label', (b) => `node ${b.node.name}${darkness(b.node) ? `, ${darkness(b.node)}` : ''}${b.node.inCluster ? '' : ', not in the cluster'}${nodeLabelsText(b.node)}`)
          .attr('transform', (b) => `translate(${b.inner.x},${b.inner.y})`);
        quiet(n.select('.topo-ring')).attr('d', (b) => ringPath(b.inner.w, b.inner.h, 10, 3));
        quiet(n.select('.topo-node-box'))
          .attr('width', (b) => b.inner.w)
          .attr('height', (b) => b.inner.h);
        quiet(n.select('.topo-node-title')).text(
          (b) => `node/${b.node.name}${darkness(b.node) ? ` · ${darkness(b.node)}` : !b.node.inCluster ? ' · not in the cluster' : !b.node.schedulable ? ' · cordoned' : ''}`,
        );
        quiet(n.select('.topo-far-title')).text((b) =>
          !b.node.powered ? `${b.node.name} (off)` : !b.node.uplinkUp ? `${b.node.name} (cut off)` : b.node.inCluster ? b.node.name : `${b.node.name} (out)`,
        );
        quiet(n.select('.topo-node-sub')).text((b) => `${nodeSubtitle(b.node)} · rp_filter ${b.node.rpFilter}`);
        quiet(n.select('.topo-ifaces')).text((b) => interfacesLine(b.node));
        quiet(n.select('[data-gauge="dns"]')).attr('display', (b) => (b.node.dnsMaxConcurrent === null ? 'none' : null));
        quiet(n.select('title')).text(
          (b) => `node/${b.node.name} · ${b.node.ip} · pod CIDR ${b.node.podCidr} · ${b.node.platform} · rp_filter (all) ${b.node.rpFilter}\ninterfaces: ${interfacesLine(b.node)}`,
        );
      });
  }

  const podColour = (deployment: string): string => `var(--c-d${(colourOf.get(deployment) ?? 0) % PALETTE_SIZE})`;

  function drawPods(boxes: PodBox[]): void {
    podLayer
      .selectAll<SVGGElement, PodBox>('g.topo-pod')
      .data(boxes, (b) => String(b.pod.index))
      .join((enter) => {
        // Focusable buttons: the panel around the drawing turns click, Enter and Space on them into a selection.
        const p = enter.append('g').attr('class', 'topo-pod').attr('data-testid', 'pod').attr('tabindex', 0).attr('role', 'button');
        p.append('path').attr('class', 'topo-ring');
        p.append('rect').attr('class', 'topo-pod-body');
        p.append('rect').attr('class', 'topo-pod-hatch');
        p.append('text').attr('class', 'name').attr('x', 10).attr('y', 19);
        p.append('text').attr('class', 'topo-far-name far').attr('x', 10).attr('y', 31);
        p.append('text').attr('class', 'sub').attr('x', 10).attr('y', 36);
        p.append('text').attr('class', 'topo-pod-ip-tag');
        p.append('title');
        return p;
      })
      .call((p) => {
        quiet(p)
          .attr('transform', (b) => `translate(${b.x},${b.y})`)
          .style('--pod', (b) => podColour(b.pod.deployment))
          .attr('data-phase', (b) => b.pod.phase)
          .attr('data-ready', (b) => String(b.pod.ready))
          .attr('data-ip-attached', (b) => String(b.pod.ipAttached))
          .attr('data-pod', (b) => b.pod.name)
          .attr('data-entity', (b) => `pod/${b.pod.name}`)
          .attr('data-deployment', (b) => b.pod.deployment)
          .attr('data-node', (b) => b.pod.node)
          .attr('aria-label', (b) => `pod ${b.pod.name}, ${podState(b.pod)}`)
          .attr('data-selected', (b) => (`pod/${b.pod.name}` === selected ? 'true' : null));
        quiet(p.select('.topo-ring')).attr('d', (b) => ringPath(b.w, b.h, b.compact ? 4 : 8, b.compact ? 3 : 4));
        // select, not selectAll, so each rect takes the pod's new box rather than the one it was created with.
        for (const part of ['.topo-pod-body', '.topo-pod-hatch']) {
          quiet(p.select(part))
            .attr('width', (b) => b.w)
            .attr('height', (b) => b.h)
            .attr('rx', (b) => (b.compact ? 4 : 8));
        }
        quiet(p.select('.name')).text((b) => (b.compact ? '' : clip(b.pod.name)));
        quiet(p.select('.topo-far-name')).text((b) => (b.compact ? '' : clip(b.pod.name, FAR_POD_NAME)));
        quiet(p.select('.sub')).text((b) => (b.compact ? '' : clip(`${b.pod.ip || '—'} · ${b.pod.deployment}`, 19)));
        quiet(p.select('.topo-pod-ip-tag'))
          .attr('x', (b) => (b.compact ? b.w / 2 : b.w - 8))
          .attr('y', (b) => (b.compact ? b.h / 2 + 3.5 : 16))
          .attr('text-anchor', (b) => (b.compact ? 'middle' : 'end'))
          .text((b) => (b.pod.ipAttached ? 'IP' : ''));
        quiet(p.select('title')).text((b) => podTitle(b.pod));
      });
  }

  function drawGroups(boxes: GroupBox[]): void {
    groupLayer
      .selectAll<SVGGElement, GroupBox>('g.topo-group')
      .data(boxes, (b) => b.key)
      .join((enter) => {
        const c = enter.append('g').attr('class', 'topo-group').attr('data-testid', 'pod-group').attr('tabindex', 0).attr('role', 'button');
        c.append('rect').attr('class', 'topo-group-body').attr('rx', 6);
        c.append('g').attr('class', 'topo-group-states');
        c.append('text').attr('class', 'topo-group-label').attr('x', 8).attr('y', 17);
        c.append('title');
        return c;
      })
      .call((c) => {
        quiet(c)
          .attr('transform', (b) => `translate(${b.x},${b.y})`)
          .style('--pod', (b) => podColour(b.deployment))
          .attr('data-group', (b) => b.deployment)
          .attr('data-deployment', (b) => b.deployment)
          .attr('data-node', (b) => b.node)
          .attr('aria-label', (b) => `${b.pods.length} pods of ${b.deployment} on ${b.node}; press to show them one by one`);
        quiet(c.select('.topo-group-body'))
          .attr('width', (b) => b.w)
          .attr('height', (b) => b.h);
        quiet(c.select('.topo-group-label')).text((b) => `${clip(b.deployment, 16)} × ${b.pods.length}`);
        // One count per group for its title and its strip: a group holds up to hundreds of pods.
        const counts = new Map(boxes.map((b) => [b, stateCounts(b.pods)]));
        quiet(c.select('title')).text((b) => {
          const by = counts.get(b)!;
          return `${b.pods.length} pods of ${b.deployment} on node ${b.node}: ${[...by].map(([s, n]) => `${n} ${s}`).join(', ')}. Click to show each pod.`;
        });
        // A strip along the bottom: the share of the group's pods in each state.
        c.select<SVGGElement>('.topo-group-states').each(function (b) {
          const by = counts.get(b)!;
          let x = 0;
          const parts = STATE_ORDER.map((s) => ({ s, n: by.get(s) ?? 0 }))
            .filter((p) => p.n > 0)
            .map((p) => {
              const w = (b.w * p.n) / b.pods.length;
              const part = { ...p, x, w };
              x += w;
              return part;
            });
          const rects = select(this)
            .selectAll<SVGRectElement, (typeof parts)[number]>('rect')
            .data(parts)
            .join((enter) => enter.append('rect').attr('class', 'topo-group-state').attr('height', 5));
          quiet(rects)
            .attr('data-state', (p) => p.s)
            .attr('x', (p) => p.x)
            .attr('y', b.h - 5)
            .attr('width', (p) => p.w);
        });
      });
  }

  function drawBands(l: TopologyLayout): void {
    const boxes: { key: string; entity: string; kind: string; title: string; sub: string; tip: string; rect: RouterBox | LbBox | ServiceBox }[] = [
      ...l.routers.map((r) => ({
        key: r.router.entity,
        entity: r.router.entity,
        kind: 'router',
        title: r.router.entity,
        sub: `${r.router.ip} · ECMP ${r.router.ecmp} · seed ${r.router.hashSeed}`,
        tip: `${r.router.entity}: a router that spreads flows over BGP next hops by hashing (${r.router.ecmp}, key ${r.router.hashSeed})`,
        rect: r,
      })),
      ...l.lbs.map((b) => ({
        key: b.lb.entity,
        entity: b.lb.entity,
        kind: 'lb',
        title: b.lb.entity,
        sub: `self IP ${b.lb.ip}`,
        tip: `${b.lb.entity}: a load balancer; its pool members are coloured by health`,
        rect: b,
      })),
      ...l.services.map((s) => ({
        key: `svc/${s.service.name}`,
        entity: `service/${s.service.name}`,
        kind: 'svc',
        title: `svc/${s.service.name}`,
        sub: `${s.service.clusterIp}:${s.service.port} · ${s.service.endpoints.length} endpoint${s.service.endpoints.length === 1 ? '' : 's'}`,
        tip: `svc/${s.service.name} selects ${s.service.selector}; endpoints: ${s.service.endpoints.join(', ') || 'none'}`,
        rect: s,
      })),
    ];
    bandLayer
      .selectAll<SVGGElement, (typeof boxes)[number]>('g.topo-band')
      .data(boxes, (b) => b.key)
      .join((enter) => {
        const s = enter.append('g').attr('class', 'topo-band').attr('tabindex', 0).attr('role', 'button');
        s.append('path').attr('class', 'topo-ring');
        s.append('rect').attr('class', 'topo-band-box').attr('rx', 10);
        s.append('text').attr('class', 'name detail').attr('x', 14).attr('y', 24);
        s.append('text').attr('class', 'sub detail').attr('x', 14).attr('y', 45);
        s.append('text').attr('class', 'topo-far-name far').attr('x', 14).attr('y', 41);
        s.append('g').attr('class', 'topo-members');
        s.append('title');
        return s;
      })
      .call((s) => {
        quiet(s)
          .attr('data-kind', (b) => b.kind)
          .attr('data-entity', (b) => b.entity)
          .attr('aria-label', (b) => b.title)
          .attr('data-scale', (b) => (b.rect.scale === 1 ? null : b.rect.scale))
          .attr('transform', (b) => `translate(${b.rect.x},${b.rect.y})${b.rect.scale === 1 ? '' : ` scale(${b.rect.scale})`}`);
        quiet(s.select('.topo-ring')).attr('d', (b) => ringPath(b.rect.w / b.rect.scale, b.rect.h / b.rect.scale, 10, 4));
        quiet(s.select('.topo-band-box'))
          .attr('width', (b) => b.rect.w / b.rect.scale)
          .attr('height', (b) => b.rect.h / b.rect.scale);
        quiet(s.select('.name')).text((b) => b.title);
        quiet(s.select('.topo-far-name')).text((b) => clip(b.title, FAR_NAME));
        quiet(s.select('.sub')).text((b) => b.sub);
        quiet(s.select('title')).text((b) => b.tip);
      });

    const links = l.services.flatMap((box) =>
      box.service.endpoints.flatMap((podName) => {
        const pod = l.podsByName.get(podName);
        return pod ? [{ key: `${box.service.name}>${podName}`, box, pod }] : [];
      }),
    );
    const endpoints = endpointLayer
      .selectAll<SVGPathElement, (typeof links)[number]>('path')
      .data(links, (d) => d.key)
      .join((enter) => enter.append('path').attr('class', 'topo-endpoint'));
    quiet(endpoints).attr('d', ({ box, pod }) => curve(box.x + box.w / 2, box.y + box.h, pod.x + pod.w / 2, pod.y));
  }

  function drawExternals(boxes: ExternalBox[]): void {
    extLayer
      .selectAll<SVGGElement, ExternalBox>('g.topo-external')
      .data(boxes, (b) => b.external.entity)
      .join((enter) => {
        const e = enter.append('g').attr('class', 'topo-external').attr('tabindex', 0).attr('role', 'button');
        e.append('path').attr('class', 'topo-ring');
        e.append('rect').attr('class', 'topo-external-box').attr('rx', 10);
        e.append('text').attr('class', 'name detail').attr('x', 12).attr('y', 20);
        e.append('text').attr('class', 'sub detail').attr('x', 12).attr('y', 38);
        e.append('text').attr('class', 'topo-far-name far').attr('x', 12).attr('y', 34);
        e.append('title');
        return e;
      })
      .call((e) => {
        quiet(e)
          .attr('data-entity', (b) => b.external.entity)
          .attr('data-kind', (b) => b.external.kind)
          .attr('aria-label', (b) => b.external.entity)
          .attr('data-scale', (b) => (b.scale === 1 ? null : b.scale))
          .attr('transform', (b) => `translate(${b.x},${b.y})${b.scale === 1 ? '' : ` scale(${b.scale})`}`);
        quiet(e.select('.topo-ring')).attr('d', (b) => ringPath(b.w / b.scale, b.h / b.scale, 10, 4));
        quiet(e.select('rect'))
          .attr('width', (b) => b.w / b.scale)
          .attr('height', (b) => b.h / b.scale);
        quiet(e.select('.name')).text((b) => clip(b.external.entity, 26));
        quiet(e.select('.topo-far-name')).text((b) => clip(b.external.name, FAR_EXTERNAL_NAME));
        const what = { resolver: 'upstream resolver', 'dns-provider': 'DNS provider API', client: 'client on the internet', zookeeper: 'service discovery' };
        quiet(e.select('.sub')).text((b) => `${what[b.external.kind]}${b.external.ip ? ` · ${b.external.ip}` : ''}`);
        quiet(e.select('title')).text((b) => `${b.external.entity}: ${what[b.external.kind]}, outside the cluster`);
      });
  }

  function drawMembers(members: LbMemberView[], l: TopologyLayout): void {
    const chipW = 16;
    const byLb = new Map<string, LbMemberView[]>();
    for (const m of members) byLb.set(m.lb, [...(byLb.get(m.lb) ?? []), m]);
    bandLayer.selectAll<SVGGElement, { entity: string; rect: LbBox }>('g.topo-band[data-kind="lb"]').each(function () {
      const entity = this.getAttribute('data-entity')!;
      const list = byLb.get(entity) ?? [];
      select(this)
        .select('.topo-members')
        .selectAll<SVGRectElement, LbMemberView>('rect')
        .data(list, (m) => `${m.virtualServer}/${m.ip}:${m.port}`)
        .join((enter) => {
          const r = enter
            .append('rect')
            .attr('class', 'topo-member')
            .attr('rx', 3)
            .attr('width', chipW - 3)
            .attr('height', 12);
          r.append('title');
          return r;
        })
        .call((r) => {
          quiet(r)
            .attr('data-ip', (m) => m.ip)
            .attr('x', (_m, i) => 14 + i * chipW)
            .attr('y', 54)
            .attr('data-health', (m) => m.health);
          quiet(r.select('title')).text((m) => `${m.virtualServer} member ${m.ip}:${m.port} (${m.kind}) · health ${m.health}`);
        });
    });
    const links = members.flatMap((m) => {
      const lb = l.lbs.find((b) => b.lb.entity === m.lb);
      const node = m.kind === 'node' ? l.nodesByIp.get(m.ip) : undefined;
      const i = (byLb.get(m.lb) ?? []).indexOf(m);
      return lb && node ? [{ key: `${m.lb}>${m.virtualServer}>${m.ip}`, m, x1: lb.x + (14 + i * chipW + 6) * lb.scale, y1: lb.y + lb.h, node }] : [];
    });
    const memberLinks = bandLinks
      .selectAll<SVGPathElement, (typeof links)[number]>('path.topo-member-link')
      .data(links, (d) => d.key)
      .join((enter) => enter.append('path').attr('class', 'topo-member-link'));
    quiet(memberLinks)
      .attr('data-health', (d) => d.m.health)
      .attr('d', (d) => curve(d.x1, d.y1, d.node.inner.x + d.node.inner.w / 2, d.node.y));
  }

  function drawRoutes(routes: LiveView['routes'], l: TopologyLayout): void {
    const links = routes.flatMap((r) => {
      const router = l.routers.find((b) => b.router.entity === r.router);
      if (!router) return [];
      return r.nextHops.flatMap((hop, i) => {
        const node = l.nodesByIp.get(hop);
        return node ? [{ key: `${r.router}>${r.prefix}>${hop}`, prefix: r.prefix, i, n: r.nextHops.length, router, node }] : [];
      });
    });
    bandLinks
      .selectAll<SVGPathElement, (typeof links)[number]>('path.topo-ecmp')
      .data(links, (d) => d.key)
      .join((enter) => {
        const p = enter.append('path').attr('class', 'topo-ecmp');
        p.append('title');
        return p;
      })
      .call((p) => {
        quiet(p)
          .attr('data-dark', (d) => String(darkness(d.node.node) !== ''))
          .attr('d', (d) => curve(d.router.x + d.router.w / 2, d.router.y + d.router.h, d.node.inner.x + d.node.inner.w / 2, d.node.y));
        const dark = (node: NodeView): string => (darkness(node) ? ` — ${darkness(node)}, yet still a next hop: its share of the flows is lost until BGP notices` : '');
        quiet(p.select('title')).text((d) => `${d.prefix}: ECMP next hop ${d.i + 1} of ${d.n}, node ${d.node.node.name}${dark(d.node.node)}`);
      });
  }

  /** BGP sessions, dotted, beside the ECMP next hops: a peer that announces nothing has a session and no next hop. */
  function drawSessions(sessions: LiveView['bgpSessions'], l: TopologyLayout): void {
    const links = sessions.flatMap((s) => {
      const router = l.routers.find((b) => b.router.entity === s.router);
      const node = l.nodesByName.get(s.node.replace(/^node\//, ''));
      return router && node ? [{ key: `${s.router}>${s.node}`, s, router, node }] : [];
    });
    const paths = bandLinks
      .selectAll<SVGPathElement, (typeof links)[number]>('path.topo-bgp')
      .data(links, (d) => d.key)
      .join((enter) => {
        const p = enter.append('path').attr('class', 'topo-bgp');
        p.append('title');
        return p;
      });
    quiet(paths)
      .attr('data-up', (d) => String(d.s.up))
      .attr('d', (d) => curve(d.router.x + d.router.w / 2 - 12, d.router.y + d.router.h, d.node.inner.x + d.node.inner.w / 2 - 12, d.node.y));
    quiet(paths.select('title')).text((d) => `BGP session ${d.s.node} ↔ ${d.s.router}: ${d.s.up ? 'established' : 'down'}, ${d.s.routes} route${d.s.routes === 1 ? '' : 's'} at the router`);
  }

  function drawConnections(triples: Int32Array): ConnectionCounts {
    const counts: ConnectionCounts = { connecting: 0, established: 0, closing: 0 };
    const l = layout;
    if (!l) return counts;
    const groups = groupConnections(triples).filter((c) => l.podRect.has(c.client) && l.podRect.has(c.server));
    for (const c of groups) counts[stateName(c.state) as keyof ConnectionCounts] += c.count;
    type Drawn = ConnectionGroup & { d: string; mid: [number, number] };
    const drawn: Drawn[] = groups.map((c) => ({ ...c, ...connectionPath(l.podRect.get(c.client)!, l.podRect.get(c.server)!, c.state) }));
    const key = (c: ConnectionGroup): string => `${c.client}:${c.server}:${c.state}`;

    const paths = connLayer
      .selectAll<SVGPathElement, Drawn>('path.topo-conn')
      .data(drawn, key)
      .join((enter) => enter.append('path').attr('class', 'topo-conn'));
    // Which deployments a line joins, for a reader of the page (and its tests) to tell calls apart.
    const deploymentOf = (index: number): string | null => deploymentByPod.get(index) ?? null;
    quiet(paths)
      .attr('data-state', (c) => c.state)
      .attr('data-from', (c) => deploymentOf(c.client))
      .attr('data-to', (c) => deploymentOf(c.server))
      .attr('d', (c) => c.d)
      .attr('stroke-width', (c) => 1.75 + Math.log2(c.count));

    const labels = connLayer
      .selectAll<SVGTextElement, Drawn>('text.topo-conn-count')
      .data(
        drawn.filter((c) => c.count > 1),
        key,
      )
      .join((enter) => enter.append('text').attr('class', 'topo-conn-count').attr('text-anchor', 'middle').attr('dy', '0.35em'));
    quiet(labels)
      .attr('x', (c) => c.mid[0])
      .attr('y', (c) => c.mid[1])
      .text((c) => `×${c.count}`);
    return counts;
  }

  function applyLive(live: LiveView): void {
    const l = layout;
    if (!l) return;
    const membersKey = live.members.map((m) => `${m.lb}|${m.virtualServer}|${m.ip}:${m.port}|${m.health}`).join(',');
    if (membersKey !== lastMembers) {
      lastMembers = membersKey;
      drawMembers(live.members, l);
    }
    const routesKey = live.routes.map((r) => `${r.router}|${r.prefix}|${r.nextHops.join(' ')}`).join(',');
    if (routesKey !== lastRoutes) {
      lastRoutes = routesKey;
      drawRoutes(live.routes, l);
    }
    const sessionsKey = live.bgpSessions.map((s) => `${s.router}|${s.node}|${s.up}|${s.routes}`).join(',');
    if (sessionsKey !== lastSessions) {
      lastSessions = sessionsKey;
      drawSessions(live.bgpSessions, l);
    }
    hideTinyText(false);
  }

  function redraw(): TopologyLayout | undefined {
    if (!topology) return undefined;
    const l = layoutTopology(topology, expanded, viewport, roles ?? undefined);
    layout = l;
    lastMembers = '';
    lastRoutes = '';
    lastSessions = '';
    colourOf = new Map(l.deployments.map((d, i) => [d.name, i]));
    deploymentByPod = new Map(topology.pods.map((p) => [p.index, p.deployment]));
    drawRacks(l.racks);
    drawMachineGroups(l.machineGroups);
    drawCaption(l);
    placeHeadings();
    drawNodes(l.nodes);
    drawGroups(l.groups);
    drawPods([...l.pods.values()]);
    drawBands(l);
    drawExternals(l.externals);
    drawConnections(lastTriples);
    if (lastLive) applyLive(lastLive);
    markSelected();
    hideTinyText(true);
    return l;
  }

  /**
   * Hides text the zoom would draw under MIN_TEXT_PX rather than draw it illegibly; `all` false looks only at text not
   * seen before. Each text's font size is read once and kept on it, times the scale its box is drawn at now; headings
   * drawn at their size on screen are left alone.
   */
  function hideTinyText(all: boolean): void {
    g.selectAll<SVGTextElement, unknown>(all ? 'text:not(.screen-text)' : 'text:not(.screen-text):not([data-fs])').each(function () {
      let font = Number(this.getAttribute('data-fs'));
      if (!font) {
        font = parseFloat(getComputedStyle(this).fontSize) || MIN_TEXT_PX;
        this.setAttribute('data-fs', String(font));
      }
      const boxScale = Number(this.closest('[data-scale]')?.getAttribute('data-scale') ?? 1);
      const tiny = font * boxScale < minFont;
      if (tiny !== this.hasAttribute('data-tiny')) this.toggleAttribute('data-tiny', tiny);
    });
  }

  function markSelected(): void {
    quiet(g.selectAll<SVGElement, unknown>('[data-entity]')).attr('data-selected', function () {
      return this.getAttribute('data-entity') === selected ? 'true' : null;
    });
  }

  return {
    setTopology(next) {
      roles = keepRoles(roles, next);
      topology = next;
      return redraw()!;
    },
    setLive(live) {
      lastLive = live;
      applyLive(live);
    },
    setConnections(triples) {
      lastTriples = triples;
      return drawConnections(triples);
    },
    setSelected(entity) {
      selected = entity;
      markSelected();
    },
    pulse(entity) {
      clearTimeout(pulseTimer);
      g.selectAll('[data-pulse]').attr('data-pulse', null);
      g.selectAll<SVGElement, unknown>('[data-entity]')
        .filter(function () {
          return this.getAttribute('data-entity') === entity;
        })
        .attr('data-pulse', 'true');
      pulseTimer = setTimeout(() => g.selectAll('[data-pulse]').attr('data-pulse', null), PULSE_MS);
    },
    setExpanded(next) {
      expanded = next;
      return redraw();
    },
    setViewport(width, height) {
      viewport = { width, height };
      return redraw();
    },
    setZoomScale(k) {
      scale = k;
      placeHeadings();
      const min = MIN_TEXT_PX / k;
      if (Math.abs(min - minFont) > minFont * 0.01) {
        minFont = min;
        hideTinyText(true);
      }
      if (far === k < FAR_BELOW) return;
      far = k < FAR_BELOW;
      g.attr('data-far', far ? 'true' : null);
    },
    destroy() {
      clearTimeout(pulseTimer);
      g.selectAll('*').remove();
    },
  };
}

/** A vertical S-curve from (x1, y1) down to (x2, y2). */
function curve(x1: number, y1: number, x2: number, y2: number): string {
  const my = (y1 + y2) / 2;
  return `M${x1},${y1}C${x1},${my} ${x2},${my} ${x2},${y2}`;
}

/** Why the network no longer reaches a machine, or '' while it does. */
function darkness(node: NodeView): string {
  return !node.powered ? 'powered off' : !node.uplinkUp ? 'cut off by its rack switch' : '';
}

/** A rack's title with its machines counted, for its tooltip and accessible name. */
const rackLabel = (d: RackFrame): string => `${d.title} · ${d.machines} ${d.machines === 1 ? 'machine' : 'machines'}`;

/** The node's labels for its accessible name, less the hostname its name already gives. */
function nodeLabelsText(node: NodeView): string {
  const labels = Object.entries(node.labels).filter(([key]) => key !== 'kubernetes.io/hostname');
  return labels.length === 0 ? '' : `, labels ${labels.map(([key, value]) => `${key}=${value}`).join(', ')}`;
}
