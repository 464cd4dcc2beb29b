import { readFileSync } from 'node:fs';
import { faultCatalog, FAULT_IDS } from '../../src/sim/faults/catalog';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadScenario, type LoadOptions, type LoadResult } from '../../src/sim/scenario/load';
import { formatPath } from '../../src/sim/scenario/path';
import { SCENARIO_VERSION, scenarioSchema } from '../../src/sim/scenario/schema';
import { didYouMean, levenshtein, suggest } from '../../src/sim/scenario/suggest';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
const FAULTS = ['delete-pod', 'drain-node', 'partition-node'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests edit the parsed YAML at any depth to break it
type Doc = Record<string, any>;
const placed = (): Doc => parse(fixture('scenario-placed.yaml')) as Doc;

function errorsOf(result: LoadResult): string[] {
  if (result.ok) throw new Error('expected the scenario to be rejected');
  return result.errors;
}

/** Loads a document object as JSON and returns its errors. */
function errorsFor(doc: unknown, options: LoadOptions = { faultIds: FAULTS }): string[] {
  return errorsOf(loadScenario(JSON.stringify(doc), 'test.json', options));
}

describe('scenario defaults', () => {
  it('fills every default into a minimal file', () => {
    const result = loadScenario(fixture('scenario-minimal.yaml'), 'scenario-minimal.yaml');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const s = result.scenario;
    expect(s.version).toBe(SCENARIO_VERSION);
    expect(s.params).toEqual({
      engine: { cohorts: true },
      network: { hopLatencyUs: 50 },
      tcp: { initialRtoMs: 1000, synRetries: 6 },
      client: { requestsPerSecond: 10, connectionMode: 'pool', connectionsPerPod: 1, reconnectMs: 1000, requestsPerConnection: 0, connectTimeoutMs: 5000, requestTimeoutMs: 2000 },
      server: { serviceTimeMs: 5 },
      cpu: { periodMs: 100, sliceMs: 5, kernel: 'fixed' },
      dnsClient: { lookupsPerSecond: 1 },
      dns: { maxConcurrent: 0, upstreamTimeoutS: 5 },
      externalDns: { intervalS: 60, events: false, deregisterOn: 'delete' },
      kube: { podStartSeconds: 2, podStartJitter: 0, endpointPropagationMs: 100, replaceDelayMs: 200, netnsTeardownMs: 200 },
      hpa: { syncPeriodS: 15, tolerance: 0.1, downscaleStabilizationS: 300 },
      kubeProxy: { minSyncPeriodMs: 1000, syncPeriodS: 30, restore: 'partial', syncCostPerRuleUs: 10, otherServices: 0, otherEndpoints: 0 },
      lb: {
        monitorIntervalS: 5,
        monitorTimeoutS: 16,
        unknownReceivesTraffic: true,
        activation: 'immediate',
        snat: true,
        xff: 'preserve',
      },
      bgp: {
        convergenceMs: 500,
        holdTimeS: 90,
        bfd: { enabled: false, receiveIntervalMs: 300, transmitIntervalMs: 300, detectMultiplier: 3 },
        gracefulRestart: { enabled: false, restartTimeS: 120 },
      },
      node: { rpFilter: 2, cores: 8, podNetwork: 'routed', podInterfaceHasIp: false, tunnelHasIp: true, sourceRuleGcSeconds: 0 },
      calico: { ipam: 'node-cidr', blockSize: 26, leakGraceS: 900 },
      instance: {
        conntrackAllowance: 75_000,
        ppsAllowance: 400_000,
        untracked: false,
        tcpEstablishedTimeoutS: 432_000,
        tcpUnestablishedTimeoutS: 120,
        udpTimeoutS: 30,
        udpStreamTimeoutS: 180,
        ipReleaseDelayS: 30,
        sourceDestCheck: true,
        hourlyCost: 0.768,
      },
      zookeeper: {
        readsPerSecond: 20_000,
        ppsAllowance: 60_000,
        alarmPps: 40_000,
        rttMs: 0.5,
        sessionTimeoutS: 10,
        read: 'children-then-data',
        recordBytes: 1800,
        encoding: 'raw',
        compactRecordBytes: 120,
        nameBytes: 48,
        recordCost: 0.1,
      },
      nerve: { checkIntervalMs: 500, rise: 1, fall: 1, announcerPollMs: 1000 },
      synapse: { restartIntervalS: 2, readJitterMs: 0, minReadIntervalMs: 0 },
      haproxy: {
        checkInterMs: 2000,
        rise: 3,
        fall: 2,
        retries: 3,
        connectTimeoutMs: 5000,
        reloadBaseMs: 300,
        reloadPerServerMs: 2,
        checkPackets: 4,
        memoryBaseMb: 20,
        memoryPerServerKb: 40,
        clientConnections: 8,
        connectionLifetimeS: 60,
        hardStopAfterS: 0,
      },
      envoy: {
        connectTimeoutMs: 250,
        retries: 2,
        consecutiveFailures: 5,
        baseEjectionS: 30,
        maxEjectionPercent: 10,
        memoryBaseMb: 30,
        memoryPerHostKb: 2,
      },
      mesh: { envoyPercent: 0, killSwitch: false, requestsPerSecond: 2, backendWorkers: 4, checkCostMs: 1 },
    });
    expect(s.topology.nodes[0]?.platform).toBe('bare-metal');
    expect(s.topology.nodes[0]?.size).toBe(1);
    expect(s.topology.nodes[0]?.pods).toEqual([]);
    expect(s.topology.deployments['web']).toMatchObject({ app: 'http-server', port: 8080, cpuPerRequestMs: 0 });
    expect(s.topology.deployments['web']).not.toHaveProperty('cpuLimit');
    expect(s.topology.services['web']?.port).toBe(80);
    expect(s.timeline).toEqual([]);
    expect(s.fixes).toEqual({});
    expect(s.expect).toEqual([]);
    expect(result.appliedFixes).toEqual([]);
  });

  it('fills the rest of a partially written params section', () => {
    const doc = placed();
    doc['params'] = { tcp: { synRetries: 3 } };
    const result = loadScenario(JSON.stringify(doc), 'x.json');
    expect(result.ok && result.scenario.params.tcp).toEqual({ initialRtoMs: 1000, synRetries: 3 });
    expect(result.ok && result.scenario.params.kube.replaceDelayMs).toBe(200);
  });

  it('fills timeline params and keeps explicit values', () => {
    const result = loadScenario(fixture('scenario-placed.yaml'), 'scenario-placed.yaml', { faultIds: FAULTS });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.scenario.timeline[0]).toEqual({ at: 20, fault: 'delete-pod', target: 'pod/web-0', params: { gracePeriodSeconds: 0 } });
    expect(result.scenario.params.client.reconnectMs).toBe(1000);
    expect(result.scenario.description).toBe('Two nodes, pods pinned to them.\nUsed by the cross-field tests.\n');
  });

  it('gives the same scenario from YAML and from JSON', () => {
    const yaml = loadScenario(fixture('scenario-placed.yaml'), 'a.yaml');
    const json = loadScenario(JSON.stringify(placed()), 'a.json');
    const sniffed = loadScenario(JSON.stringify(placed()), 'pasted');
    expect(yaml.ok && json.ok && sniffed.ok).toBe(true);
    expect(json).toEqual(yaml);
    expect(sniffed).toEqual(yaml);
  });
});

