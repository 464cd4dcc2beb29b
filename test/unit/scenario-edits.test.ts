import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';
import { atSeconds } from '../../src/sim/core/time';
import { FAULT_IDS } from '../../src/sim/faults/catalog';
import { loadScenario } from '../../src/sim/scenario/load';
import type { Scenario } from '../../src/sim/scenario/schema';
import { createSim } from '../../src/sim/sim';
import { addItem, applyEdit, blankScenario, outline, removeItem, SAVE_OPTIONS, setValue } from '../../src/sim/scenario/edits';
import { PARAM_SECTIONS } from '../../src/sim/scenario/params';
import { ADDABLE, type EditKind } from '../../src/sim/scenario/edit-kinds';

const read = (file: string) => readFileSync(new URL(`../../public/scenarios/${file}`, import.meta.url), 'utf8');
const DEMO = read('demo.yaml');
const SANDBOX = read('bare-metal-sandbox.yaml');

/** The demo with comments in the places a person writes them: above a section, after a value, above a key. */
const COMMENTED = DEMO.replace('  deployments:\n', '  deployments: # what runs\n')
  .replace('      replicas: 3\n', '      replicas: 3 # one per node\n')
  .replace('  services:\n', '  # Services in front of the servers\n  services:\n')
  .replace('params:\n', '# knobs for every client\nparams:\n');
const COMMENTS = ['# yaml-language-server: $schema=../scenario.schema.json', '# what runs', '# one per node', '# Services in front of the servers', '# knobs for every client'];

function load(text: string): Scenario {
  const loaded = loadScenario(text, 'x.yaml', { faultIds: FAULT_IDS });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  return loaded.scenario;
}

const errorOf = (edit: () => unknown): string => {
  try {
    edit();
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return (error as Error).message;
  }
  throw new Error('the edit was not refused');
};

/** Lines of `before` that `after` no longer has in the same order. */
function missingLines(before: string, after: string): string[] {
  const rest = after.split('\n');
  let at = 0;
  return before.split('\n').filter((line) => {
    const found = rest.indexOf(line, at);
    if (found < 0) return true;
    at = found + 1;
    return false;
  });
}

const duplicates = (list: string[]) => list.filter((x, i) => list.indexOf(x) !== i);

/** Every name the loader does not already check for clashes, and every address anything owns. */
function expectUnique(s: Scenario): void {
  const t = s.topology;
  const pods = t.nodes.flatMap((n) => n.pods);
  expect(duplicates(t.nodes.map((n) => n.name))).toEqual([]);
  expect(duplicates(pods.map((p) => p.name))).toEqual([]);
  expect(duplicates(t.routers.map((r) => r.name))).toEqual([]);
  expect(duplicates(t.loadBalancers.map((lb) => lb.name))).toEqual([]);
  expect(duplicates(t.loadBalancers.flatMap((lb) => lb.virtualServers.map((v) => v.name)))).toEqual([]);
  expect(duplicates(t.externalClients.map((c) => c.name))).toEqual([]);
  const addresses = [
    ...t.nodes.map((n) => n.ip),
    ...pods.flatMap((p) => (p.ip ? [p.ip] : [])),
    ...Object.values(t.services).flatMap((v) => [v.clusterIp, ...(v.loadBalancerIp ? [v.loadBalancerIp] : [])]),
    ...t.routers.map((r) => r.ip),
    ...t.loadBalancers.flatMap((lb) => [lb.ip, ...lb.virtualServers.map((v) => v.vip)]),
    ...t.externalClients.map((c) => c.ip),
  ];
  expect(duplicates(addresses)).toEqual([]);
  expect(duplicates(t.nodes.map((n) => n.podCidr))).toEqual([]);
}

const topologyItems = (text: string) => outline(text).items.filter((i) => i.kind !== 'scenario' && i.kind !== 'params');
const names = (text: string, kind?: string) =>
  outline(text)
    .items.filter((i) => kind === undefined || i.kind === kind)
    .map((i) => i.name);
const pathOf = (text: string, name: string, kind?: string) => outline(text).items.find((i) => i.name === name && (kind === undefined || i.kind === kind))!.path;

describe('ADDABLE', () => {
  it('offers each kind once, with a label and a description', () => {
    expect(ADDABLE.map((o) => o.kind).sort()).toEqual(['client', 'deployment', 'load-balancer', 'node', 'router', 'service']);
    for (const option of ADDABLE) {
      expect(option.label).not.toBe('');
      expect(option.description).not.toBe('');
    }
  });
});

