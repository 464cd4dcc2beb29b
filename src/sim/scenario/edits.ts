import { isAlias, isCollection, isMap, isScalar, isSeq, type Document, type ToStringOptions } from 'yaml';
import { faultCatalog, FAULT_IDS } from '../faults/catalog';
import { cidrContains, formatIpv4, maskOf, parseCidr, parseIpv4, type Cidr, type Ipv4 } from '../net/ipv4';
import { DNS_NAMES } from './cross-checks';
import { loadScenario, type LoadResult } from './load';
import { PARAM_SECTIONS } from './params';
import { keepLayout } from './keep-layout';
import { readYaml, withoutBom } from './parse-text';
import { formatPath, isPrefix, parsePath } from './path';
import { HTTP_SERVING_APPS } from './deployments';
import type { Edit, EditKind, OutlineItem, ScalarValue, YamlPath } from './edit-kinds';

/** How edits write text: no line folding, so long lines and one-line flow maps stay on one line. */
export const SAVE_OPTIONS: ToStringOptions = { lineWidth: 0 };

// The worker loads scenarios with these, so an edit is checked exactly as the run will check it.
const LOAD_OPTIONS = { faultIds: FAULT_IDS, faults: faultCatalog() };

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const rec = (v: unknown): Json => (isRecord(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

interface PodInfo {
  node: number;
  index: number;
  name: string;
  deployment: string;
  ip: string | undefined;
}

interface NodeInfo {
  name: string;
  ip: string | undefined;
  podCidr: string | undefined;
  platform: string | undefined;
  pods: PodInfo[];
}

interface FixPath {
  fix: string;
  key: string;
  path: YamlPath;
  value: unknown;
}

/** The parts of the document edits read, taken from its plain JS value and tolerant of a file that does not load. */
interface Model {
  js: Json;
  topology: Json;
  nodes: NodeInfo[];
  deployments: [string, Json][];
  services: [string, Json][];
  routers: Json[];
  loadBalancers: Json[];
  externalClients: Json[];
  fixPaths: FixPath[];
}

function modelOf(doc: Document): Model {
  const js = rec(valueOf(doc));
  const topology = rec(js['topology']);
  const nodes = arr(topology['nodes']).map((value, n): NodeInfo => {
    const node = rec(value);
    const name = str(node['name']) ?? `#${n}`;
    const pods = arr(node['pods']).map((p, index): PodInfo => {
      const pod = rec(p);
      return { node: n, index, name: str(pod['name']) ?? `#${index}`, deployment: str(pod['deployment']) ?? '', ip: str(pod['ip']) };
    });
    return { name, ip: str(node['ip']), podCidr: str(node['podCidr']), platform: str(node['platform']), pods };
  });
  const fixPaths: FixPath[] = [];
  for (const [fix, body] of Object.entries(rec(js['fixes']))) {
    for (const [key, value] of Object.entries(rec(rec(body)['set']))) {
      try {
        fixPaths.push({ fix, key, path: parsePath(key), value });
      } catch {
        // The loader reports a malformed path; it refers to nothing an edit could break.
      }
    }
  }
  return {
    js,
    topology,
    nodes,
    deployments: Object.entries(rec(topology['deployments'])).map(([k, v]) => [k, rec(v)]),
    services: Object.entries(rec(topology['services'])).map(([k, v]) => [k, rec(v)]),
    routers: arr(topology['routers']).map(rec),
    loadBalancers: arr(topology['loadBalancers']).map(rec),
    externalClients: arr(topology['externalClients']).map(rec),
    fixPaths,
  };
}

function valueOf(doc: Document): unknown {
  try {
    // The loader's alias budget, so a hostile file cannot expand into gigabytes here either.
    return doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw new Error(`the YAML cannot be read (${(error as Error).message.split('\n')[0] ?? ''}); fix the text first`);
  }
}

function parseText(text: string): Document.Parsed {
  const read = readYaml(withoutBom(text));
  if (!read.ok) throw new Error(`${read.error}; fix the text first`);
  const { doc, lines } = read;
  const error = doc.errors[0];
  if (error) {
    const { line, col } = lines.linePos(error.pos[0]);
    throw new Error(`the YAML has an error at line ${line}, column ${col} (${error.message.split('\n')[0] ?? ''}); fix the text first`);
  }
  return doc;
}

function save(doc: Document): string {
  return doc.toString(SAVE_OPTIONS);
}

function load(text: string): LoadResult {
  return loadScenario(text, 'scenario.yaml', LOAD_OPTIONS);
}

/** Applies one edit: the edited document and its saved text, or an Error saying why not (also when a loading scenario would stop loading). */
export function applyEdit(text: string, edit: Edit): { doc: Document; text: string } {
  const doc = parseText(text);
  const model = modelOf(doc);
  if (!isMap(doc.getIn(['topology'], true))) throw new Error('the scenario has no topology map to edit');
  if (edit.op === 'add') addTo(doc, model, edit.kind);
  else if (edit.op === 'remove') removeFrom(doc, model, edit.path);
  else if (edit.op === 'unset' ? !unsetIn(doc, edit.path) : !setIn(doc, model, edit.path, edit.value)) return { doc, text };
  // What the edit did not touch keeps the layout it was written in: its comments, wrapping and flow style.
  const out = keepLayout(withoutBom(text), save(parseText(text)), save(doc));
  if (load(text).ok) {
    const after = load(out);
    if (!after.ok) throw new Error(`the scenario would no longer load: ${after.errors.slice(0, 3).join('; ')}`);
  }
  return { doc, text: out };
}

/** Returns the new text, or throws an Error whose message says why. */
export function addItem(text: string, kind: EditKind): string {
  return applyEdit(text, { op: 'add', kind }).text;
}

/** Removes the outline item at `path`, or throws an Error naming what still refers to it. */
export function removeItem(text: string, path: YamlPath): string {
  return applyEdit(text, { op: 'remove', path }).text;
}

/** Sets one scalar at a YAML path, e.g. ['topology','deployments','web','replicas'] to 5; keeps pods consistent where the loader needs it. */
export function setValue(text: string, path: YamlPath, value: ScalarValue): string {
  return applyEdit(text, { op: 'set', path, value }).text;
}

/** The scenario itself, the topology's nodes (each followed by its pods), deployments, Services, routers, load balancers and external clients, and the parameter sections. */
export function outline(text: string): { items: OutlineItem[]; error: string | null } {
  let m: Model;
  try {
    const doc = parseText(text);
    if (!isMap(doc.getIn(['topology'], true))) return { items: [], error: 'the scenario has no topology map' };
    m = modelOf(doc);
  } catch (error) {
    return { items: [], error: (error as Error).message };
  }
  const items: OutlineItem[] = [{ kind: 'scenario', name: str(m.js['id']) ?? '?', path: [], detail: str(m.js['title']) ?? '', removable: false }];
  const push = (kind: OutlineItem['kind'], name: string, path: YamlPath, detail: string) => {
    const reason = removalProblem(m, path);
    items.push({ kind, name, path, detail, removable: reason === null, ...(reason === null ? {} : { reason }) });
  };
  m.nodes.forEach((node, n) => {
    push('node', node.name, ['topology', 'nodes', n], [node.ip, node.podCidr && `pods ${node.podCidr}`, node.platform].filter(Boolean).join(', '));
    for (const pod of node.pods) {
      push('pod', pod.name, ['topology', 'nodes', n, 'pods', pod.index], `${pod.deployment}${pod.ip ? ` at ${pod.ip}` : ''} on ${node.name}`);
    }
  });
  for (const [name, d] of m.deployments) {
    const app = str(d['app']) ?? '?';
    const size = d['kind'] === 'DaemonSet' ? 'DaemonSet' : d['replicas'] === 1 ? '1 replica' : `${String(d['replicas'] ?? '?')} replicas`;
    const target = str(d['target']) ? ` → ${String(d['target'])}` : '';
    push(app === 'http-client' ? 'client' : 'deployment', name, ['topology', 'deployments', name], `${app}, ${size}${target}`);
  }
  for (const [name, s] of m.services) {
    const detail = `${str(s['type']) ?? 'ClusterIP'} ${String(s['clusterIp'])}:${String(s['port'] ?? 80)} → ${String(s['selector'])}`;
    push('service', name, ['topology', 'services', name], detail);
  }
  m.routers.forEach((r, i) => push('router', str(r['name']) ?? `#${i}`, ['topology', 'routers', i], String(r['ip'])));
  m.loadBalancers.forEach((lb, i) => {
    const vips = arr(lb['virtualServers']).map((v) => `${String(rec(v)['vip'])}:${String(rec(v)['port'])} → ${String(rec(v)['service'])}`);
    push('load-balancer', str(lb['name']) ?? `#${i}`, ['topology', 'loadBalancers', i], [String(lb['ip']), ...vips].join(', '));
  });
  m.externalClients.forEach((c, i) => {
    push('client', str(c['name']) ?? `#${i}`, ['topology', 'externalClients', i], `${String(c['ip'])} → ${String(c['targetIp'])}:${String(c['targetPort'])}`);
  });
  const params = rec(m.js['params']);
  for (const section of PARAM_SECTIONS) {
    const set = Object.keys(rec(params[section])).length;
    items.push({ kind: 'params', name: section, path: ['params', section], detail: set === 0 ? 'defaults' : `${set} set`, removable: false });
  }
  return { items, error: null };
}

/** A new, minimal scenario that loads and plays: one node, a web deployment, a Service, a client. */
export function blankScenario(): string {
  return `# A new scenario: one node running a web server behind a Service, and a client calling it.
version: 1
id: blank
title: New scenario
description: One http-server pod behind a ClusterIP Service, called by one http-client pod.
seed: 1
duration: 60
topology:
  nodes:
    - name: node-a
      ip: 10.0.0.11
      podCidr: 10.244.1.0/24
  deployments:
    web:
      app: http-server
      replicas: 1
    loadgen:
      app: http-client
      replicas: 1
      target: web
  services:
    web:
      selector: web
      clusterIp: 10.96.0.10
`;
}

function addTo(doc: Document, m: Model, kind: EditKind): void {
  const ips = new Addresses(m);
  switch (kind) {
    case 'node': {
      const node: Json = { name: nextNodeName(m), ip: ips.nextNodeIp(), podCidr: ips.nextPodCidr() };
      const platforms = new Set(m.nodes.map((n) => n.platform));
      // A node joins a cluster of cloud instances as one more instance, not as the schema's bare-metal default.
      const [platform] = platforms;
      if (platforms.size === 1 && platform !== undefined) node['platform'] = platform;
      appendItem(doc, ['topology', 'nodes'], node);
      return;
    }
    case 'deployment':
      putEntry(doc, ['topology', 'deployments'], freshName('web', deploymentNameTaken(m)), { app: 'http-server', replicas: 1 });
      return;
    case 'service': {
      const selected = new Set(m.services.map(([, s]) => s['selector']));
      const serving = m.deployments.filter(([, d]) => HTTP_SERVING_APPS.includes(str(d['app']) ?? ''));
      if (serving.length === 0) throw new Error('there is no http-server or ingress-proxy deployment for a Service to select; add a deployment first');
      const free = serving.find(([name]) => !selected.has(name));
      if (!free) {
        const list = serving.map(([name]) => name).join(', ');
        throw new Error(`every http-server and ingress-proxy deployment (${list}) already has a Service; add a deployment first`);
      }
      const [selector] = free;
      const taken = (name: string) => m.services.some(([s]) => s === name) || (DNS_NAMES as readonly string[]).includes(name);
      const base = /^[a-z]/.test(selector) ? selector : `svc-${selector}`;
      putEntry(doc, ['topology', 'services'], freshName(base, taken), { selector, clusterIp: ips.nextClusterIp() });
      return;
    }
    case 'client': {
      const service = leastUsed(
        m.services.map(([name]) => name),
        (name) => m.deployments.filter(([, d]) => d['target'] === name).length,
      );
      if (service === undefined) throw new Error('there is no Service for a client to call; add a Service first');
      putEntry(doc, ['topology', 'deployments'], freshName('loadgen', deploymentNameTaken(m)), { app: 'http-client', replicas: 1, target: service });
      return;
    }
    case 'router': {
      const names = m.routers.map((r) => r['name']);
      appendItem(doc, ['topology', 'routers'], { name: freshName('router', (n) => names.includes(n)), ip: ips.nextRouterIp() });
      return;
    }
    case 'load-balancer': {
      if (m.services.length === 0) throw new Error('there is no Service for a load balancer to front; add a Service first');
      const behind = m.loadBalancers.flatMap((lb) => arr(lb['virtualServers']).map((v) => rec(v)['service']));
      // Node members need a node port; a ClusterIP Service can only be reached through pod members.
      const withNodePort = m.services.filter(([, s]) => s['type'] === 'NodePort' || s['type'] === 'LoadBalancer');
      const pool = withNodePort.length > 0 ? withNodePort : m.services;
      const name = leastUsed(
        pool.map(([n]) => n),
        (n) => behind.filter((s) => s === n).length,
      )!;
      const service = rec(rec(m.topology['services'])[name]);
      const servers = m.loadBalancers.flatMap((lb) => arr(lb['virtualServers']).map((v) => rec(v)['name']));
      // Virtual servers label the load balancers' metrics (vs=<name>), so two of one name would share series.
      const virtualServer: Json = { name: freshName(name, (n) => servers.includes(n)), vip: ips.nextVip(), port: num(service['port']) ?? 80, service: name };
      if (withNodePort.length === 0) virtualServer['members'] = 'pods';
      const names = m.loadBalancers.map((lb) => lb['name']);
      appendItem(doc, ['topology', 'loadBalancers'], { name: freshName('lb', (n) => names.includes(n)), ip: ips.nextLbIp(), virtualServers: [virtualServer] });
      return;
    }
  }
}

function leastUsed(names: string[], uses: (name: string) => number): string | undefined {
  let best: string | undefined;
  for (const name of names) if (best === undefined || uses(name) < uses(best)) best = name;
  return best;
}

function freshName(base: string, taken: (name: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) if (!taken(`${base}${n}`)) return `${base}${n}`;
}

function deploymentNameTaken(m: Model): (name: string) => boolean {
  const params = Object.keys(rec(m.js['params']));
  // A param section's name cannot carry per-deployment knobs, and topology.dns claims the CoreDNS names.
  return (name) => m.deployments.some(([d]) => d === name) || PARAM_SECTIONS.includes(name) || params.includes(name) || (DNS_NAMES as readonly string[]).includes(name);
}

function nextNodeName(m: Model): string {
  const names = new Set(m.nodes.map((n) => n.name));
  const numbered = m.nodes.map((n) => /^node-(\d+)$/.exec(n.name)).filter((x): x is RegExpExecArray => x !== null);
  if (numbered.length > 0) {
    const width = numbered[0]![1]!.length;
    let next = Math.max(...numbered.map((x) => Number(x[1]))) + 1;
    while (names.has(`node-${String(next).padStart(width, '0')}`)) next++;
    return `node-${String(next).padStart(width, '0')}`;
  }
  for (const letter of 'abcdefghijklmnopqrstuvwxyz') if (!names.has(`node-${letter}`)) return `node-${letter}`;
  for (let n = m.nodes.length + 1; ; n++) if (!names.has(`node-${n}`)) return `node-${n}`;
}

/** The block of `prefix` bits that holds `ip`. */
function block(ip: number, prefix: number): Cidr {
  return { base: ((ip & maskOf(prefix)) >>> 0) as Ipv4, prefix };
}

/** Every address the scenario already uses or points at, and where new ones go. */
class Addresses {
  private readonly used = new Set<number>();
  private readonly podCidrs: Cidr[] = [];
  private readonly nodeNet: Cidr;

  constructor(private readonly m: Model) {
    const t = m.topology;
    const claim = (v: unknown) => {
      const ip = typeof v === 'string' ? parseIpv4(v) : null;
      if (ip !== null) this.used.add(ip);
    };
    for (const node of m.nodes) {
      claim(node.ip);
      for (const pod of node.pods) claim(pod.ip);
      const cidr = node.podCidr === undefined ? null : parseCidr(node.podCidr);
      if (cidr) this.podCidrs.push(cidr);
    }
    for (const [, s] of m.services) [s['clusterIp'], s['loadBalancerIp']].forEach(claim);
    const dns = t['dns'];
    if (isRecord(dns)) {
      [dns['clusterIp'], dns['upstreamClusterIp'], dns['resolverIp'] ?? '169.254.169.253'].forEach(claim);
      for (const list of Object.values(rec(dns['records']))) arr(list).forEach(claim);
    }
    for (const r of m.routers) claim(r['ip']);
    for (const lb of m.loadBalancers) {
      claim(lb['ip']);
      for (const v of arr(lb['virtualServers'])) claim(rec(v)['vip']);
    }
    for (const c of m.externalClients) [c['ip'], c['targetIp']].forEach(claim);
    const first = parseIpv4(m.nodes[0]?.ip ?? '') ?? parseIpv4('10.0.0.0')!;
    this.nodeNet = block(first, 24);
  }

  private free(ip: number, outsideNodeNet: boolean): boolean {
    const octet = ip & 0xff;
    if (octet === 0 || octet === 255 || this.used.has(ip)) return false;
    if (this.podCidrs.some((c) => cidrContains(c, ip))) return false;
    return !(outsideNodeNet && cidrContains(this.nodeNet, ip));
  }

  /** The first free address of `net` after `after`, wrapping round to its start. */
  private pick(net: Cidr, after: number, outsideNodeNet: boolean, what: string): string {
    const size = 2 ** (32 - net.prefix);
    const offset = Math.min(Math.max(after - net.base + 1, 0), size);
    for (let i = 0; i < size; i++) {
      const ip = net.base + ((offset + i) % size);
      if (this.free(ip, outsideNodeNet)) return formatIpv4(ip);
    }
    throw new Error(`no free address left in ${formatIpv4(net.base)}/${net.prefix} for ${what}`);
  }

  private within(net: Cidr, texts: unknown[]): number[] {
    return texts.flatMap((t) => {
      const ip = typeof t === 'string' ? parseIpv4(t) : null;
      return ip !== null && cidrContains(net, ip) ? [ip] : [];
    });
  }

  nextNodeIp(): string {
    const ips = this.within(
      this.nodeNet,
      this.m.nodes.map((n) => n.ip),
    );
    return this.pick(this.nodeNet, Math.max(this.nodeNet.base, ...ips), false, 'a node');
  }

  nextRouterIp(): string {
    return this.pick(this.nodeNet, this.nodeNet.base, false, 'a router');
  }

  nextLbIp(): string {
    // Self IPs sit at the top of the node network (the sandbox's F5 has .250), far from the nodes counting up.
    for (let ip = this.nodeNet.base + 250; ip > this.nodeNet.base; ip--) if (this.free(ip, false)) return formatIpv4(ip);
    return this.pick(this.nodeNet, this.nodeNet.base, false, 'a load balancer');
  }

  nextClusterIp(): string {
    const t = this.m.topology;
    const existing = [...this.m.services.map(([, s]) => s['clusterIp']), rec(t['dns'])['clusterIp'], rec(t['dns'])['upstreamClusterIp']];
    const first = existing.map((v) => (typeof v === 'string' ? parseIpv4(v) : null)).find((ip) => ip !== null);
    const net = block(first ?? parseIpv4('10.96.0.0')!, 16);
    const inside = this.within(net, existing);
    return this.pick(net, inside.length > 0 ? Math.max(...inside) : net.base + 9, true, 'a ClusterIP');
  }

  nextVip(): string {
    const existing = [...this.m.loadBalancers.flatMap((lb) => arr(lb['virtualServers']).map((v) => rec(v)['vip'])), ...this.m.services.map(([, s]) => s['loadBalancerIp'])];
    const first = existing.map((v) => (typeof v === 'string' ? parseIpv4(v) : null)).find((ip) => ip !== null);
    // TEST-NET-1 (RFC 5737), where the shipped scenarios put their public addresses.
    const net = block(first ?? parseIpv4('192.0.2.0')!, 24);
    const inside = this.within(net, existing);
    return this.pick(net, inside.length > 0 ? Math.max(...inside) : net.base + 9, true, 'a virtual server');
  }

  nextPodCidr(): string {
    const first = this.podCidrs[0]?.base ?? parseIpv4('10.244.0.0')!;
    const net16 = (first & 0xffff0000) >>> 0;
    const blocks = this.podCidrs.filter((c) => (c.base & 0xffff0000) >>> 0 === net16).map((c) => (c.base >>> 8) & 0xff);
    const start = blocks.length > 0 ? Math.max(...blocks) + 1 : 1;
    for (let i = 0; i < 256; i++) {
      const candidate = block(net16 + (((start + i) % 256) << 8), 24);
      const overlaps = this.podCidrs.some((c) => cidrContains(c, candidate.base) || cidrContains(candidate, c.base));
      if (!overlaps && ![...this.used].some((ip) => cidrContains(candidate, ip))) return `${formatIpv4(candidate.base)}/24`;
    }
    throw new Error(`no free /24 left in ${formatIpv4(net16)}/16 for a pod CIDR`);
  }
}

function appendItem(doc: Document, path: YamlPath, value: Json): void {
  const list = doc.getIn(path, true);
  if (isSeq(list)) {
    const flow = list.items.some((item) => isCollection(item) && item.flow);
    doc.addIn(path, doc.createNode(value, { flow }));
  } else if (list === undefined || (isScalar(list) && list.value === null)) {
    doc.setIn(path, doc.createNode([value]));
  } else {
    throw new Error(`${formatPath(path)} is not a list`);
  }
}

function putEntry(doc: Document, path: YamlPath, key: string, value: Json): void {
  const map = doc.getIn(path, true);
  if (isMap(map)) {
    const flow = map.items.some((pair) => isCollection(pair.value) && pair.value.flow);
    doc.setIn([...path, key], doc.createNode(value, { flow }));
  } else if (map === undefined || (isScalar(map) && map.value === null)) {
    doc.setIn(path, doc.createNode({ [key]: value }));
  } else {
    throw new Error(`${formatPath(path)} is not a map`);
  }
}

function removeFrom(doc: Document, m: Model, path: YamlPath): void {
  const problem = removalProblem(m, path);
  if (problem !== null) throw new Error(problem);
  const [, section, key, sub, index] = path;
  if (section === 'deployments') {
    const name = String(key);
    removePods(
      doc,
      m.nodes.flatMap((n) => n.pods.filter((p) => p.deployment === name)),
    );
    // A deployment's knobs under params describe only it, like its pods; a section of the same name is everyone's.
    if (hasKnobs(m, name)) doc.deleteIn(['params', name]);
    doc.deleteIn(path);
  } else if (section === 'nodes' && sub === 'pods') {
    const pod = m.nodes[Number(key)]!.pods[Number(index)]!;
    const replicas = doc.getIn(['topology', 'deployments', pod.deployment, 'replicas']);
    // Removing a pod means one pod fewer, not a pod the scheduler places somewhere else.
    if (typeof replicas === 'number' && replicas > 0) writeScalar(doc, ['topology', 'deployments', pod.deployment, 'replicas'], replicas - 1);
    doc.deleteIn(path);
  } else {
    doc.deleteIn(path);
  }
}

function hasKnobs(m: Model, deployment: string): boolean {
  const params = rec(m.js['params']);
  return !PARAM_SECTIONS.includes(deployment) && Object.hasOwn(params, deployment) && params[deployment] !== undefined;
}

/** Deletes explicit placements, last index first so the others keep their places. */
function removePods(doc: Document, pods: PodInfo[]): void {
  for (const pod of [...pods].sort((a, b) => b.node - a.node || b.index - a.index)) doc.deleteIn(['topology', 'nodes', pod.node, 'pods', pod.index]);
}

/** Why the item at `path` cannot be removed as things stand, or null when nothing refers to it. */
function removalProblem(m: Model, path: YamlPath): string | null {
  const [root, section, key, sub, index, ...rest] = path;
  const where = formatPath(path);
  if (root !== 'topology' || rest.length > 0) return `${where} is not an item the editor removes`;
  const refs = new Refs(m);
  if (section === 'nodes' && typeof key === 'number' && sub === undefined) {
    const node = m.nodes[key];
    if (!node) return `there is no node at ${where}`;
    if (m.nodes.length === 1) return `${node.name} is the only node, and a scenario needs at least one`;
    if (node.pods.length > 0) return `${node.name} still runs pods ${node.pods.map((p) => p.name).join(', ')}; remove or move them first`;
    for (const [name, d] of m.deployments) if (arr(d['nodes']).includes(node.name)) refs.add(`deployment ${name}'s nodes`);
    if (arr(rec(m.topology['bgp'])['speakers']).includes(node.name)) refs.add('the BGP speakers (topology.bgp.speakers)');
    for (const lb of m.loadBalancers) {
      for (const v of arr(lb['virtualServers'])) {
        if (arr(rec(v)['memberNodes']).includes(node.name)) refs.add(`load balancer ${String(lb['name'])}'s virtual server ${String(rec(v)['name'])} (memberNodes)`);
      }
    }
    refs.timeline('node', [node.name]).metrics(['node', 'instance'], node.name).shifted(['topology', 'nodes'], key);
    refs.fixValues(['nodes', 'speakers', 'memberNodes'], node.name);
    return refs.problem(`node ${node.name}`);
  }
  if (section === 'nodes' && typeof key === 'number' && sub === 'pods' && typeof index === 'number') {
    const pod = m.nodes[key]?.pods[index];
    if (!pod) return `there is no pod at ${where}`;
    const deployment = m.deployments.find(([name]) => name === pod.deployment)?.[1];
    if (deployment?.['kind'] === 'DaemonSet') {
      return `pod ${pod.name} belongs to DaemonSet ${pod.deployment}, which runs a pod on every node it may; change the DaemonSet's nodes instead`;
    }
    refs.timeline('pod', [pod.name]).shifted(['topology', 'nodes', key, 'pods'], index);
    return refs.problem(`pod ${pod.name}`);
  }
  if (section === 'deployments' && typeof key === 'string' && sub === undefined) {
    const d = m.deployments.find(([name]) => name === key)?.[1];
    if (!d) return `there is no deployment at ${where}`;
    if (m.deployments.length === 1) return `${key} is the only deployment, and a scenario needs at least one`;
    for (const [name, s] of m.services) if (s['selector'] === key) refs.add(`Service ${name}`);
    if (rec(rec(m.topology['dns'])['externalDns'])['deployment'] === key) refs.add('topology.dns.externalDns');
    const announce = d['app'] === 'mesh-server' ? d['announce'] : undefined;
    for (const [name, other] of m.deployments) if (announce !== undefined && arr(other['uses']).includes(announce)) refs.add(`deployment ${name} (uses ${String(announce)})`);
    const pods = m.nodes.flatMap((n) => n.pods.filter((p) => p.deployment === key));
    // Pods beyond the placements are named <deployment>-<n> by the simulation.
    const generated = (name: string) => name.startsWith(`${key}-`) && /^\d+$/.test(name.slice(key.length + 1));
    refs.timeline('deployment', [key]).timeline(
      'pod',
      pods.map((p) => p.name),
      generated,
    );
    refs.metrics(['deployment'], key).prefixed(['topology', 'deployments', key]).fixValues(['selector', 'deployment'], key);
    if (hasKnobs(m, key)) refs.prefixed(['params', key]);
    for (const node of new Set(pods.map((p) => p.node))) {
      refs.shifted(['topology', 'nodes', node, 'pods'], Math.min(...pods.filter((p) => p.node === node).map((p) => p.index)));
    }
    return refs.problem(`deployment ${key}`);
  }
  if (section === 'services' && typeof key === 'string' && sub === undefined) {
    const s = m.services.find(([name]) => name === key)?.[1];
    if (!s) return `there is no Service at ${where}`;
    for (const [name, d] of m.deployments) {
      const target = str(d['target']);
      if (target === key || (d['app'] === 'grpc-client' && target?.split(':')[0] === key)) refs.add(`deployment ${name} (target)`);
      if (d['lookup'] === key) refs.add(`deployment ${name} (lookup)`);
    }
    for (const lb of m.loadBalancers) {
      for (const v of arr(lb['virtualServers'])) if (rec(v)['service'] === key) refs.add(`load balancer ${String(lb['name'])}'s virtual server ${String(rec(v)['name'])}`);
    }
    const lbIp = s['loadBalancerIp'];
    for (const c of m.externalClients) if (lbIp !== undefined && c['targetIp'] === lbIp) refs.add(`external client ${String(c['name'])} (targetIp)`);
    refs.timeline('service', [key]).prefixed(['topology', 'services', key]).fixValues(['target', 'service'], key);
    return refs.problem(`Service ${key}`);
  }
  if (section === 'routers' && typeof key === 'number' && sub === undefined) {
    const router = m.routers[key];
    if (!router) return `there is no router at ${where}`;
    const name = String(router['name']);
    if (rec(m.topology['bgp'])['router'] === name) refs.add('topology.bgp (its router)');
    refs.timeline('router', [name]).shifted(['topology', 'routers'], key).fixValues(['router'], name);
    return refs.problem(`router ${name}`);
  }
  if (section === 'loadBalancers' && typeof key === 'number' && sub === undefined) {
    const lb = m.loadBalancers[key];
    if (!lb) return `there is no load balancer at ${where}`;
    const name = String(lb['name']);
    const servers = arr(lb['virtualServers']).map(rec);
    const vips = servers.map((v) => v['vip']);
    for (const c of m.externalClients) if (vips.includes(c['targetIp'])) refs.add(`external client ${String(c['name'])} (targetIp)`);
    refs.timeline('lb', [name]).shifted(['topology', 'loadBalancers'], key);
    for (const v of servers) refs.metrics(['vs'], String(v['name']));
    return refs.problem(`load balancer ${name}`);
  }
  if (section === 'externalClients' && typeof key === 'number' && sub === undefined) {
    const client = m.externalClients[key];
    if (!client) return `there is no external client at ${where}`;
    const name = String(client['name']);
    refs.timeline('external', [name]).shifted(['topology', 'externalClients'], key);
    return refs.problem(`external client ${name}`);
  }
  return `${where} is not an item the editor removes`;
}

/** What still refers to something about to go: in the topology, the timeline, expectations, charts and fixes. */
class Refs {
  private readonly found: string[] = [];

  constructor(private readonly m: Model) {}

  add(what: string): this {
    if (!this.found.includes(what)) this.found.push(what);
    return this;
  }

  timeline(kind: string, names: string[], alsoNamed?: (name: string) => boolean): this {
    arr(this.m.js['timeline']).forEach((value, i) => {
      const entry = rec(value);
      const [k, name] = (str(entry['target']) ?? '').split('/');
      if (k === kind && name !== undefined && (names.includes(name) || alsoNamed?.(name) === true)) {
        this.add(`timeline[${i}] (${String(entry['fault'])} on ${kind}/${name})`);
      }
    });
    return this;
  }

  /** Expectations and chart series whose metric labels name it, like server.requests{node=node-b}. */
  metrics(labels: string[], name: string): this {
    const names = (metric: unknown) =>
      (/\{(.*)\}$/.exec(str(metric) ?? '')?.[1] ?? '').split(',').some((pair) => {
        const [label, value] = pair.split('=');
        return value === name && labels.includes(label ?? '');
      });
    arr(this.m.js['expect']).forEach((e, i) => {
      if (names(rec(e)['metric'])) this.add(`expect[${i}] (${String(rec(e)['metric'])})`);
    });
    arr(this.m.js['charts']).forEach((c, i) => {
      for (const s of arr(rec(c)['series'])) if (names(rec(s)['metric'])) this.add(`charts[${i}] (${String(rec(s)['metric'])})`);
    });
    return this;
  }

  /** Fixes that set something inside the removed item. */
  prefixed(path: YamlPath): this {
    for (const f of this.m.fixPaths) if (isPrefix(path, f.path)) this.add(`fix ${f.fix} (sets ${f.key})`);
    return this;
  }

  /** Fixes that set the removed list item or one after it, which removing it would move to another item. */
  shifted(list: YamlPath, index: number): this {
    for (const f of this.m.fixPaths) {
      const at = f.path[list.length];
      if (isPrefix(list, f.path) && at !== undefined && /^\d+$/.test(String(at)) && Number(at) >= index) this.add(`fix ${f.fix} (sets ${f.key})`);
    }
    return this;
  }

  /** Fixes that write the name into one of `fields`, like a virtual server's memberNodes. */
  fixValues(fields: string[], name: string): this {
    const names = (value: unknown, path: YamlPath): boolean => {
      if (value === name) return path.some((segment) => fields.includes(String(segment)));
      if (Array.isArray(value)) return value.some((item, i) => names(item, [...path, i]));
      return isRecord(value) && Object.entries(value).some(([k, v]) => names(v, [...path, k]));
    };
    for (const f of this.m.fixPaths) if (names(f.value, f.path)) this.add(`fix ${f.fix} (sets ${f.key})`);
    return this;
  }

  problem(what: string): string | null {
    return this.found.length === 0 ? null : `${what} is still referred to by ${this.found.join(', ')}; remove or change those first`;
  }
}

/** Sets the scalar; false when it already has that value, so the text stays as it is. */
function setIn(doc: Document, m: Model, path: YamlPath, value: ScalarValue): boolean {
  const where = formatPath(path);
  if (path.length === 0) throw new Error('setValue needs a path to a scalar, not the whole document');
  let depth = path.length - 1;
  while (depth > 0 && doc.getIn(path.slice(0, depth), true) === undefined) depth--;
  const parent = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
  const [first, ...below] = path.slice(depth);
  if (!isMap(parent) && !isSeq(parent)) throw new Error(`${depth === 0 ? 'the document' : formatPath(path.slice(0, depth))} is not a map or list`);
  // Missing maps on the way are created (a params section, say); missing list items are not.
  const reachable = isSeq(parent) ? typeof first === 'number' && first < parent.items.length && below.length === 0 : below.every((k) => typeof k === 'string');
  if (!reachable) throw new Error(`there is nothing at ${where} to set`);
  const current = doc.getIn(path, true);
  if (isAlias(current)) throw new Error(`${where} is an alias; edit the anchored value instead`);
  if (isCollection(current)) throw new Error(`${where} is a ${isSeq(current) ? 'list' : 'map'}; setValue sets a single value`);
  if (isScalar(current) && current.value === value) return false;
  const [root, section, deployment, field] = path;
  if (root === 'topology' && section === 'deployments' && field === 'replicas' && path.length === 4 && typeof value === 'number') {
    dropPlacements(doc, m, String(deployment), value);
  }
  writeScalar(doc, path, value);
  return true;
}

/** Takes a single value out of its map; false when it is not there, so the text stays as it is. */
function unsetIn(doc: Document, path: YamlPath): boolean {
  const current = doc.getIn(path, true);
  if (current === undefined) return false;
  if (!isScalar(current)) throw new Error(`${formatPath(path)} is not a single value; unset takes out single values only`);
  if (!isMap(doc.getIn(path.slice(0, -1), true))) throw new Error(`${formatPath(path)} is not a key of a map`);
  doc.deleteIn(path);
  return true;
}

/** Keeps a Deployment's explicit placements within its replicas, dropping the last-listed ones nothing refers to. */
function dropPlacements(doc: Document, m: Model, deployment: string, replicas: number): void {
  if (!Number.isInteger(replicas) || replicas < 0) return;
  const placed = m.nodes.flatMap((n) => n.pods.filter((p) => p.deployment === deployment));
  const excess = placed.length - replicas;
  if (excess <= 0) return;
  const victims: PodInfo[] = [];
  const kept: string[] = [];
  for (const pod of [...placed].reverse()) {
    if (victims.length === excess) break;
    const refs = new Refs(m).timeline('pod', [pod.name]).shifted(['topology', 'nodes', pod.node, 'pods'], pod.index).problem(`pod ${pod.name}`);
    if (refs === null) victims.push(pod);
    else kept.push(refs);
  }
  if (victims.length < excess) {
    throw new Error(`${deployment} has ${placed.length} pods placed on nodes, more than replicas ${replicas} allows, and ${kept.join('; ')}`);
  }
  removePods(doc, victims);
}

/** Replaces a scalar's value in place, so its comment, and its style when the type stays, survive. */
function writeScalar(doc: Document, path: YamlPath, value: ScalarValue): void {
  const current = doc.getIn(path, true);
  if (isScalar(current) && typeof current.value === typeof value) {
    current.value = value;
    return;
  }
  const next = doc.createNode(value);
  if (isScalar(current)) {
    next.comment = current.comment;
    next.commentBefore = current.commentBefore;
    next.spaceBefore = current.spaceBefore;
  }
  const parent = doc.getIn(path.slice(0, -1), true);
  if (current === undefined && isMap(parent)) {
    // A new key goes with the single values, before the first list or map, where a person would write it.
    const at = parent.items.findIndex((pair) => isCollection(pair.value));
    parent.items.splice(at < 0 ? parent.items.length : at, 0, doc.createPair(path.at(-1), next));
    return;
  }
  doc.setIn(path, next);
}