describe('error format', () => {
  it('reports unknown keys with a suggestion at the key path', () => {
    const doc = placed();
    const node = doc['topology'].nodes[0];
    node.podcidr = node.podCidr;
    delete node.podCidr;
    expect(errorsFor(doc)).toEqual(['topology.nodes[0].podCidr: required (expected string)', 'topology.nodes[0].podcidr: unknown key (did you mean "podCidr"?)']);
  });

  it('reports an unknown top-level key with a suggestion', () => {
    const doc = placed();
    doc['timelime'] = [];
    expect(errorsFor(doc)).toEqual(['timelime: unknown key (did you mean "timeline"?)']);
  });

  it('reports a bad pod address deep in the tree', () => {
    const doc = placed();
    doc['topology'].nodes.push(
      { name: 'node-c', ip: '10.0.0.13', podCidr: '10.244.3.0/24' },
      { name: 'node-d', ip: '10.0.0.14', podCidr: '10.244.4.0/24', pods: [{ name: 'web-9', deployment: 'web', ip: '10.244.4' }] },
    );
    expect(errorsFor(doc)).toEqual(['topology.nodes[3].pods[0].ip: not an IPv4 address']);
  });

  it('reports an unknown fault with a suggestion', () => {
    const doc = placed();
    doc['timeline'][0].fault = 'delet-pod';
    expect(errorsFor(doc)).toEqual(['timeline[0].fault: unknown fault "delet-pod" (did you mean "delete-pod"?)']);
  });

  it('accepts any well-formed fault id when no catalog is given', () => {
    const doc = placed();
    doc['timeline'][0].fault = 'delet-pod';
    expect(loadScenario(JSON.stringify(doc), 'x.json').ok).toBe(true);
  });

  it('reports unknown faults beside structural errors', () => {
    const doc = placed();
    doc['timeline'][0].fault = 'delet-pod';
    doc['seed'] = -1;
    expect(errorsFor(doc)).toEqual(['seed: must be >= 0, got -1', 'timeline[0].fault: unknown fault "delet-pod" (did you mean "delete-pod"?)']);
  });

  it('maps type errors to plain English', () => {
    const doc = placed();
    doc['duration'] = '60';
    doc['seed'] = 1.5;
    doc['topology'].nodes[0].pods = {};
    doc['params'].client.reconnectMs = Number.NaN;
    expect(errorsFor(doc)).toEqual([
      'seed: expected integer, got 1.5',
      'duration: expected number, got string',
      'topology.nodes[0].pods: expected list, got object',
      // JSON has no NaN; it is written as null.
      'params.client.reconnectMs: expected number, got null',
    ]);
  });

  it('reports NaN and infinities from YAML by value', () => {
    const text = fixture('scenario-minimal.yaml').replace('duration: 30', 'duration: .nan').replace('seed: 1', 'seed: .inf');
    expect(errorsOf(loadScenario(text, 'x.yaml'))).toEqual(['seed: expected number, got Infinity', 'duration: expected number, got NaN']);
  });

  it('reports ranges, enums, literals, formats and missing keys', () => {
    const doc = placed();
    doc['version'] = 2;
    doc['id'] = 'Placed Pods';
    doc['title'] = '';
    doc['duration'] = 7200;
    doc['topology'].deployments.web.app = 'http-sever';
    doc['topology'].deployments.client.replicas = 20001;
    doc['topology'].services.web.port = 0;
    doc['topology'].nodes[1].podCidr = '10.244.2.0/33';
    delete doc['description'];
    doc['expect'][0].op = '=';
    expect(errorsFor(doc)).toEqual([
      'version: expected 1, got 2',
      'id: must be lower-case letters, digits and "-"',
      'title: must not be empty',
      'description: required (expected string)',
      'duration: must be <= 3600, got 7200',
      'topology.nodes[1].podCidr: not an IPv4 CIDR block (like 10.244.1.0/24)',
      'topology.deployments.web.app: expected one of "http-server", "http-client", "ingress-proxy", "dns-client", "grpc-server", "grpc-client", "mesh-server", "mesh-client", got "http-sever" (did you mean "http-server"?)',
      'topology.deployments.client.replicas: must be <= 20000, got 20001',
      'topology.services.web.port: must be >= 1, got 0',
      'expect[0].op: expected one of "<", "<=", ">", ">=", "==", "!=", got "=" (did you mean "<="?)',
    ]);
  });

  it("names a deployment's app when it is missing, and a mistyped key beside it", () => {
    const doc = placed();
    doc['topology'].deployments.client = { apps: 'http-client', replicas: 1, target: 'web', lokup: 'x' };
    expect(errorsFor(doc)).toEqual([
      'topology.deployments.client.app: required (expected one of "http-server", "http-client", "ingress-proxy", "dns-client", "grpc-server", "grpc-client", "mesh-server", "mesh-client")',
      'topology.deployments.client.apps: unknown key (did you mean "app"?)',
      'topology.deployments.client.lokup: unknown key (did you mean "lookup"?)',
    ]);
  });

  it('reports bad record names and quotes keys that are not identifiers', () => {
    const doc = placed();
    doc['topology'].deployments['Web App'] = { app: 'http-server', replicas: 1 };
    doc['topology'].services['1web'] = { selector: 'web', clusterIp: '10.96.0.11' };
    const errors = errorsFor(doc);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^topology\.deployments\["Web App"\]: invalid name: must be a DNS-1123 label/);
    expect(errors[1]).toMatch(/^topology\.services\["1web"\]: invalid name: must be a DNS-1035 label/);
  });

  it('reports whole-document problems at (root)', () => {
    expect(errorsOf(loadScenario('[1, 2]', 'x.yaml'))).toEqual(['(root): expected object, got list']);
    expect(errorsOf(loadScenario('42', 'x.yaml'))).toEqual(['(root): expected object, got number']);
    expect(errorsOf(loadScenario('  \n', 'x.yaml'))).toEqual(['(root): the file is empty']);
    expect(errorsOf(loadScenario('{}', 'x.json'))[0]).toBe('version: required (expected 1)');
  });

  it('formats paths the way the loader writes them', () => {
    expect(formatPath([])).toBe('(root)');
    expect(formatPath(['topology', 'nodes', 3, 'pods', 0, 'ip'])).toBe('topology.nodes[3].pods[0].ip');
    expect(formatPath(['fixes', 'x', 'set', 'params.tcp.synRetries'])).toBe('fixes.x.set["params.tcp.synRetries"]');
    expect(formatPath(['topology', 'deployments', 'a b'])).toBe('topology.deployments["a b"]');
  });

  it('reports the structural mistakes of a hand-written file together', () => {
    expect(errorsOf(loadScenario(fixture('scenario-typos.yaml'), 'scenario-typos.yaml'))).toEqual([
      'duration: expected number, got string',
      'topology.nodes[0].ip: not an IPv4 address',
      'topology.nodes[0].podCidr: required (expected string)',
      'topology.nodes[0].podcidr: unknown key (did you mean "podCidr"?)',
      'topology.deployments.web.app: expected one of "http-server", "http-client", "ingress-proxy", "dns-client", "grpc-server", "grpc-client", "mesh-server", "mesh-client", got "http-sever" (did you mean "http-server"?)',
    ]);
  });
});

