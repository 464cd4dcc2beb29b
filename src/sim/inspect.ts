import { formatCount } from './core/format';
import type { InspectSection, Inspection } from './api';
import { ExternalHost } from './infra/external-host';
import type { Host } from './infra/host';
import { LoadBalancerHop } from './infra/load-balancer-hop';
import { RouterHop } from './infra/router-hop';
import { XFF_POLICY_TEXT } from './net/forwarded';
import { formatCidr, formatIpv4 } from './net/ipv4';
import { TABLE_LOCAL, TABLE_MAIN } from './net/policy-routing';
import type { Route } from './net/route-table';
import { TcpState, type TcpStack } from './net/tcp';
import type { World } from './world';

/** The inspector's view of one entity: what its mechanisms hold right now, as labelled rows. */

/** Rows kept per list; the rest is counted, so a node with a thousand rules stays readable. */
const LIST_ROWS = 12;
const TRACES_SHOWN = 5;

function list(title: string, rows: [string, string][]): InspectSection {
  return rows.length > LIST_ROWS ? { title, rows: rows.slice(0, LIST_ROWS), more: rows.length - LIST_ROWS } : { title, rows };
}

const used = (n: number, max: number): string => `${formatCount(n)} of ${formatCount(max)} (${max > 0 ? Math.round((100 * n) / max) : 0} %)`;

function routeText(r: Route): string {
  const parts = [r.type === 'unicast' ? '' : r.type, r.via === undefined ? '' : `via ${formatIpv4(r.via)}`, r.dev ? `dev ${r.dev}` : ''];
  return parts.filter(Boolean).join(' ') || r.type;
}

function sockets(tcp: TcpStack): InspectSection {
  const counts = tcp.stateCounts();
  return {
    title: 'TCP sockets',
    rows: [
      ['connecting (SYN sent)', formatCount(counts[TcpState.synSent])],
      ['SYN received', formatCount(counts[TcpState.synReceived])],
      ['established', formatCount(counts[TcpState.established])],
      ['closing', formatCount(counts[TcpState.finWait]! + counts[TcpState.closed]!)],
    ],
  };
}

function inspectNode(world: World, host: Host): InspectSection[] {
  const nodeLocal = world.dns?.nodeLocal ?? null;
  const inFlight = nodeLocal?.inFlightOn(host.name) ?? -1;
  const rules = host.routing.listRules();
  const main = host.routing.table(TABLE_MAIN).list();
  return [
    {
      title: 'Node',
      rows: [
        ['address', formatIpv4(host.ip)],
        ['pod CIDR', formatCidr(host.podCidr)],
        ['platform', host.platform],
        ['in the cluster', host.inCluster ? (host.schedulable ? 'yes, schedulable' : 'yes, cordoned') : 'no (not joined, or removed)'],
        ['rp_filter (all)', String(host.rpFilterAll)],
        ['conntrack', used(host.conntrack.size, host.conntrack.max)],
        ['pods with an address here', formatCount(host.pods.size)],
        ...(inFlight >= 0 ? ([['node-local DNS slots in use', used(inFlight, nodeLocal!.maxConcurrent)]] as [string, string][]) : []),
      ],
    },
    // A node without a label a topology key names is in no domain of it (docs/sources/kubernetes-scheduling.md#node-labels).
    list(
      'Labels',
      Object.entries(host.labels).map(([key, value]): [string, string] => [key, value]),
    ),
    {
      title: 'Interfaces',
      rows: host.ifaces
        .filter((i) => i.kind !== 'veth')
        .map((i) => [i.name, `${i.addresses.map(formatIpv4).join(', ') || 'no IPv4 address'} · ${i.kind} · rp_filter ${Math.max(i.rpFilter, host.rpFilterAll)}`]),
    },
    list(
      'ip rule',
      rules.map((r) => [
        String(r.priority),
        `${r.from ? `from ${formatCidr(r.from)} ` : ''}${r.to ? `to ${formatCidr(r.to)} ` : ''}lookup ${r.table === TABLE_MAIN ? 'main' : r.table === TABLE_LOCAL ? 'local' : r.table}`,
      ]),
    ),
    list(
      'Routes (main table)',
      main.map((r) => [formatCidr(r.dst), routeText(r)]),
    ),
    ...ipamSections(world, host),
    kubeProxySection(world, host),
    ...bgpSections(world, host.entity),
  ];
}