describe('blankScenario', () => {
  it('loads, lists one node, a web deployment, its Service and a client, and is saved as the editor writes', () => {
    const text = blankScenario();
    load(text);
    expect(parseDocument(text).toString(SAVE_OPTIONS)).toBe(text);
    expect(topologyItems(text).map((i) => `${i.kind} ${i.name}`)).toEqual(['node node-a', 'deployment web', 'client loadgen', 'service web']);
  });

  it('answers requests within 10 s of play', () => {
    const loaded = loadScenario(blankScenario(), 'x.yaml', { faultIds: FAULT_IDS });
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const sim = createSim(loaded.scenario, { fixes: loaded.appliedFixes });
    sim.runUntil(atSeconds(10));
    const report = sim.report(0);
    expect(report.totals['requests.ok']).toBeGreaterThan(50);
    expect(report.totals['requests.failed']).toBe(0);
  });

  it('still plays with one of everything added', () => {
    let text = blankScenario();
    for (const kind of ['node', 'deployment', 'service', 'client', 'router', 'load-balancer'] as const) text = addItem(text, kind);
    const sim = createSim(load(text));
    sim.runUntil(atSeconds(10));
    expect(sim.report(0).totals['requests.ok']).toBeGreaterThan(100);
  });
});

describe('addItem', () => {
  const starts = { demo: COMMENTED, blank: blankScenario(), sandbox: SANDBOX };

  describe.each(Object.entries(starts))('on %s', (_name, start) => {
    it.each(ADDABLE.map((o) => o.kind))('%s: loads with unique names and addresses and keeps every comment, or says why not', (kind) => {
      let text: string;
      try {
        text = addItem(start, kind);
      } catch (error) {
        // Each start already gives its only http-server a Service.
        expect(kind).toBe('service');
        expect((error as Error).message).toMatch(/already has a Service; add a deployment first$/);
        return;
      }
      expectUnique(load(text));
      expect(outline(text).items.length).toBe(outline(start).items.length + 1);
      for (const comment of COMMENTS) if (start.includes(comment)) expect(text).toContain(comment);
      // Adding adds lines and rewrites at most one: a one-line list the item joins, or a key whose trailing comment
      // the YAML writer moves to the line below.
      expect(missingLines(start, text).length, missingLines(start, text).join('\n')).toBeLessThanOrEqual(1);
    });
  });

  it('adds a node like its siblings with the next free address and pod CIDR, twice over', () => {
    const once = addItem(DEMO, 'node');
    const twice = addItem(once, 'node');
    const nodes = load(twice).topology.nodes.slice(3);
    expect(nodes.map((n) => [n.name, n.ip, n.podCidr, n.platform, n.pods])).toEqual([
      ['node-d', '10.0.0.14', '10.244.4.0/24', 'cloud', []],
      ['node-e', '10.0.0.15', '10.244.5.0/24', 'cloud', []],
    ]);
  });

  it('numbers a node after numbered siblings, keeping their width, and skips addresses taken by others', () => {
    let text = setValue(blankScenario(), ['topology', 'nodes', 0, 'name'], 'node-07');
    text = addItem(text, 'router');
    text = setValue(text, ['topology', 'routers', 0, 'ip'], '10.0.0.12');
    const node = load(addItem(text, 'node')).topology.nodes[1]!;
    expect([node.name, node.ip]).toEqual(['node-08', '10.0.0.13']);
  });

  it('adds an http-server deployment with one replica that the scheduler places', () => {
    const text = addItem(DEMO, 'deployment');
    const s = load(text);
    expect(s.topology.deployments['web2']).toMatchObject({ app: 'http-server', kind: 'Deployment', replicas: 1, port: 8080 });
    expect(s.topology.nodes.flatMap((n) => n.pods).filter((p) => p.deployment === 'web2')).toEqual([]);
  });

  it('adds a ClusterIP Service for the deployment that has none, at the next free ClusterIP', () => {
    const text = addItem(addItem(DEMO, 'deployment'), 'service');
    expect(load(text).topology.services['web2']).toEqual({ selector: 'web2', clusterIp: '10.96.0.11', port: 80, type: 'ClusterIP', externalTrafficPolicy: 'Cluster' });
    expect(errorOf(() => addItem(text, 'service'))).toBe('every http-server and ingress-proxy deployment (web, web2) already has a Service; add a deployment first');
  });

  it('adds a client that calls the Service with the fewest callers', () => {
    const withService = addItem(addItem(DEMO, 'deployment'), 'service');
    const s = load(addItem(withService, 'client'));
    expect(s.topology.deployments['loadgen']).toMatchObject({ app: 'http-client', replicas: 1, target: 'web2' });
  });

  it('adds a load balancer with pod members in front of a ClusterIP Service', () => {
    const lb = load(addItem(DEMO, 'load-balancer')).topology.loadBalancers[0];
    expect(lb).toEqual({ name: 'lb', ip: '10.0.0.250', virtualServers: [{ name: 'web', vip: '192.0.2.10', port: 80, service: 'web', members: 'pods' }], returnRoutes: [] });
  });

  it('adds a load balancer with node members in front of a NodePort Service, in the flow style of its siblings', () => {
    const text = addItem(SANDBOX, 'load-balancer');
    expect(load(text).topology.loadBalancers[1]).toEqual({
      name: 'lb',
      ip: '10.0.0.249',
      virtualServers: [{ name: 'traefik', vip: '192.0.2.51', port: 80, service: 'traefik', members: 'nodes' }],
      returnRoutes: [],
    });
    expect(text).toContain('    - { name: lb, ip: 10.0.0.249, virtualServers: [ { name: traefik, vip: 192.0.2.51, port: 80, service: traefik } ] }\n');
  });

  it('adds a router at the first free address of the node network', () => {
    expect(load(addItem(DEMO, 'router')).topology.routers).toEqual([{ name: 'router', ip: '10.0.0.1', ecmp: 'hash-threshold' }]);
    expect(load(addItem(SANDBOX, 'router')).topology.routers[1]).toEqual({ name: 'router', ip: '10.0.0.2', ecmp: 'hash-threshold' });
  });

  it('refuses a client or a load balancer when there is no Service', () => {
    const noService = removeItem(removeItem(blankScenario(), ['topology', 'deployments', 'loadgen']), ['topology', 'services', 'web']);
    expect(errorOf(() => addItem(noService, 'client'))).toBe('there is no Service for a client to call; add a Service first');
    expect(errorOf(() => addItem(noService, 'load-balancer'))).toBe('there is no Service for a load balancer to front; add a Service first');
    expect(errorOf(() => removeItem(noService, ['topology', 'deployments', 'web']))).toBe('web is the only deployment, and a scenario needs at least one');
    // Edits still work on text that does not load, as while someone is typing.
    const noServer = noService.replace('app: http-server', 'app: dns-client');
    expect(errorOf(() => addItem(noServer, 'service'))).toBe('there is no http-server or ingress-proxy deployment for a Service to select; add a deployment first');
    expect(names(addItem(noServer, 'node'), 'node')).toEqual(['node-a', 'node-b']);
  });

  it('refuses text that is not YAML, saying where', () => {
    expect(errorOf(() => addItem('topology: [\n', 'node'))).toMatch(/^the YAML has an error at line \d+, column \d+/);
  });
});