describe('syntax errors', () => {
  it('gives the line and column of a YAML syntax error', () => {
    const errors = errorsOf(loadScenario(fixture('scenario-bad-syntax.yaml'), 'scenario-bad-syntax.yaml'));
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) expect(error).toMatch(/^\(root\): YAML syntax error at line \d+, column \d+: \S/);
    expect(errors[0]).toMatch(/at line [45],/);
  });

  it('rejects duplicate YAML keys with their position', () => {
    const errors = errorsOf(loadScenario('version: 1\nid: a\nid: b\n', 'x.yml'));
    expect(errors).toEqual(['(root): YAML syntax error at line 3, column 1: Map keys must be unique']);
  });

  it('rejects several YAML documents in one file', () => {
    const errors = errorsOf(loadScenario('version: 1\n---\nversion: 1\n', 'x.yaml'));
    expect(errors[0]).toMatch(/^\(root\): YAML syntax error at line 2, column 1: Source contains multiple documents/);
  });

  it('reports an unresolved alias without throwing', () => {
    expect(errorsOf(loadScenario('a: *nothing\n', 'x.yaml'))[0]).toMatch(/^\(root\): /);
  });

  it('sniffs pasted text: JSON when it parses, YAML otherwise', () => {
    const flow = `{version: 1, id: flow, title: Flow, description: "", seed: 1, duration: 5, topology: {nodes: [{name: n, ip: 10.0.0.1, podCidr: 10.1.0.0/16}], deployments: {web: {app: http-server, replicas: 1}}}}`;
    const result = loadScenario(flow, 'clipboard');
    expect(result.ok && result.scenario.id).toBe('flow');
    expect(errorsOf(loadScenario('{version: 1', 'clipboard'))).toEqual(['(root): YAML syntax error at line 1, column 12: Flow map must end with a }']);
  });

  it('refuses __proto__ as a key, naming it, and never takes it for a prototype', () => {
    const doc = placed();
    const text = JSON.stringify(doc).replace('{"version":1,', '{"__proto__":{"polluted":1},"version":1,');
    expect(errorsOf(loadScenario(text, 'x.json'))).toEqual(['__proto__: "__proto__" cannot be a key or a name']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('reports invalid JSON for .json files', () => {
    const errors = errorsOf(loadScenario('{"version": 1,}', 'x.json'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^\(root\): invalid JSON/);
  });
});

describe('chapters', () => {
  it('are kept in order with their text, and checked against the run', () => {
    const doc = placed();
    doc['chapters'] = [
      { at: 0, title: 'Calm', text: 'Everything answers.' },
      { at: 20, title: 'The deletion', text: 'web-0 goes.', action: 'Watch the drops panel.' },
    ];
    const result = loadScenario(JSON.stringify(doc), 'x.json', { faultIds: FAULTS });
    expect(result.ok && result.scenario.chapters[1]).toEqual({ at: 20, title: 'The deletion', text: 'web-0 goes.', action: 'Watch the drops panel.' });
    doc['chapters'] = [
      { at: 30, title: 'Later', text: 'x' },
      { at: 10, title: 'Earlier', text: 'y' },
      { at: 999, title: 'Never', text: 'z' },
    ];
    expect(errorsFor(doc)).toEqual(['chapters[1].at: chapters must be in time order: 10 s comes after 30 s', 'chapters[2].at: 999 s is after the end of the run (duration 60 s)']);
  });
});

describe('charts', () => {
  it('default to requests per second, and take rate, level and histogram charts with label patterns', () => {
    const doc = placed();
    const plain = loadScenario(JSON.stringify(doc), 'x.json', { faultIds: FAULTS });
    expect(plain.ok && plain.scenario.charts.map((c) => c.series.map((s) => s.metric))).toEqual([['requests.ok', 'requests.failed']]);
    doc['charts'] = [
      { title: 'Flows', series: [{ metric: 'flows.new{dst=*}', label: 'to' }] },
      { title: 'Tracked', kind: 'level', unit: 'entries', series: [{ metric: 'hypervisor.conntrack.used{instance=node-a}', label: 'node-a' }] },
      { title: 'Switch-over', kind: 'histogram', unit: 's', series: [{ metric: 'grpc.client.switchover_s', label: 'clients' }] },
    ];
    const result = loadScenario(JSON.stringify(doc), 'x.json', { faultIds: FAULTS });
    expect(result.ok && result.scenario.charts.map((c) => c.kind)).toEqual(['rate', 'level', 'histogram']);
  });

  it('name the field of a bad chart', () => {
    const doc = placed();
    doc['charts'] = [
      { title: 'Bad', kind: 'pie', series: [{ metric: 'Flows*', label: 'x' }] },
      { title: 'Empty', series: [] },
    ];
    expect(errorsFor(doc)).toEqual([
      'charts[0].kind: expected one of "rate", "level", "histogram", got "pie"',
      'charts[0].series[0].metric: must be a metric name like name{key=value}, or name{key=*} for the busiest series of a label',
      'charts[1].series: needs at least 1 item',
    ]);
  });
});

describe('per-deployment knobs under params.<deployment>', () => {
  it('override what the topology says for that deployment', () => {
    const result = loadScenario(fixture('scenario-placed.yaml'), 'x.yaml', { faultIds: FAULTS, sets: ['params.web.replicas=7', 'params.web.gracePeriodS=10'] });
    expect(result.ok && result.scenario.params['web']).toEqual({ replicas: 7, gracePeriodS: 10 });
  });

  it('name the deployment and the knob when one is wrong, and suggest for a key that is neither', () => {
    const doc = placed();
    doc['params'] = { web: { replicas: -1, gracePriodS: 3 }, nodee: { rpFilter: 1 } };
    expect(errorsFor(doc)).toEqual([
      'params.web.replicas: must be >= 0, got -1',
      'params.web.gracePriodS: unknown key (did you mean "gracePeriodS"?)',
      'params.nodee: unknown key (did you mean "node"?)',
    ]);
  });
});

describe('cross-field checks', () => {
  it('accepts the consistent base fixture', () => {
    expect(loadScenario(fixture('scenario-placed.yaml'), 'x.yaml', { faultIds: FAULTS }).ok).toBe(true);
  });

  it('rejects duplicate pod names across nodes', () => {
    const doc = placed();
    doc['topology'].nodes[1].pods.push({ name: 'web-0', deployment: 'web' });
    doc['topology'].deployments.web.replicas = 3;
    expect(errorsFor(doc)).toEqual(['topology.nodes[1].pods[1].name: duplicate pod name "web-0" (also at topology.nodes[0].pods[0].name)']);
  });

  it('rejects duplicate node names', () => {
    const doc = placed();
    doc['topology'].nodes[1].name = 'node-a';
    expect(errorsFor(doc)).toEqual(['topology.nodes[1].name: duplicate node name "node-a" (also at topology.nodes[0].name)']);
  });

  it("rejects a pod address outside its node's podCidr", () => {
    const doc = placed();
    doc['topology'].nodes[1].pods[0].ip = '10.244.1.9';
    expect(errorsFor(doc)).toEqual(["topology.nodes[1].pods[0].ip: 10.244.1.9 is outside node node-b's podCidr 10.244.2.0/24"]);
  });

  it('rejects a podCidr with host bits set', () => {
    const doc = placed();
    doc['topology'].nodes[0].podCidr = '10.244.1.5/24';
    expect(errorsFor(doc)).toEqual(['topology.nodes[0].podCidr: host bits are set; the block is 10.244.1.0/24']);
  });

  it('rejects an address used twice among nodes, pods and services', () => {
    const doc = placed();
    doc['topology'].nodes[1].ip = '10.0.0.11';
    doc['topology'].services.web.clusterIp = '10.244.2.5';
    expect(errorsFor(doc)).toEqual(['topology.nodes[1].ip: 10.0.0.11 is already used by node node-a', 'topology.services.web.clusterIp: 10.244.2.5 is already used by pod web-1']);
  });

  it('rejects a pod naming a deployment that does not exist', () => {
    const doc = placed();
    doc['topology'].nodes[0].pods[1].deployment = 'clinet';
    expect(errorsFor(doc)).toEqual(['topology.nodes[0].pods[1].deployment: unknown deployment "clinet" (did you mean "client"?)']);
  });

  it('rejects more explicit pods than replicas', () => {
    const doc = placed();
    doc['topology'].deployments.web.replicas = 1;
    expect(errorsFor(doc)).toEqual(['topology.deployments.web.replicas: 2 pods are placed explicitly but replicas is 1']);
  });

  it('checks DaemonSets and node selectors against the nodes and the placed pods', () => {
    const doc = placed();
    doc['topology'].deployments.web = { app: 'http-server', kind: 'DaemonSet', replicas: 2, nodes: ['node-a', 'node-c'] };
    doc['topology'].nodes[0].pods.push({ name: 'web-2', deployment: 'web' });
    expect(errorsFor(doc)).toEqual([
      'topology.nodes[0].pods[2].deployment: web is a DaemonSet: one pod per node, and node-a already lists one',
      "topology.nodes[1].pods[0].deployment: web's nodes do not include node-b, so its pods cannot run there",
      'topology.deployments.web.replicas: a DaemonSet runs one pod per node it may run on; leave replicas out',
      'topology.deployments.web.nodes[1]: unknown node "node-c" (did you mean "node-a"?)',
    ]);
    doc['topology'].deployments.client = { app: 'http-client', target: 'web' };
    doc['topology'].deployments.web = { app: 'http-server', kind: 'DaemonSet', autoscale: { maxReplicas: 3, targetRequestsPerSecond: 5 } };
    doc['topology'].nodes[0].pods.pop();
    expect(errorsFor(doc)).toEqual([
      'topology.deployments.web.autoscale: an autoscaler scales replicas, and a DaemonSet has none: it runs one pod per node',
      'topology.deployments.client.replicas: required for a Deployment (or set kind: DaemonSet)',
    ]);
  });

  it('rejects a service selecting a missing deployment or a client', () => {
    const doc = placed();
    doc['topology'].services.web.selector = 'webb';
    doc['topology'].services.other = { selector: 'client', clusterIp: '10.96.0.11' };
    expect(errorsFor(doc)).toEqual([
      'topology.services.web.selector: unknown deployment "webb" (did you mean "web"?)',
      'topology.services.other.selector: deployment "client" runs http-client; a service must select an http-server or ingress-proxy',
    ]);
  });

  it('requires an existing service as the target of a client', () => {
    const missing = placed();
    delete missing['topology'].deployments.client.target;
    expect(errorsFor(missing)).toEqual(['topology.deployments.client.target: required for an http-client deployment (name a service)']);
    const unknown = placed();
    unknown['topology'].deployments.client.target = 'webb';
    expect(errorsFor(unknown)).toEqual(['topology.deployments.client.target: unknown service "webb" (did you mean "web"?)']);
    const server = placed();
    server['topology'].deployments.web.target = 'web';
    expect(errorsFor(server)).toEqual(["topology.deployments.web.target: only http-client, ingress-proxy and grpc-client deployments have this key (this one's app is http-server)"]);
  });

  it("rejects Calico blocks larger than a node's podCidr", () => {
    const doc = placed();
    doc['params'].calico = { ipam: 'blocks', blockSize: 22 };
    expect(errorsFor(doc)).toEqual([
      "params.calico.blockSize: /22 blocks do not fit node node-a's podCidr 10.244.1.0/24",
      "params.calico.blockSize: /22 blocks do not fit node node-b's podCidr 10.244.2.0/24",
    ]);
  });

  it('checks an ingress proxy: a target service that is not its own, and trust only on proxies', () => {
    const doc = placed();
    doc['topology'].deployments.proxy = { app: 'ingress-proxy', replicas: 1, trustedIps: ['10.0.0.0/24'] };
    doc['topology'].deployments.web.trustedIps = ['10.0.0.0/8'];
    expect(errorsFor(doc)).toEqual([
      "topology.deployments.web.trustedIps: only ingress-proxy deployments have this key (this one's app is http-server)",
      'topology.deployments.proxy.target: required for an ingress-proxy deployment (name a service)',
    ]);
    const loop = placed();
    loop['topology'].deployments.proxy = { app: 'ingress-proxy', replicas: 1, target: 'front' };
    loop['topology'].services.front = { selector: 'proxy', clusterIp: '10.96.0.11' };
    expect(errorsFor(loop)).toEqual(['topology.deployments.proxy.target: the service "front" selects this deployment itself: requests would loop']);
    const cpu = placed();
    cpu['topology'].deployments.client.cpuLimit = 1;
    expect(errorsFor(cpu)).toEqual(["topology.deployments.client.cpuLimit: only http-server deployments have this key (this one's app is http-client)"]);
    const bad = placed();
    bad['topology'].deployments.proxy = { app: 'ingress-proxy', replicas: 1, target: 'web', trustedIps: ['10.0.0.0/33'] };
    expect(errorsFor(bad)).toEqual(['topology.deployments.proxy.trustedIps[0]: not an IPv4 CIDR block (like 10.244.1.0/24)']);
  });

  it('needs at least one node and one deployment', () => {
    const doc = placed();
    doc['topology'].nodes = [];
    expect(errorsFor(doc)).toEqual(['topology.nodes: needs at least 1 item']);
    const empty = placed();
    empty['topology'] = { nodes: [{ name: 'node-a', ip: '10.0.0.11', podCidr: '10.244.1.0/24' }], deployments: {} };
    expect(errorsFor(empty)).toEqual([
      'topology.deployments: needs at least one deployment',
      'timeline[0].target: no pod can be named "web-0": a pod is placed by name under topology.nodes, or named <deployment>-<n>',
    ]);
  });

  it('rejects a timeline entry after the end of the run', () => {
    const doc = placed();
    doc['timeline'][0].at = 61;
    expect(errorsFor(doc)).toEqual(['timeline[0].at: 61 s is after the end of the run (duration 60 s)']);
    doc['timeline'][0].at = 60;
    expect(loadScenario(JSON.stringify(doc), 'x.json', { faultIds: FAULTS }).ok).toBe(true);
  });

  it('checks timeline targets: form, and existence for nodes, deployments and services', () => {
    const doc = placed();
    doc['timeline'].push(
      { at: 1, fault: 'drain-node', target: 'node/node-zz' },
      { at: 2, fault: 'delete-pod', target: 'deployment/wb' },
      { at: 3, fault: 'delete-pod', target: 'pod/web-7' },
    );
    expect(errorsFor(doc)).toEqual(['timeline[1].target: unknown node "node-zz" (did you mean "node-a"?)', 'timeline[2].target: unknown deployment "wb" (did you mean "web"?)']);
    const bad = placed();
    bad['timeline'][0].target = 'web-0';
    expect(errorsFor(bad)).toEqual(['timeline[0].target: must be kind/name with kind node, pod, deployment, service, router, lb, dns, external or zookeeper (like pod/web-0)']);
  });

  it('checks each timeline entry against its fault in the catalog: target kind and params, by field', () => {
    const doc = placed();
    doc['timeline'].push(
      { at: 1, fault: 'scale-deployment', target: 'deployment/web', params: { replicas: 'many' } },
      { at: 2, fault: 'set-rp-filter', target: 'pod/web-0', params: { mode: 3 } },
      { at: 3, fault: 'change-ecmp-hash', target: 'node/node-a', params: { mode: 'random', seed: 1 } },
      { at: 4, fault: 'scale-deployment', target: 'deployment/web', params: { replicas: 4 } },
    );
    expect(errorsFor(doc, { faultIds: FAULT_IDS, faults: faultCatalog() })).toEqual([
      'timeline[1].params.replicas: expected a number',
      'timeline[2].target: fault "set-rp-filter" applies to node, not pod',
      'timeline[2].params.mode: must be at most 2',
      'timeline[3].target: fault "change-ecmp-hash" applies to router, not node',
      'timeline[3].params.mode: expected one of "keep", "modulo", "hash-threshold", "resilient"',
    ]);
  });

  it('checks timeline targets of the edge and DNS kinds', () => {
    const doc = placed();
    doc['timeline'].push(
      { at: 1, fault: 'change-ecmp-hash', target: 'router/tor', params: { mode: 'resilient' } },
      { at: 2, fault: 'join-node', target: 'lb/bigip' },
      { at: 3, fault: 'break-upstream', target: 'dns/cluster' },
      { at: 4, fault: 'slow-zookeeper', target: 'zookeeper/ensemble' },
    );
    expect(errorsFor(doc, { faultIds: FAULT_IDS })).toEqual([
      'timeline[1].target: unknown router "tor"',
      'timeline[2].target: unknown lb "bigip"',
      'timeline[3].target: the scenario has no topology.dns to target',
      'timeline[4].target: the scenario has no topology.zookeeper to target',
    ]);
  });

  it('checks expectation windows', () => {
    const doc = placed();
    doc['expect'][0].window = [20, 20];
    doc['expect'].push({ metric: 'requests.failed', agg: 'peak', window: [10, 90], op: '<', value: 5 });
    expect(errorsFor(doc)).toEqual(['expect[0].window: window start 20 must be before its end 20', 'expect[1].window: window ends at 90 s, after the end of the run (duration 60 s)']);
  });

  it('accepts labelled metric names and rejects malformed ones', () => {
    const doc = placed();
    doc['expect'][0].metric = 'drops{reason=rp_filter_martian}';
    expect(loadScenario(JSON.stringify(doc), 'x.json').ok).toBe(true);
    doc['expect'][0].metric = 'Requests Failed';
    expect(errorsFor(doc)[0]).toMatch(/^expect\[0\]\.metric: must be a dotted lower-case metric name/);
  });

  it('names an expectation tied to a fix the scenario does not have', () => {
    const doc = placed();
    doc['fixes']['wait-longer'] = { description: 'waits', set: { 'params.client.reconnectMs': 600 } };
    doc['expect'][0].fixes = ['wait-longer'];
    expect(loadScenario(JSON.stringify(doc), 'x.json').ok).toBe(true);
    doc['expect'][0].fixes = ['wait-longer', 'wait-longr'];
    expect(errorsFor(doc)).toEqual(['expect[0].fixes[1]: no fix named "wait-longr" (did you mean "wait-longer"?)']);
  });

  it('validates each fix by applying it', () => {
    const doc = placed();
    doc['fixes']['bad-key'] = { description: 'typo', set: { 'params.client.reconectMs': 5 } };
    doc['fixes']['bad-type'] = { description: 'wrong type', set: { 'params.tcp.synRetries': 'many' } };
    doc['fixes']['too-few'] = { description: 'breaks a cross-field rule', set: { 'topology.deployments.web.replicas': 1 } };
    doc['fixes']['bad-path'] = { description: 'malformed path', set: { 'params..client': 1 } };
    doc['fixes']['empty'] = { description: 'nothing', set: {} };
    expect(errorsFor(doc)).toEqual(['fixes.bad-path.set["params..client"]: bad path: empty key at character 8 of "params..client"', 'fixes.empty.set: must set at least one value']);
    delete doc['fixes']['bad-path'];
    delete doc['fixes']['empty'];
    expect(errorsFor(doc)).toEqual([
      'fixes.bad-key.set["params.client.reconectMs"]: unknown key (did you mean "reconnectMs"?)',
      'fixes.bad-type.set["params.tcp.synRetries"]: expected number, got string',
      'fixes.too-few.set["topology.deployments.web.replicas"]: 2 pods are placed explicitly but replicas is 1',
    ]);
  });

  it('does not let a fix change the fixes', () => {
    const doc = placed();
    doc['fixes']['self'] = { description: 'recursive', set: { 'fixes.self.description': 'x' } };
    expect(errorsFor(doc)).toEqual(['fixes.self.set["fixes.self.description"]: a fix cannot change fixes']);
  });

  it('runs cross-field checks through the bare schema too', () => {
    const doc = placed();
    doc['topology'].deployments.web.replicas = 1;
    const result = scenarioSchema.safeParse(doc);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['topology.deployments.web.replicas']);
  });
});

describe('suggestions', () => {
  it('computes edit distances', () => {
    expect(levenshtein('', '')).toBe(0);
    expect(levenshtein('abc', '')).toBe(3);
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(levenshtein('delet-pod', 'delete-pod')).toBe(1);
    expect(levenshtein('flaw', 'lawn')).toBe(2);
  });

  it('suggests the closest candidate, ignoring case', () => {
    expect(suggest('podcidr', ['name', 'ip', 'podCidr', 'pods'])).toBe('podCidr');
    expect(suggest('reconectMs', ['requestsPerSecond', 'reconnectMs'])).toBe('reconnectMs');
    expect(suggest('clinet', ['client', 'server'])).toBe('client');
  });

  it('stays quiet when nothing is close', () => {
    expect(suggest('=', ['<', '=='])).toBe('==');
    expect(suggest('x', ['y'])).toBeUndefined();
    expect(suggest('zzz', ['delete-pod', 'drain-node'])).toBeUndefined();
    expect(suggest('ab', ['ip'])).toBeUndefined();
    expect(didYouMean('timeout', ['seed', 'duration'])).toBe('');
  });

  it('breaks ties by candidate order', () => {
    expect(suggest('cat', ['bat', 'hat'])).toBe('bat');
    expect(suggest('cat', ['hat', 'bat'])).toBe('hat');
  });

  it('formats the hint', () => {
    expect(didYouMean('delet-pod', ['delete-pod'])).toBe(' (did you mean "delete-pod"?)');
  });
});

describe('bounds on integers', () => {
  it("reports the field's own bound for huge integers, once", () => {
    const doc = placed();
    doc['topology'].deployments.web.replicas = 1e300;
    doc['params'].tcp = { synRetries: -1e300 };
    expect(errorsFor(doc)).toEqual(['topology.deployments.web.replicas: must be <= 20000, got 1e+300', 'params.tcp.synRetries: must be >= 1, got -1e+300']);
  });
});