/** Calico's block IPAM on the node: the blocks it holds and who holds its tunnel address. */
function ipamSections(world: World, host: Host): InspectSection[] {
  const ipam = host.ipam;
  if (!ipam) return [];
  const rows: [string, string][] = ipam.blocks.map((b) => [formatCidr(b), `${ipam.used(b)} of ${ipam.capacity} addresses in use`]);
  const tunnel = world.cni.tunnelAddress(host);
  if (tunnel !== undefined) rows.push(['tunl0 address', `${formatIpv4(tunnel)}, IPAM handle: ${ipam.handleOf(tunnel) ?? 'none (released)'}`]);
  return [{ title: 'IPAM blocks (Calico)', rows }];
}

function kubeProxySection(world: World, host: Host): InspectSection {
  const kp = world.kubeProxy;
  return {
    title: 'kube-proxy',
    rows: [
      ['sync', kp.syncing(host.index) ? 'running now' : 'idle'],
      ['Services with changes not yet written', formatCount(kp.pendingChanges(host.index))],
      ['time spent syncing (last second)', `${Math.round(kp.busy(host.index) * 100)} %`],
      ['healthz', kp.proxyHealthy(host.index) ? 'healthy' : 'unhealthy (a sync is overdue)'],
    ],
  };
}

/** The BGP sessions of a node or a router as one block, each by its peer: state, routes the router holds from it. */
function bgpSections(world: World, entity: string): InspectSection[] {
  const sessions = (world.edge.metallb?.sessions() ?? []).filter((s) => s.speaker === entity || s.router === entity);
  if (sessions.length === 0) return [];
  const rows = sessions.map((s): [string, string] => [
    s.speaker === entity ? s.router : s.speaker,
    `${s.up ? 'established' : 'down'} · ${s.routes} route${s.routes === 1 ? '' : 's'} at the router`,
  ]);
  return [list('BGP sessions (MetalLB)', rows)];
}

function inspectInstance(host: Host): InspectSection[] {
  const h = host.hypervisor!;
  return [
    {
      title: 'Instance (hypervisor)',
      rows: [
        ['node', host.name],
        ['tracked connections', used(h.table.size, h.allowance)],
        ['addresses attached', formatCount(h.attached.size)],
        ['what it tracks', 'every flow through a security group, in and out, until the flow times out'],
      ],
    },
  ];
}

function inspectPod(world: World, name: string): InspectSection[] | null {
  const pods = world.workloads.pods;
  let pod;
  for (let i = pods.length - 1; i >= 0; i--) if (pods[i]!.name === name) pod = pods[i];
  if (!pod) return null;
  const attached = pod.phase === 'gone' && world.network.fabric.holder(pod.ip) >= 0;
  const sections: InspectSection[] = [
    {
      title: 'Pod',
      rows: [
        ['phase', pod.phase],
        ['ready', pod.ready ? 'yes' : 'no'],
        ['address', `${formatIpv4(pod.ip)}${attached ? ' (still attached to the instance)' : ''}`],
        ['node', pod.host.name],
        ['deployment', pod.deployment],
      ],
    },
  ];
  if (pod.phase !== 'gone') sections.push(sockets(pod.tcp));
  const probes = world.workloads.probeSection(pod);
  if (probes) sections.push(probes);
  if (pod.phase !== 'gone' && pod.app?.inspect) sections.push(...pod.app.inspect());
  return sections;
}

function inspectService(world: World, name: string): InspectSection[] | null {
  const s = world.services.get(name);
  if (!s) return null;
  return [
    {
      title: 'Service',
      rows: [
        ['ClusterIP', `${formatIpv4(s.clusterIp)}:${s.port}`],
        ['selector', s.selector],
        ['type', s.type],
        ...(s.type !== 'ClusterIP' ? ([['externalTrafficPolicy', s.externalTrafficPolicy]] as [string, string][]) : []),
      ],
    },
    list(
      'Endpoints',
      s.slice.endpoints.map((e) => [formatIpv4(e.ip), `${world.workloads.pods[e.pod]?.name ?? '?'} · ${e.ready ? 'ready' : e.terminating ? 'terminating' : 'not ready'}`]),
    ),
  ];
}