describe('removeItem', () => {
  it('refuses a node that still runs pods, naming them', () => {
    expect(errorOf(() => removeItem(DEMO, ['topology', 'nodes', 0]))).toBe('node-a still runs pods web-0, client-0; remove or move them first');
  });

  it('refuses the only node', () => {
    expect(errorOf(() => removeItem(blankScenario(), ['topology', 'nodes', 0]))).toBe('node-a is the only node, and a scenario needs at least one');
  });

  it('refuses a deployment a Service selects or the timeline names, listing every reference', () => {
    expect(errorOf(() => removeItem(DEMO, ['topology', 'deployments', 'web']))).toBe(
      'deployment web is still referred to by Service web, timeline[0] (delete-pod on pod/web-0); remove or change those first',
    );
  });

  it('refuses a Service that a client calls', () => {
    expect(errorOf(() => removeItem(DEMO, ['topology', 'services', 'web']))).toBe('Service web is still referred to by deployment client (target); remove or change those first');
  });

  it('refuses a pod the timeline targets', () => {
    expect(errorOf(() => removeItem(DEMO, pathOf(DEMO, 'web-0')))).toBe('pod web-0 is still referred to by timeline[0] (delete-pod on pod/web-0); remove or change those first');
  });

  it('removes a pod as one replica fewer, keeping comments', () => {
    const text = removeItem(COMMENTED, pathOf(COMMENTED, 'client-3'));
    const s = load(text);
    expect(s.topology.deployments['client']!.replicas).toBe(3);
    expect(names(text, 'pod')).toEqual(['web-0', 'client-0', 'web-1', 'client-1', 'web-2', 'client-2']);
    for (const comment of COMMENTS) expect(text).toContain(comment);
  });

  it('removes a deployment with its pods, and then its Service, leaving the shared params section alone', () => {
    const noClient = removeItem(COMMENTED, ['topology', 'deployments', 'client']);
    const s = load(noClient);
    expect(Object.keys(s.topology.deployments)).toEqual(['web']);
    expect(s.topology.nodes.flatMap((n) => n.pods.map((p) => p.name))).toEqual(['web-0', 'web-1', 'web-2']);
    expect(s.params.client.reconnectMs).toBe(300);
    const noService = removeItem(noClient, ['topology', 'services', 'web']);
    expect(load(noService).topology.services).toEqual({});
    for (const comment of COMMENTS) expect(noService).toContain(comment);
  });

  it("removes a deployment's own knobs under params with it", () => {
    let text = addItem(blankScenario(), 'deployment');
    text = setValue(text, ['params', 'web2', 'gracePeriodS'], 5);
    expect(parse(text).params).toEqual({ web2: { gracePeriodS: 5 } });
    expect(parse(removeItem(text, ['topology', 'deployments', 'web2'])).params).toEqual({});
  });

  it('removes a node once its pods are gone', () => {
    let text = DEMO;
    for (const pod of ['web-2', 'client-2', 'client-3']) text = removeItem(text, pathOf(text, pod));
    text = removeItem(text, ['topology', 'nodes', 2]);
    const s = load(text);
    expect(s.topology.nodes.map((n) => n.name)).toEqual(['node-a', 'node-b']);
    expect([s.topology.deployments['web']!.replicas, s.topology.deployments['client']!.replicas]).toEqual([2, 2]);
  });

  it('refuses to remove a node when a fix sets a later node by index, since the fix would then set another node', () => {
    const withFix = DEMO.replace('fixes:\n', 'fixes:\n  move-c:\n    description: node-c on bare metal\n    set:\n      topology.nodes[2].platform: bare-metal\n');
    let text = withFix;
    for (const pod of ['web-1', 'client-1']) text = removeItem(text, pathOf(text, pod));
    expect(errorOf(() => removeItem(text, ['topology', 'nodes', 1]))).toBe('node node-b is still referred to by fix move-c (sets topology.nodes[2].platform); remove or change those first');
  });

  it('refuses a node that a fix, an expectation or a chart names, and BGP speakers', () => {
    const text = SANDBOX.replace('expect:\n', 'fixes:\n  all-speak:\n    description: every node speaks\n    set:\n      topology.bgp.speakers: [node-a, node-d]\nexpect:\n').replace(
      'expect:\n',
      'expect:\n  - { metric: "server.requests{node=node-d}", agg: total, op: "==", value: 0 }\n',
    );
    load(text);
    expect(errorOf(() => removeItem(text, ['topology', 'nodes', 3]))).toBe(
      'node node-d is still referred to by expect[0] (server.requests{node=node-d}), fix all-speak (sets topology.bgp.speakers); remove or change those first',
    );
    expect(errorOf(() => removeItem(SANDBOX, ['topology', 'nodes', 1]))).toBe('node-b still runs pods traefik-1; remove or move them first');
  });

  it('refuses edge items still in use, and removes external clients', () => {
    expect(errorOf(() => removeItem(SANDBOX, ['topology', 'routers', 0]))).toBe('router tor is still referred to by topology.bgp (its router); remove or change those first');
    expect(errorOf(() => removeItem(SANDBOX, ['topology', 'loadBalancers', 0]))).toBe(
      'load balancer bigip is still referred to by external client partner-1 (targetIp), external client partner-2 (targetIp); remove or change those first',
    );
    let text = SANDBOX;
    for (const name of ['partner-1', 'partner-2']) text = removeItem(text, pathOf(text, name));
    text = removeItem(text, ['topology', 'loadBalancers', 0]);
    expect(load(text).topology.loadBalancers).toEqual([]);
    expect(load(text).topology.externalClients.map((c) => c.name)).toEqual(['user-1', 'user-2', 'user-3', 'user-4']);
  });

  it('refuses paths that are not outline items', () => {
    expect(errorOf(() => removeItem(DEMO, ['params', 'client']))).toBe('params.client is not an item the editor removes');
    expect(errorOf(() => removeItem(DEMO, ['topology', 'nodes', 9]))).toBe('there is no node at topology.nodes[9]');
    expect(errorOf(() => removeItem(DEMO, ['topology', 'services', 'api']))).toBe('there is no Service at topology.services.api');
  });
});

