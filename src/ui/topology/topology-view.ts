import { select } from 'd3';
import type { PodView, TopologyView } from '../../sim/api';
import { ConnState } from '../../sim/api';
import {
  connectionPath,
  groupConnections,
  layoutTopology,
  nodeSubtitle,
  type ConnectionGroup,
  type NodeBox,
  type PodBox,
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
  /** Redraws structure; returns the drawing's size for the zoom controller. */
  setTopology(topology: TopologyView): { width: number; height: number };
  setConnections(triples: Int32Array): ConnectionCounts;
  /** Marks one pod as selected (by name), or none. */
  setSelectedPod(name: string | null): void;
  destroy(): void;
}

const MAX_NAME = 18;
const clip = (s: string, n = MAX_NAME): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function podTitle(pod: PodView): string {
  const readiness = pod.phase === 'running' ? (pod.ready ? 'ready' : 'not ready') : pod.phase;
  return `pod/${pod.name} · ${pod.ip || 'no IP'} · ${readiness} · deployment ${pod.deployment} · node ${pod.node}`;
}

/** Outline drawn around a selected or keyboard-focused pod, a few pixels outside its box. */
function ringPath(b: PodBox): string {
  const o = b.compact ? 3 : 4;
  const r = (b.compact ? 4 : 8) + o;
  const w = b.w + 2 * o;
  const h = b.h + 2 * o;
  return `M${-o + r},${-o}h${w - 2 * r}a${r},${r} 0 0 1 ${r},${r}v${h - 2 * r}a${r},${r} 0 0 1 ${-r},${r}h${-(w - 2 * r)}a${r},${r} 0 0 1 ${-r},${-r}v${-(h - 2 * r)}a${r},${r} 0 0 1 ${r},${-r}z`;
}

const stateName = (state: number): string =>
  state === ConnState.connecting ? 'connecting' : state === ConnState.established ? 'established' : 'closing';

