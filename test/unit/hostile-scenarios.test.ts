/**
 * Every scenario the loader accepts runs: names that are properties of every object, numbers at the edge of what the
 * engine can schedule, and more pods than a node has addresses are loader errors naming their field, or they work.
 * The property test mutates every shipped scenario; seeds it found failing are pinned below it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { faultCatalog } from '../../src/sim/faults/catalog';
import { loadScenario } from '../../src/sim/scenario/load';
import { scenarioJsonSchema } from '../../src/sim/scenario/json-schema';
import { FAULT_IDS } from '../../src/sim/sim';
import { clusterDns, fault, httpClient, httpServer, nodes, scenarioText, service } from '../fixtures/scenario-builder';
import { fixChoices, loadAndRun, mutants, SHIPPED, shippedDoc } from '../fixtures/hostile-mutants';
import { runText } from '../fixtures/scenario-run';

const load = (text: string, fixes: string[] = []) => loadScenario(text, 'hostile.yaml', { faultIds: FAULT_IDS, faults: faultCatalog(), fixes });

function errorsOf(text: string, fixes: string[] = []): string[] {
  const result = load(text, fixes);
  if (result.ok) throw new Error('expected the scenario to be refused');
  return result.errors;
}

const BASE = {
  id: 'hostile',
  duration: 5,
  topology: {
    nodes: nodes(2),
    deployments: { web: httpServer(2), caller: httpClient(2, 'web') },
    services: { web: service('web', '10.96.0.20') },
  },
};

describe('names that are properties of every object', () => {
  it('work as a deployment name, a selector, a client target and a fix name', () => {
    const text = scenarioText({
      ...BASE,
      topology: {
        nodes: nodes(2),
        deployments: { constructor: httpServer(2), caller: httpClient(2, 'web') },
        services: { web: service('constructor', '10.96.0.20') },
      },
      fixes: { constructor: { description: 'more clients', set: { 'topology.deployments.caller.replicas': 4 } } },
    });
    const { report } = runText(text);
    expect(report.totals['requests.ok']).toBeGreaterThan(0);
    const fixed = load(text, ['constructor']);
    expect(fixed.ok && fixed.scenario.topology.deployments['caller']?.replicas).toBe(4);
  });

  it.each(['toString', 'constructor', 'valueOf', 'hasOwnProperty'])('are unknown names when the file does not define them: %s', (name) => {
    const text = scenarioText(BASE, (s) => {
      s.topology.nodes[0]!.pods = [{ name: 'odd-0', deployment: name }];
      (s.topology.deployments['caller'] as { target: string }).target = name;
      s.topology.services!['web']!.selector = name;
    });
    const errors = errorsOf(text);
    expect(errors).toContain(`topology.nodes[0].pods[0].deployment: unknown deployment "${name}"`);
    expect(errors).toContainEqual(expect.stringMatching(/^topology\.deployments\.caller\.target: unknown service/));
    expect(errors).toContainEqual(expect.stringMatching(/^topology\.services\.web\.selector: unknown deployment/));
  });

  it.each(['constructor', '__proto__', 'toString'])('--fix %s is an unknown fix', (name) => {
    expect(errorsOf(scenarioText(BASE), [name])).toEqual([`fixes: unknown fix "${name}"; this scenario has no fixes`]);
  });

  it('a key __proto__ is refused where it stands, in YAML and in JSON, rather than dropped', () => {
    const yaml = `${scenarioText(BASE)}\nfixes:\n  __proto__:\n    description: d\n    set: {}\n`;
    expect(errorsOf(yaml)).toEqual(['fixes.__proto__: "__proto__" cannot be a key or a name']);
    const json = JSON.stringify({ topology: { deployments: JSON.parse('{"__proto__": {"app": "http-server"}}') } });
    expect(loadScenario(json, 'hostile.json', { faultIds: FAULT_IDS, faults: faultCatalog() })).toEqual({
      ok: false,
      errors: ['topology.deployments.__proto__: "__proto__" cannot be a key or a name'],
    });
  });

  it('a params key named like an inherited property is an unknown key', () => {
    const text = scenarioText(BASE, (s) => {
      (s.params as Record<string, unknown>)['toString'] = { replicas: 3 };
    });
    expect(errorsOf(text)).toContainEqual(expect.stringMatching(/^params\.toString: unknown key/));
  });

  it('--set and a fix reach a deployment named constructor or prototype; --set through __proto__ is refused', () => {
    const text = scenarioText({
      ...BASE,
      topology: {
        nodes: nodes(2),
        deployments: { constructor: httpServer(2), prototype: httpClient(2, 'web') },
        services: { web: service('constructor', '10.96.0.20') },
      },
      fixes: { more: { description: 'more servers', set: { 'topology.deployments.constructor.replicas': 3 } } },
    });
    const loaded = loadScenario(text, 'hostile.yaml', { faultIds: FAULT_IDS, faults: faultCatalog(), fixes: ['more'], sets: ['topology.deployments.prototype.replicas=5'] });
    expect(loaded.ok && [loaded.scenario.topology.deployments['constructor']?.replicas, loaded.scenario.topology.deployments['prototype']?.replicas]).toEqual([3, 5]);
    const refused = loadScenario(text, 'hostile.yaml', { faultIds: FAULT_IDS, faults: faultCatalog(), sets: ['topology.__proto__.replicas=5'] });
    expect(refused).toEqual({ ok: false, errors: ['--set topology.__proto__.replicas=5: "__proto__" is not a scenario key'] });
  });

  it('a key constructor where the format has fixed keys is an unknown key, in any kind of deployment', () => {
    const text = scenarioText(BASE, (s) => {
      (s.topology as Record<string, unknown>)['constructor'] = 1;
      (s.topology.deployments['web'] as Record<string, unknown>)['constructor'] = 1;
    });
    const errors = errorsOf(text);
    expect(errors).toContainEqual(expect.stringMatching(/^topology\.constructor: unknown key/));
    expect(errors).toContainEqual(expect.stringMatching(/^topology\.deployments\.web\.constructor: unknown key/));
    expect(errors.join('\n')).not.toMatch(/deployments have/);
  });

  it('a pod no run can name is refused in the timeline; one its deployment may create later is left to the run', () => {
    const at = (target: string) => scenarioText({ ...BASE, timeline: [fault(1, 'delete-pod', target)] });
    expect(errorsOf(at('pod/wep-0'))).toEqual([
      'timeline[0].target: no pod can be named "wep-0": a pod is placed by name under topology.nodes, or named <deployment>-<n> (did you mean "web-0"?)',
    ]);
    expect(errorsOf(at('pod/coredns-0'))[0]).toMatch(/^timeline\[0\]\.target: no pod can be named "coredns-0"/);
    expect(load(at('pod/web-7'))).toMatchObject({ ok: true });
  });

  it('an expectation on a metric named like an inherited property is missing, not a crash', () => {
    const text = scenarioText({ ...BASE, expect: [{ metric: 'constructor', agg: 'peak', op: '>', value: 0 }] });
    const { report } = runText(text);
    expect(report.expect[0]).toMatchObject({ held: false, actual: null, missing: 'no metric named constructor' });
  });
});

describe('numbers the engine cannot schedule', () => {
  it.each([
    ['params.client.connectTimeoutMs', '1e15', 'params.client.connectTimeoutMs: must be <= 3600000, got 1000000000000000'],
    ['params.server.serviceTimeMs', '1e15', 'params.server.serviceTimeMs: must be <= 3600000, got 1000000000000000'],
    ['params.client.requestsPerSecond', '1e-300', 'params.client.requestsPerSecond: must be >= 0.001, got 1e-300'],
    ['params.client.requestsPerSecond', '1e6', 'params.client.requestsPerSecond: must be <= 10000, got 1000000'],
    ['params.tcp.initialRtoMs', '1e9', 'params.tcp.initialRtoMs: must be <= 120000, got 1000000000'],
    // Found by sweeping every parameter to its edges: a token bucket that cannot hold one packet.
    ['params.instance.ppsAllowance', '0.001', 'params.instance.ppsAllowance: must be >= 1, got 0.001'],
  ])('%s=%s is refused naming the field', (path, value, error) => {
    expect(errorsOf(scenarioText(BASE, (s) => setIn(s, path, Number(value))))).toEqual([error]);
  });

  it('a cloud instance of the smallest size still holds one tracked connection and passes a packet a second', () => {
    const text = scenarioText(BASE, (s) => {
      s.topology.nodes = nodes(2, { platform: 'cloud', size: 0.000001 });
    });
    const { report } = runText(text);
    expect(report.totals['hypervisor.conntrack_allowance_available{instance=node-a}']).toBe(1);
    expect(report.totals['requests.ok']).toBeGreaterThan(0);
  });

  it('every number in the JSON Schema has a floor and a ceiling', () => {
    const unbounded: string[] = [];
    walk(scenarioJsonSchema(), '', (at, node) => {
      // A constant (the version, an rp_filter mode) is bounded by being one value.
      if ((node['type'] !== 'number' && node['type'] !== 'integer') || 'const' in node) return;
      // A fix's values and a fault's parameters are checked where they land: the field they set, the fault's own range.
      if (/^\.properties\.(fixes|timeline)\./.test(at)) return;
      const low = node['minimum'] ?? node['exclusiveMinimum'];
      const high = node['maximum'] ?? node['exclusiveMaximum'];
      if (typeof low !== 'number' || typeof high !== 'number' || Math.abs(low) > Number.MAX_SAFE_INTEGER || Math.abs(high) > Number.MAX_SAFE_INTEGER) unbounded.push(at);
    });
    // Those fault parameters are bounded by the catalog.
    for (const f of faultCatalog()) for (const p of f.params) if (p.kind === 'number' && (p.min === undefined || p.max === undefined)) unbounded.push(`fault ${f.id}: ${p.name}`);
    expect(unbounded).toEqual([]);
  });
});

describe('load', () => {
  it('more requests a second than the engine runs are refused at the busiest clients', () => {
    const text = scenarioText({ ...BASE, params: { client: { requestsPerSecond: 10_000 } } }, (s) => {
      s.topology.deployments['caller']!.replicas = 3;
    });
    expect(errorsOf(text)).toEqual(['topology.deployments.caller.replicas: the clients would send 30000 requests a second at their peak (30000 from here); the engine runs at most 20000']);
  });

  it('counts the clients a timeline scales up at their peak', () => {
    const text = scenarioText({ ...BASE, params: { client: { requestsPerSecond: 100 } }, timeline: [fault(3, 'scale-deployment', 'deployment/caller', { replicas: 300 })] });
    expect(errorsOf(text)).toEqual(['topology.deployments.caller.replicas: the clients would send 30000 requests a second at their peak (30000 from here); the engine runs at most 20000']);
  });

  it('so are more pods than it builds', () => {
    const text = scenarioText(BASE, (s) => {
      s.topology.nodes = nodes(2, (i) => ({ podCidr: `10.${i + 1}.0.0/16` }));
      s.topology.deployments['web']!.replicas = 20_000;
      s.topology.deployments['caller']!.replicas = 6_000;
    });
    expect(errorsOf(text)).toEqual(['topology.deployments.web.replicas: the scenario would run 26000 pods (20000 from here); the engine runs at most 25000']);
  });

  it('so are more client connections than it runs', () => {
    const text = scenarioText({ ...BASE, params: { client: { requestsPerSecond: 1, connectionsPerPod: 64 } } }, (s) => {
      s.topology.nodes = nodes(2, (i) => ({ podCidr: `10.${i + 1}.0.0/16` }));
      s.topology.deployments['caller']!.replicas = 400;
    });
    expect(errorsOf(text)).toEqual(['params.client.connectionsPerPod: the HTTP clients would hold 25600 connections; the engine runs at most 20000']);
  });

  it('so are the hanging dials of clients that dial per request: rate times connect timeout', () => {
    const text = scenarioText({ ...BASE, params: { client: { requestsPerSecond: 10, connectionMode: 'per-request', connectTimeoutMs: 30_000 } } }, (s) => {
      s.topology.nodes = nodes(2, (i) => ({ podCidr: `10.${i + 1}.0.0/16` }));
      s.topology.deployments['caller']!.replicas = 100;
    });
    expect(errorsOf(text)).toEqual(['params.client.connectTimeoutMs: the HTTP clients would hold 30000 connections; the engine runs at most 20000']);
  });
});

describe('pod addresses', () => {
  it('a /32 pod range is refused at the replicas that find no address', () => {
    const text = scenarioText(BASE, (s) => {
      s.topology.nodes = nodes(1, { podCidr: '10.244.1.0/32' });
    });
    expect(errorsOf(text)).toEqual([
      "topology.deployments.web.replicas: 2 of web's pods get no address: the pod range (podCidr) of node-a is full",
      "topology.deployments.caller.replicas: 2 of caller's pods get no address: the pod range (podCidr) of node-a is full",
    ]);
  });

  it('10,000 replicas do not fit two /24 ranges', () => {
    const text = scenarioText(BASE, (s) => {
      s.topology.deployments['caller']!.replicas = 10_000;
    });
    expect(errorsOf(text)).toEqual(["topology.deployments.caller.replicas: 9496 of caller's pods get no address: the pod range (podCidr) of node-a, node-b are full"]);
  });

  it('a replica count set under params is named there', () => {
    const text = scenarioText({ ...BASE, params: { caller: { replicas: 600 } } });
    expect(errorsOf(text)).toEqual(["params.caller.replicas: 96 of caller's pods get no address: the pod range (podCidr) of node-a, node-b are full"]);
  });

  it('more explicitly placed pods than a replicas knob asks for is no shortage (its-not-dns with params.metric.replicas=16)', () => {
    const text = scenarioText({ ...BASE, params: { web: { replicas: 1 } } }, (s) => {
      s.topology.nodes[0]!.pods = [
        { name: 'web-0', deployment: 'web' },
        { name: 'web-1', deployment: 'web' },
      ];
    });
    expect(load(text)).toMatchObject({ ok: true });
  });

  it("a shortfall only the scheduler's order makes is left to the run: the pods wait and the deployment says so", () => {
    // wide spreads 3 and 3 over two /29 ranges of 5 addresses; pinned may only use node-a, which has 2 left for its 4.
    const text = scenarioText(BASE, (s) => {
      s.topology.nodes = nodes(2, (i) => ({ podCidr: `10.244.${i + 1}.0/29` }));
      s.topology.deployments = { wide: httpServer(6), pinned: httpServer(4, { nodes: ['node-a'] }) };
      s.topology.services = { web: service('wide', '10.96.0.20') };
    });
    const { sim } = runText(text);
    const waiting = sim.eventsSince(0).filter((e) => e.kind === 'pod.unschedulable');
    expect(waiting.map((e) => [e.entity, e.message])).toEqual([['deployment/pinned', '2 pod(s) wait: no node is schedulable with a free pod address']]);
  });

  it('pods beyond every free address of the nodes they may use are refused, whatever the order', () => {
    const text = scenarioText(BASE, (s) => {
      s.topology.nodes = nodes(2, (i) => ({ podCidr: `10.244.${i + 1}.0/29` }));
      s.topology.deployments = { wide: httpServer(6), pinned: httpServer(6, { nodes: ['node-a'] }) };
      s.topology.services = { web: service('wide', '10.96.0.20') };
    });
    expect(errorsOf(text)).toEqual(["topology.deployments.pinned.replicas: 2 of pinned's pods get no address: the pod range (podCidr) of node-a is full"]);
  });

  it('CoreDNS replicas count against the same ranges', () => {
    const text = scenarioText(BASE, (s) => {
      s.topology.nodes = nodes(1, { podCidr: '10.244.1.0/30' });
      s.topology.deployments = { web: httpServer(0) };
      s.topology.services = { web: service('web', '10.96.0.20') };
      s.topology.dns = clusterDns({ replicas: 2 });
    });
    expect(errorsOf(text)).toEqual(["topology.dns.replicas: 1 of coredns's pods get no address: the pod range (podCidr) of node-a is full"]);
  });

  it('exactly as many pods as addresses run, and a scale-up past them waits instead of failing the run', () => {
    const text = scenarioText(
      {
        ...BASE,
        duration: 10,
        timeline: [fault(1, 'scale-deployment', 'deployment/web', { replicas: 50 })],
      },
      (s) => {
        s.topology.nodes = nodes(2, (i) => ({ podCidr: `10.244.${i + 1}.0/29` }));
        s.topology.deployments['web']!.replicas = 8;
      },
    );
    const { sim, report } = runText(text);
    expect(report.totals['requests.ok']).toBeGreaterThan(0);
    expect(sim.eventsSince(0).some((e) => e.kind === 'pod.unschedulable')).toBe(true);
  });
});

// Bounded for `npm test`; `npm run fuzz:scenarios` runs longer: FUZZ_RUNS mutants of each scenario, FUZZ_SEED picks
// others, and a run may take at most FUZZ_MAX_EVENTS events for its 5 simulated seconds. Pin a seed it finds below.
const FUZZ_RUNS = Number(process.env['FUZZ_RUNS'] ?? 16);
const FUZZ_SEED = Number(process.env['FUZZ_SEED'] ?? 22);
const FUZZ_MAX_EVENTS = Number(process.env['FUZZ_MAX_EVENTS'] ?? 20_000_000);

describe('random mutants of every shipped scenario', () => {
  it.each(SHIPPED)(
    '%s: each mutant is refused field by field, or runs 5 simulated seconds',
    (file) => {
      const doc = shippedDoc(file);
      fc.assert(
        fc.property(mutants(doc, 3), fixChoices(doc), (mutant, fixes) => {
          loadAndRun(mutant, fixes, file, FUZZ_MAX_EVENTS);
        }),
        { seed: FUZZ_SEED, numRuns: FUZZ_RUNS },
      );
    },
    60_000 + FUZZ_RUNS * 5_000,
  );
});

function setIn(doc: unknown, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = doc as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
  at[keys[keys.length - 1]!] = value;
}

function walk(node: unknown, at: string, visit: (at: string, node: Record<string, unknown>) => void): void {
  if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${at}[${i}]`, visit));
  else if (node !== null && typeof node === 'object') {
    visit(at, node as Record<string, unknown>);
    for (const [key, value] of Object.entries(node)) walk(value, `${at}.${key}`, visit);
  }
}