describe('setValue', () => {
  it('lowering replicas drops the last placements nothing refers to, keeping the comment on the value', () => {
    const text = setValue(COMMENTED, ['topology', 'deployments', 'web', 'replicas'], 1);
    const s = load(text);
    expect(s.topology.deployments['web']!.replicas).toBe(1);
    expect(s.topology.nodes.flatMap((n) => n.pods.filter((p) => p.deployment === 'web').map((p) => p.name))).toEqual(['web-0']);
    expect(text).toContain('      replicas: 1 # one per node\n');
    for (const comment of COMMENTS) expect(text).toContain(comment);
  });

  it('refuses to drop a placement the timeline targets', () => {
    expect(errorOf(() => setValue(DEMO, ['topology', 'deployments', 'web', 'replicas'], 0))).toBe(
      'web has 3 pods placed on nodes, more than replicas 0 allows, and pod web-0 is still referred to by timeline[0] (delete-pod on pod/web-0); remove or change those first',
    );
  });

  it('raising replicas leaves the placements alone', () => {
    const s = load(setValue(DEMO, ['topology', 'deployments', 'client', 'replicas'], 6));
    expect(s.topology.deployments['client']!.replicas).toBe(6);
    expect(s.topology.nodes.flatMap((n) => n.pods).length).toBe(7);
  });

  it('writes a value the schema left to its default', () => {
    const text = setValue(blankScenario(), ['topology', 'services', 'web', 'port'], 8081);
    expect(load(text).topology.services['web']!.port).toBe(8081);
  });

  it('returns the text unchanged when the value is already there', () => {
    expect(setValue(DEMO, ['topology', 'deployments', 'web', 'replicas'], 3)).toBe(DEMO);
  });

  it('refuses a value the loader rejects, quoting it', () => {
    expect(errorOf(() => setValue(DEMO, ['topology', 'services', 'web', 'port'], 0))).toMatch(/^the scenario would no longer load: topology\.services\.web\.port: /);
    expect(errorOf(() => setValue(DEMO, ['topology', 'nodes', 1, 'ip'], '10.0.0.11'))).toBe(
      'the scenario would no longer load: topology.nodes[1].ip: 10.0.0.11 is already used by node node-a',
    );
  });

  it('refuses a map, a list or a place that does not exist', () => {
    expect(errorOf(() => setValue(DEMO, ['topology', 'deployments', 'web'], 1))).toBe('topology.deployments.web is a map; setValue sets a single value');
    expect(errorOf(() => setValue(DEMO, ['topology', 'nodes'], 1))).toBe('topology.nodes is a list; setValue sets a single value');
    expect(errorOf(() => setValue(DEMO, ['topology', 'deployments', 'api', 'replicas'], 1))).toMatch(/^the scenario would no longer load: topology\.deployments\.api\.app: /);
    expect(errorOf(() => setValue(DEMO, ['topology', 'nodes', 7], 1))).toBe('there is nothing at topology.nodes[7] to set');
    expect(errorOf(() => setValue(DEMO, ['topology', 'nodes', 7, 'ip'], '10.0.0.20'))).toBe('there is nothing at topology.nodes[7].ip to set');
    expect(errorOf(() => setValue(DEMO, ['title', 'x'], 1))).toBe('title is not a map or list');
  });
});