export function createTopologyDrawing(root: SVGGElement): TopologyDrawing {
  const g = select(root);
  g.selectAll('*').remove();
  const endpointLayer = g.append('g').attr('class', 'topo-endpoints');
  const nodeLayer = g.append('g').attr('class', 'topo-nodes');
  const connLayer = g.append('g').attr('class', 'topo-conns');
  const podLayer = g.append('g').attr('class', 'topo-pods');
  const svcLayer = g.append('g').attr('class', 'topo-services');
  let layout: TopologyLayout | undefined;
  let lastTriples: Int32Array = new Int32Array(0);
  let selectedPod: string | null = null;

  function drawNodes(boxes: NodeBox[]): void {
    nodeLayer
      .selectAll<SVGGElement, NodeBox>('g.topo-node')
      .data(boxes, (b) => b.node.name)
      .join((enter) => {
        const n = enter.append('g').attr('class', 'topo-node');
        n.append('rect').attr('class', 'topo-node-box').attr('rx', 12);
        n.append('text').attr('class', 'topo-node-title').attr('x', 14).attr('y', 22);
        n.append('text').attr('class', 'topo-node-sub').attr('x', 14).attr('y', 39);
        n.append('title');
        return n;
      })
      .attr('transform', (b) => `translate(${b.x},${b.y})`)
      .call((n) => {
        n.select('rect').attr('width', (b) => b.w).attr('height', (b) => b.h);
        n.select('.topo-node-title').text((b) => `node/${b.node.name}`);
        n.select('.topo-node-sub').text((b) => nodeSubtitle(b.node));
        n.select('title').text((b) => `node/${b.node.name} · ${b.node.ip} · pod CIDR ${b.node.podCidr}`);
      });
  }

  function drawPods(boxes: PodBox[]): void {
    podLayer
      .selectAll<SVGGElement, PodBox>('g.topo-pod')
      .data(boxes, (b) => String(b.pod.index))
      .join((enter) => {
        // Focusable buttons: the panel around the drawing turns click, Enter and Space on them into a selection.
        const p = enter
          .append('g')
          .attr('class', 'topo-pod')
          .attr('data-testid', 'pod')
          .attr('tabindex', 0)
          .attr('role', 'button');
        p.append('path').attr('class', 'topo-pod-ring');
        p.append('rect');
        p.append('text').attr('class', 'name').attr('x', 10).attr('y', 19);
        p.append('text').attr('class', 'sub').attr('x', 10).attr('y', 36);
        p.append('title');
        return p;
      })
      .attr('transform', (b) => `translate(${b.x},${b.y})`)
      .attr('data-phase', (b) => b.pod.phase)
      .attr('data-ready', (b) => String(b.pod.ready))
      .attr('data-pod', (b) => b.pod.name)
      .attr('aria-label', (b) => `pod ${b.pod.name}`)
      .attr('data-selected', (b) => (b.pod.name === selectedPod ? 'true' : null))
      .call((p) => {
        p.select('.topo-pod-ring').attr('d', ringPath);
        p.select('rect')
          .attr('width', (b) => b.w)
          .attr('height', (b) => b.h)
          .attr('rx', (b) => (b.compact ? 4 : 8));
        p.select('.name').text((b) => (b.compact ? '' : clip(b.pod.name)));
        p.select('.sub').text((b) => (b.compact ? '' : clip(`${b.pod.ip || '—'} · ${b.pod.deployment}`, 21)));
        p.select('title').text((b) => podTitle(b.pod));
      });
  }

  function drawServices(boxes: ServiceBox[], l: TopologyLayout): void {
    svcLayer
      .selectAll<SVGGElement, ServiceBox>('g.topo-svc')
      .data(boxes, (b) => b.service.name)
      .join((enter) => {
        const s = enter.append('g').attr('class', 'topo-svc');
        s.append('rect').attr('rx', 10);
        s.append('text').attr('class', 'name').attr('x', 14).attr('y', 24);
        s.append('text').attr('class', 'sub').attr('x', 14).attr('y', 45);
        s.append('title');
        return s;
      })
      .attr('transform', (b) => `translate(${b.x},${b.y})`)
      .call((s) => {
        s.select('rect').attr('width', (b) => b.w).attr('height', (b) => b.h);
        s.select('.name').text((b) => `svc/${b.service.name}`);
        s.select('.sub').text((b) => {
          const n = b.service.endpoints.length;
          return `${b.service.clusterIp}:${b.service.port} · ${n} endpoint${n === 1 ? '' : 's'}`;
        });
        s.select('title').text(
          (b) => `svc/${b.service.name} selects ${b.service.selector}; endpoints: ${b.service.endpoints.join(', ') || 'none'}`,
        );
      });

    const links = boxes.flatMap((box) =>
      box.service.endpoints.flatMap((podName) => {
        const pod = l.podsByName.get(podName);
        return pod ? [{ key: `${box.service.name}>${podName}`, box, pod }] : [];
      }),
    );
    endpointLayer
      .selectAll<SVGPathElement, (typeof links)[number]>('path')
      .data(links, (d) => d.key)
      .join('path')
      .attr('class', 'topo-endpoint')
      .attr('d', ({ box, pod }) => {
        const x1 = box.x + box.w / 2;
        const y1 = box.y + box.h;
        const x2 = pod.x + pod.w / 2;
        const y2 = pod.y;
        const my = (y1 + y2) / 2;
        return `M${x1},${y1}C${x1},${my} ${x2},${my} ${x2},${y2}`;
      });
  }

  function drawConnections(triples: Int32Array): ConnectionCounts {
    const counts: ConnectionCounts = { connecting: 0, established: 0, closing: 0 };
    const l = layout;
    if (!l) return counts;
    const groups = groupConnections(triples).filter((c) => l.pods.has(c.client) && l.pods.has(c.server));
    for (const c of groups) counts[stateName(c.state) as keyof ConnectionCounts] += c.count;
    type Drawn = ConnectionGroup & { d: string; mid: [number, number] };
    const drawn: Drawn[] = groups.map((c) => ({ ...c, ...connectionPath(l.pods.get(c.client)!, l.pods.get(c.server)!, c.state) }));
    const key = (c: ConnectionGroup): string => `${c.client}:${c.server}:${c.state}`;

    connLayer
      .selectAll<SVGPathElement, Drawn>('path.topo-conn')
      .data(drawn, key)
      .join('path')
      .attr('class', 'topo-conn')
      .attr('data-state', (c) => c.state)
      .attr('d', (c) => c.d)
      .attr('stroke-width', (c) => 1.75 + Math.log2(c.count));

    connLayer
      .selectAll<SVGTextElement, Drawn>('text.topo-conn-count')
      .data(
        drawn.filter((c) => c.count > 1),
        key,
      )
      .join('text')
      .attr('class', 'topo-conn-count')
      .attr('text-anchor', 'middle')
      .attr('dy', '0.35em')
      .attr('x', (c) => c.mid[0])
      .attr('y', (c) => c.mid[1])
      .text((c) => `×${c.count}`);
    return counts;
  }

  return {
    setTopology(topology) {
      const l = layoutTopology(topology);
      layout = l;
      drawNodes(l.nodes);
      drawPods([...l.pods.values()]);
      drawServices(l.services, l);
      drawConnections(lastTriples);
      return { width: l.width, height: l.height };
    },
    setConnections(triples) {
      lastTriples = triples;
      return drawConnections(triples);
    },
    setSelectedPod(name) {
      selectedPod = name;
      podLayer
        .selectAll<SVGGElement, PodBox>('g.topo-pod')
        .attr('data-selected', (b) => (b.pod.name === name ? 'true' : null));
    },
    destroy() {
      g.selectAll('*').remove();
    },
  };
}