function inspectElement(world: World, entity: string): InspectSection[] | null {
  const element = world.network.elements.find((e) => e.entity === entity);
  if (element instanceof RouterHop) {
    const r = element.router;
    return [
      {
        title: 'Router',
        rows: [
          ['address', formatIpv4(element.ip)],
          ['ECMP', `${r.ecmpMode}, hash key ${r.hashSeed}`],
        ],
      },
      ...r.multipathRoutes().map((m) =>
        list(
          `ECMP group ${m.prefix}`,
          m.hops.map((hop, i) => [`next hop ${i + 1}`, formatIpv4(hop)]),
        ),
      ),
      ...bgpSections(world, element.entity),
    ];
  }
  if (element instanceof LoadBalancerHop) {
    const lb = element.lb;
    const rows: [string, string][] = [
      ['self IP', formatIpv4(lb.selfIp)],
      ['virtual servers', formatCount(lb.virtualServerCount)],
      ['X-Forwarded-For', XFF_POLICY_TEXT[element.xff]],
      ['nodes route back via it', element.returnRoutes.length === 0 ? 'nothing: they answer clients directly' : element.returnRoutes.map(formatCidr).join(', ')],
    ];
    const out: InspectSection[] = [{ title: 'Load balancer', rows }];
    for (let vs = 0; vs < lb.virtualServerCount; vs++) {
      const members = lb
        .members(vs)
        .map((id) => lb.member(id))
        .filter((m) => !m.removed);
      const snat = lb.snatMode(vs) === 'automap' ? 'SNAT automap' : 'no SNAT';
      out.push(
        list(
          `Pool of ${lb.virtualServerName(vs)} (${snat})`,
          members.map((m) => [`${formatIpv4(m.ip)}:${m.port}`, `${m.kind} · ${m.health}${m.activated ? '' : ' · not yet activated'}`]),
        ),
      );
    }
    return out;
  }
  if (element instanceof ExternalHost) {
    return [{ title: 'Outside the cluster', rows: [['address', formatIpv4(element.ip)]] }, sockets(element.tcp)];
  }
  return null;
}

/** A rack: where it stands, its switch, and what its machines' labels tell the scheduler about it. */
function inspectRack(world: World, name: string): InspectSection[] | null {
  const hosts = world.hosts.filter((h) => h.rack === name);
  if (hosts.length === 0) return null;
  const up = hosts.some((h) => h.uplinkUp);
  return [
    {
      title: 'Rack',
      rows: [
        ['room', hosts[0]!.room ?? 'not given'],
        ['top-of-rack switch', up ? 'up' : 'failed: its machines are cut off'],
        ['machines', formatCount(hosts.length)],
      ],
    },
    // Where a machine stands reaches the scheduler only through a label (docs/sources/kubernetes-scheduling.md#node-labels).
    list(
      'Machines and the labels that place them',
      hosts.map((h): [string, string] => {
        const naming = Object.entries(h.labels).filter(([, value]) => value === name);
        return [h.name, naming.length === 0 ? `no label names ${name}` : naming.map(([key, value]) => `${key}=${value}`).join(', ')];
      }),
    ),
  ];
}

export function inspectEntity(world: World, entity: string): Inspection | null {
  const slash = entity.indexOf('/');
  const kind = entity.slice(0, slash);
  const name = entity.slice(slash + 1);
  let sections: InspectSection[] | null = null;
  if (kind === 'node') {
    const host = world.hosts.find((h) => h.name === name);
    sections = host ? inspectNode(world, host) : null;
  } else if (kind === 'instance') {
    const host = world.hosts.find((h) => h.hypervisor?.entity === entity);
    sections = host ? inspectInstance(host) : null;
  } else if (kind === 'pod') sections = inspectPod(world, name);
  else if (kind === 'service') sections = inspectService(world, name);
  else if (kind === 'zookeeper') sections = world.mesh && name === 'ensemble' ? world.mesh.zk.inspect() : null;
  else if (kind === 'rack') sections = inspectRack(world, name);
  else sections = inspectElement(world, entity);
  if (!sections) return null;
  // A node's traces include its instance's hops and its pods', since they are the same machine's story.
  const host = kind === 'node' ? world.hosts.find((h) => h.name === name) : undefined;
  const machine = new Set([entity, ...(host ? [host.hypervisor?.entity ?? '', ...[...host.pods.values()].map((p) => p.entity)] : [])]);
  const mine = (where: string): boolean => machine.has(where);
  const traces = world.ctx.tracer
    .recent()
    .filter((t) => t.hops.some((h) => mine(h.where)))
    .reverse()
    .slice(0, TRACES_SHOWN);
  const requests = world.ctx.requests
    .recent()
    .filter((r) => r.hops.some((h) => mine(h.where)))
    .reverse()
    .slice(0, TRACES_SHOWN);
  return { entity, sections, traces, requests };
}