describe('unset', () => {
  const unset = (text: string, path: (string | number)[]) => applyEdit(text, { op: 'unset', path }).text;

  it('takes a value out so its default applies again, keeping the comments around it', () => {
    const text = unset(COMMENTED, ['params', 'client', 'reconnectMs']);
    expect(text).not.toContain('    reconnectMs: 300\n');
    expect(load(text).params.client.reconnectMs).toBe(1000);
    for (const comment of COMMENTS) expect(text).toContain(comment);
  });

  it('returns the text unchanged when the value is not there', () => {
    expect(unset(DEMO, ['topology', 'services', 'web', 'type'])).toBe(DEMO);
  });

  it('refuses a map, and a value the scenario cannot load without', () => {
    expect(errorOf(() => unset(DEMO, ['topology', 'deployments', 'web']))).toBe('topology.deployments.web is not a single value; unset takes out single values only');
    expect(errorOf(() => unset(DEMO, ['topology', 'nodes', 0, 'ip']))).toMatch(/^the scenario would no longer load: topology\.nodes\[0\]\.ip: /);
  });
});

describe('outline', () => {
  it('lists the scenario first and every parameter section last, none of them removable', () => {
    const { items } = outline(DEMO);
    expect(items[0]).toEqual({ kind: 'scenario', name: 'demo', path: [], detail: 'Demo: a pod is deleted under load', removable: false });
    const params = items.filter((i) => i.kind === 'params');
    expect(params.map((i) => i.name)).toEqual(PARAM_SECTIONS);
    expect(items.slice(-params.length)).toEqual(params);
    expect(params.find((i) => i.name === 'client')).toEqual({ kind: 'params', name: 'client', path: ['params', 'client'], detail: '2 set', removable: false });
    expect(params.find((i) => i.name === 'tcp')?.detail).toBe('defaults');
  });

  it('lists the demo: nodes with their pods, deployments and clients, the Service', () => {
    const items = topologyItems(DEMO);
    expect(outline(DEMO).error).toBeNull();
    expect(items.map((i) => `${i.kind} ${i.name}`)).toEqual([
      'node node-a',
      'pod web-0',
      'pod client-0',
      'node node-b',
      'pod web-1',
      'pod client-1',
      'node node-c',
      'pod web-2',
      'pod client-2',
      'pod client-3',
      'deployment web',
      'client client',
      'service web',
    ]);
    expect(items[0]).toEqual({
      kind: 'node',
      name: 'node-a',
      path: ['topology', 'nodes', 0],
      removable: false,
      detail: '10.0.0.11, pods 10.244.1.0/24, cloud',
      reason: 'node-a still runs pods web-0, client-0; remove or move them first',
    });
    expect(items[2]).toEqual({ kind: 'pod', name: 'client-0', path: ['topology', 'nodes', 0, 'pods', 1], removable: true, detail: 'client on node-a' });
    expect(items.find((i) => i.name === 'client')).toMatchObject({ removable: true, detail: 'http-client, 4 replicas → web' });
    expect(items.at(-1)).toMatchObject({ path: ['topology', 'services', 'web'], removable: false, detail: 'ClusterIP 10.96.0.10:80 → web' });
  });

  it('lists routers, load balancers and external clients', () => {
    const items = outline(SANDBOX).items;
    expect(items.filter((i) => ['router', 'load-balancer', 'client'].includes(i.kind)).map((i) => `${i.kind} ${i.name} ${i.detail}`)).toEqual([
      'router tor 10.0.0.1',
      'load-balancer bigip 10.0.0.250, 192.0.2.10:80 → traefik',
      'client user-1 203.0.113.1 → 192.0.2.50:80',
      'client user-2 203.0.113.2 → 192.0.2.50:80',
      'client user-3 203.0.113.3 → 192.0.2.50:80',
      'client user-4 203.0.113.4 → 192.0.2.50:80',
      'client partner-1 198.51.100.1 → 192.0.2.10:80',
      'client partner-2 198.51.100.2 → 192.0.2.10:80',
    ]);
  });

  it('lists what an edit added or removed', () => {
    const added = addItem(DEMO, 'router');
    expect(names(added, 'router')).toEqual(['router']);
    expect(names(removeItem(added, ['topology', 'routers', 0]), 'router')).toEqual([]);
  });

  it('reports text it cannot read instead of throwing', () => {
    expect(outline('topology: [\n')).toEqual({ items: [], error: expect.stringMatching(/^the YAML has an error at line/) as unknown });
    expect(outline('version: 1\n')).toEqual({ items: [], error: 'the scenario has no topology map' });
  });
});

describe('every shipped scenario', () => {
  const files = [
    'calico-collision.yaml',
    'cfs-throttling.yaml',
    'ecmp-resets.yaml',
    'f5-unknown-health.yaml',
    'its-not-dns.yaml',
    'kube-proxy-overload.yaml',
    'service-discovery.yaml',
    'source-ip.yaml',
  ];

  it.each(files)('%s: each addition either loads or says why not', (file) => {
    const text = read(file);
    for (const kind of ADDABLE.map((o) => o.kind) as EditKind[]) {
      let edited: string;
      try {
        edited = addItem(text, kind);
      } catch (error) {
        expect((error as Error).message).toMatch(/; add a (deployment|Service) first$/);
        continue;
      }
      expectUnique(load(edited));
    }
  });
});
