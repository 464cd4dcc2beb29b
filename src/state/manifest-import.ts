import { Document, isNode, LineCounter, parseAllDocuments } from 'yaml';
import { MAX_POD_RATE, MIN_RATE, type ScenarioInput, SCENARIO_VERSION, withoutBom } from '../sim';
import { serviceReferences, type NamedService } from './manifest-calls';

export interface ManifestImport {
  /** A complete scenario file (YAML text) that loads and plays. */
  scenarioText: string;
  /** One line per call from a workload to a Service read from the manifests, with where it was read. */
  calls: string[];
  /** One line per thing that was not understood or not modelled, naming it. */
  notUnderstood: string[];
  /** What the import added so the topology plays. */
  added: string[];
}

type Obj = Record<string, unknown>;
type DeploymentIn = ScenarioInput['topology']['deployments'][string];
/** Every imported workload runs the HTTP server model. */
type ServerIn = Extract<DeploymentIn, { app: 'http-server' }>;
type ProbeIn = NonNullable<ServerIn['readinessProbe']>;
type ProbeKind = 'readiness' | 'liveness';
type ServiceIn = NonNullable<ScenarioInput['topology']['services']>[string];
type NodeIn = ScenarioInput['topology']['nodes'][number];
type ChartIn = NonNullable<ScenarioInput['charts']>[number];
type IntOrPercent = number | `${number}%`;

/** One Kubernetes object from the text, with where it came from. */
interface Source {
  order: number;
  kind: string;
  name: string;
  // The name in the manifest, before a clash across namespaces renamed it.
  original: string;
  namespace: string;
  body: Obj;
  /** "document 2, line 14": where a field of the object is in the text. */
  placeOf: (path: (string | number)[]) => string;
}

interface ContainerPort {
  name?: string;
  port: number;
}

/** A Deployment or DaemonSet on its way to becoming a scenario deployment. */
interface Workload {
  src: Source;
  name: string;
  labels: Record<string, string>;
  ports: ContainerPort[];
  // Which Service decided the listening port, once one has.
  portSetBy?: string;
  hostname?: string;
  // The first container's probes as written, read once its ports and the listening port are settled.
  probes: Partial<Record<ProbeKind, Obj>>;
  // The first container's environment, where it is told the addresses of the Services it calls.
  config: ConfigValue[];
  dep: ServerIn;
  // A workload no Service selects that calls one: it only sends, so it runs as an http-client of that Service.
  callsAsClient?: string;
}

/** A value a container is given: a literal, or a ConfigMap's entries, read once every object is in. */
interface ConfigValue {
  /** What gave it: "env CART_ADDR", "envFrom ConfigMap shop". */
  via: string;
  place: string;
  value?: string;
  configMap?: { name: string; key?: string };
}

interface Note {
  order: number;
  text: string;
}

// Model choice: the default node count, enough to show spreading without crowding the picture.
const DEFAULT_NODES = 3;
// Node IPs are 10.0.0.11 upwards within one /24, and each node's podCidr is 10.244.N.0/24.
const MAX_NODES = 240;
// kubelet's --max-pods defaults to 110 per node.
const KUBELET_MAX_PODS = 110;
// The topology schema's bound on replica counts.
const MAX_REPLICAS = 10_000;
// Model choice: the port an http-server listens on when the container declares none (the schema's default).
const DEFAULT_PORT = 8080;
// Model choice: a request rate per pod for autoscalers whose target Netmortem cannot model.
const FALLBACK_RPS = 50;
// The generated clients' request rate, params.client's default, written out so it is plain where to change it.
const DEFAULT_ENTRY_RATE = 10;
const DNS1123_LABEL = /^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^(?=.{1,63}$)[a-z]([-a-z0-9]*[a-z0-9])?$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

// Container fields that say which program runs; every container becomes Netmortem's HTTP server, so they change nothing.
const CONTAINER_IDENTITY = ['name', 'image', 'imagePullPolicy', 'command', 'args', 'workingDir', 'terminationMessagePath', 'terminationMessagePolicy', 'stdin', 'stdinOnce', 'tty'];
// Pod fields with no bearing on the network path.
const POD_HARMLESS = [
  'restartPolicy',
  'serviceAccountName',
  'serviceAccount',
  'automountServiceAccountToken',
  'imagePullSecrets',
  'schedulerName',
  'enableServiceLinks',
  'priorityClassName',
];
const PROBE_HANDLERS = ['httpGet', 'tcpSocket', 'exec', 'grpc'];
// A probe's timing fields with Kubernetes' lower bound for each (docs/sources/kubernetes.md#container-probes).
const PROBE_TIMING = [
  ['initialDelaySeconds', 0],
  ['periodSeconds', 1],
  ['timeoutSeconds', 1],
  ['failureThreshold', 1],
  ['successThreshold', 1],
] as const;
// The scenario schema's bound on a probe's seconds and counts (docs/limits.md#periods).
const MAX_PROBE_VALUE = 3600;
// What the model does instead of a probe action's fields it leaves out.
const PROBE_ACTION_UNMODELLED: Record<string, string> = {
  path: 'the server model answers every path alike',
  httpHeaders: 'the server model answers whatever headers come',
  host: "the probe goes to the pod's address",
  scheme: 'the probe is plain HTTP',
};
// Service fields at their Kubernetes defaults, which are what the model does anyway.
const SERVICE_DEFAULTS: Record<string, unknown> = { sessionAffinity: 'None', internalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true };

export interface ImportOptions {
  /** Nodes to start from; more are added when the pods do not fit. */
  nodes?: number;
  /** Requests per second each generated client sends into an entry point. */
  requestsPerSecond?: number;
}

export const IMPORT_DEFAULTS = { nodes: DEFAULT_NODES, requestsPerSecond: DEFAULT_ENTRY_RATE, maxNodes: MAX_NODES, minRate: MIN_RATE, maxRate: MAX_POD_RATE } as const;

/** Why an import option is out of range, starting with its name (`options.nodes: …`), or null when it is fine. */
export function importOptionProblem(name: keyof ImportOptions, value: number): string | null {
  if (name === 'nodes') return Number.isInteger(value) && value >= 1 && value <= MAX_NODES ? null : `options.nodes: must be a whole number from 1 to ${MAX_NODES}`;
  // The bounds are params.client.requestsPerSecond's own, so the scenario the import writes loads.
  return Number.isFinite(value) && value >= MIN_RATE && value <= MAX_POD_RATE
    ? null
    : `options.requestsPerSecond: must be a number from ${MIN_RATE} to ${MAX_POD_RATE.toLocaleString('en-US')}`;
}

/**
 * Turns pasted Kubernetes manifests (multi-document YAML, or a `kind: List`) into a Netmortem scenario that plays.
 * Throws an Error starting with the document's place when the text is not YAML or holds no object with a `kind`, or
 * with the option's name when an option is out of range.
 */
export function importManifests(text: string, options: ImportOptions = {}): ManifestImport {
  const requestedNodes = options.nodes ?? DEFAULT_NODES;
  const rate = options.requestsPerSecond ?? DEFAULT_ENTRY_RATE;
  const problem = importOptionProblem('nodes', requestedNodes) ?? importOptionProblem('requestsPerSecond', rate);
  if (problem !== null) throw new Error(problem);
  const { sources: raw, notes } = readObjects(text);
  const sources = dedupe(raw, notes);
  const taken = new Set<string>();
  const serviceNames = new Set<string>();
  const workloads: Workload[] = [];
  const services = new Map<string, ServiceIn>();
  const named: NamedService[] = [];
  const imported: string[] = [];
  const note = (src: Source, message: string) => notes.push({ order: src.order, text: `${src.kind} ${src.name}: ${message}` });

  for (const src of sources) {
    if (src.kind === 'Deployment' || src.kind === 'DaemonSet') {
      const name = claimName(src, taken, false, note);
      workloads.push(readWorkload(src, name, note));
      imported.push(`${src.kind} ${name}`);
    }
  }
  const used = new IpClaims();
  for (const src of sources) {
    if (src.kind !== 'Service') continue;
    used.reserve(record(src.body['spec'])['clusterIP']);
    used.reserve(record(src.body['spec'])['loadBalancerIP']);
  }
  for (const src of sources) {
    if (src.kind !== 'Service') continue;
    const service = readService(src, workloads, used, note);
    if (!service) continue;
    const name = claimName(src, serviceNames, true, note);
    services.set(name, service);
    named.push({ name, original: src.original, namespace: src.namespace, ports: servicePorts(src) });
    imported.push(`Service ${name} (${service.type ?? 'ClusterIP'})`);
  }
  const ingressed = new Set<string>();
  for (const src of sources) {
    if (src.kind === 'HorizontalPodAutoscaler') {
      if (applyHpa(src, workloads, note)) imported.push(`HorizontalPodAutoscaler ${src.name}`);
    } else if (src.kind === 'Ingress') {
      for (const backend of ingressBackends(src.body)) {
        const service = named.find((s) => s.original === backend && s.namespace === src.namespace);
        if (service) ingressed.add(service.name);
        else note(src, `backend Service ${backend} is not an imported Service; no load is sent for it`);
      }
      note(src, 'the ingress controller is not modelled: the load from outside goes to its backend Services directly');
    } else if (src.kind !== 'ConfigMap' && !['Deployment', 'DaemonSet', 'Service'].includes(src.kind)) {
      note(src, 'not modelled');
    }
  }
  const configMaps = new Map(sources.filter((s) => s.kind === 'ConfigMap').map((s) => [`${s.namespace}/${s.original}`, s]));
  const read = new Set<Source>();
  const calls = inferCalls(workloads, named, services, (w) => configValues(w, configMaps, read, note), note);
  for (const map of configMaps.values()) if (!read.has(map)) note(map, 'not modelled: no imported workload takes it in its environment');

  const added: string[] = [];
  const deployments: Record<string, DeploymentIn> = {};
  for (const w of workloads) deployments[w.name] = w.dep;
  if (workloads.length === 0) {
    const name = uniqueName('web', taken);
    const dep: ServerIn = { app: 'http-server', replicas: 2, port: DEFAULT_PORT };
    deployments[name] = dep;
    added.push(`${name}: an http-server Deployment (2 replicas), as the manifests hold no Deployment or DaemonSet`);
    workloads.push({ src: placeholderSource(name), name, labels: {}, ports: [], probes: {}, config: [], dep });
  }
  if (services.size === 0) {
    for (const w of workloads) {
      const name = uniqueName(sanitise(w.name, true), serviceNames);
      services.set(name, { selector: w.name, clusterIp: used.allocate(), port: 80 });
      added.push(`Service ${name}: a ClusterIP Service on port 80 selecting ${w.name}, as the manifests hold none that could be imported`);
    }
  }
  // Load enters where it comes from outside (a LoadBalancer or NodePort Service, an Ingress's backend) and where no
  // workload of the manifests calls; the calls carry it on from there.
  const called = new Set(calls.map((c) => c.to));
  const clients: string[] = [];
  for (const [service, spec] of services) {
    const why =
      spec.type !== undefined && spec.type !== 'ClusterIP'
        ? `a ${spec.type} Service`
        : ingressed.has(service)
          ? 'an Ingress backend'
          : called.has(service)
            ? null
            : 'nothing in the manifests calls it';
    if (why === null) continue;
    const name = uniqueName(`${service.slice(0, 56).replace(/-+$/, '')}-client`, taken);
    deployments[name] = { app: 'http-client', replicas: 1, target: service };
    clients.push(name);
    added.push(`${name}: an http-client sending requests to Service ${service} (port ${spec.port ?? 80}), as ${why}`);
  }

  const nodeCount = countNodes(requestedNodes, workloads, clients.length, notes);
  const nodes = makeNodes(nodeCount);
  added.unshift(nodesLine(nodes, requestedNodes));
  for (const w of workloads) {
    finishWorkload(w, nodes, note);
    deployments[w.name] = w.callsAsClient === undefined ? ordered(w.dep, DEPLOYMENT_KEYS) : ordered(asClient(w, w.callsAsClient, note), DEPLOYMENT_KEYS);
  }

  const notUnderstood = notes.sort((a, b) => a.order - b.order).map((n) => n.text);
  const scenario: ScenarioInput = {
    version: SCENARIO_VERSION,
    id: 'imported',
    title: 'Imported from Kubernetes manifests',
    description: describe(imported, calls.length, added, notUnderstood),
    seed: 1,
    duration: 60,
    topology: { nodes, deployments, services: Object.fromEntries([...services].map(([name, s]) => [name, ordered(s, SERVICE_KEYS)])) },
    params: { client: { requestsPerSecond: rate } },
    charts: chartsFor(workloads),
  };
  const doc = new Document(scenario);
  doc.commentBefore = ' Imported from Kubernetes manifests by Netmortem; every container runs its HTTP server model.';
  const rateNode = doc.getIn(['params', 'client', 'requestsPerSecond'], true);
  if (isNode(rateNode)) rateNode.commentBefore = ' Requests per second each client sends into an entry point.';
  // Each call says where it was read, next to it: deleting the line removes the call, adding a Service adds one.
  for (const c of calls) {
    const w = workloads.find((x) => x.name === c.from)!;
    const at = w.callsAsClient === undefined ? ['topology', 'deployments', c.from, 'calls', w.dep.calls!.indexOf(c.to)] : ['topology', 'deployments', c.from, 'target'];
    const node = doc.getIn(at, true);
    if (isNode(node) && (w.callsAsClient === undefined || w.callsAsClient === c.to)) node.comment = ` ${c.via} (${c.place})`;
  }
  return { scenarioText: doc.toString({ lineWidth: 0 }), calls: calls.map(callLine), notUnderstood, added };
}

/** Requests answered and failed, and the autoscalers' pod counts when there are any. */
function chartsFor(workloads: Workload[]): ChartIn[] {
  const autoscaled = workloads.filter((w) => w.dep.autoscale !== undefined).slice(0, 6);
  const charts: ChartIn[] = [
    {
      title: 'Requests per second',
      kind: 'rate',
      unit: 'requests / s',
      series: [
        { metric: 'requests.ok', label: 'ok' },
        { metric: 'requests.failed', label: 'failed' },
      ],
    },
  ];
  if (autoscaled.length > 0) {
    charts.push({
      title: 'Autoscaled pods',
      kind: 'level',
      unit: 'pods',
      series: autoscaled.map((w) => ({ metric: `hpa.desired_replicas{deployment=${w.name}}`, label: w.name.slice(0, 32) })),
    });
  }
  return charts;
}

function readObjects(text: string): { sources: Source[]; notes: Note[] } {
  const lines = new LineCounter();
  const source = withoutBom(text);
  const docs = parseAllDocuments(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const lineOf = (offset: number) => lines.linePos(offset).line;
  const sources: Source[] = [];
  const notes: Note[] = [];
  let firstPlace: string | undefined;
  docs.forEach((doc, i) => {
    const error = doc.errors[0];
    if (error) {
      const { line, col } = lines.linePos(error.pos[0]);
      throw new Error(`document ${i + 1}, line ${line}: not valid YAML (column ${col}): ${firstLine(error.message)}`);
    }
    const place = `document ${i + 1}, line ${lineOf(doc.contents?.range[0] ?? doc.range[0])}`;
    let value: unknown;
    try {
      // A small alias budget keeps a hostile paste from expanding into gigabytes.
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      throw new Error(`${place}: ${firstLine((e as Error).message)}`);
    }
    if (value === null || value === undefined) return;
    firstPlace ??= place;
    const add = (item: unknown, where: string, prefix: (string | number)[]) => {
      if (!isRecord(item) || typeof item['kind'] !== 'string' || item['kind'] === '') {
        notes.push({ order: -1, text: `${where}: no "kind"; skipped` });
        return;
      }
      const src = toSource(item, sources.length, (path) => itemPlace([...prefix, ...path], where));
      sources.push(src);
      if (str(record(item['metadata'])['name']) === undefined) notes.push({ order: src.order, text: `${src.kind} at ${where}: no metadata.name; named ${src.name}` });
    };
    const itemPlace = (path: (string | number)[], fallback: string) => {
      const node = doc.getIn(path, true);
      return isNode(node) && node.range ? `document ${i + 1}, line ${lineOf(node.range[0])}` : fallback;
    };
    if (Array.isArray(value)) value.forEach((item, j) => add(item, itemPlace([j], `${place}, item ${j + 1}`), [j]));
    else if (isRecord(value) && typeof value['kind'] === 'string' && value['kind'].endsWith('List') && Array.isArray(value['items'])) {
      value['items'].forEach((item, j) => add(item, itemPlace(['items', j], `${place}, items[${j}]`), ['items', j]));
    } else add(value, place, []);
  });
  if (sources.length === 0) {
    throw new Error(`${firstPlace ?? 'document 1, line 1'}: no Kubernetes object found (nothing with a "kind", like kind: Deployment)`);
  }
  return { sources, notes };
}

function toSource(body: Obj, order: number, placeOf: Source['placeOf']): Source {
  const metadata = record(body['metadata']);
  const kind = body['kind'] as string;
  const name = str(metadata['name']) ?? str(metadata['generateName']) ?? `${kind.toLowerCase()}-${order + 1}`;
  // Objects without a namespace land in "default", as kubectl apply puts them.
  return { order, kind, name, original: name, namespace: str(metadata['namespace']) ?? 'default', body, placeOf };
}

/** Drops all but the last of objects that share kind, namespace and name, and renames same-named objects of other namespaces. */
function dedupe(sources: Source[], notes: Note[]): Source[] {
  const last = new Map<string, Source>();
  for (const src of sources) last.set(`${src.kind}/${src.namespace}/${src.name}`, src);
  const kept = sources.filter((src) => {
    if (last.get(`${src.kind}/${src.namespace}/${src.name}`) === src) return true;
    notes.push({ order: src.order, text: `${src.kind} ${src.name}: defined again in namespace ${src.namespace} later on; the last definition is used, as kubectl apply would leave it` });
    return false;
  });
  const namespaces = new Map<string, string>();
  for (const src of kept) {
    const key = `${src.kind}/${src.name}`;
    const first = namespaces.get(key);
    if (first === undefined) namespaces.set(key, src.namespace);
    else if (first !== src.namespace) {
      const renamed = `${src.name}-${src.namespace}`;
      notes.push({ order: src.order, text: `${src.kind} ${src.name}: also in namespace ${first}; namespaces are not modelled, so the one in ${src.namespace} is imported as ${renamed}` });
      src.name = renamed;
    }
  }
  return kept;
}

/** A name the scenario accepts (a DNS-1123 label, or DNS-1035 for a Service), unique among `taken`. */
function claimName(src: Source, taken: Set<string>, service: boolean, note: (src: Source, message: string) => void): string {
  const valid = (service ? DNS1035_LABEL : DNS1123_LABEL).test(src.name);
  const base = valid ? src.name : sanitise(src.name, service);
  const name = uniqueName(base, taken);
  if (!valid) note(src, `name is not a ${service ? 'DNS-1035' : 'DNS-1123'} label, as the scenario requires; imported as ${name}`);
  else if (name !== base) note(src, `name is already taken by another imported object; imported as ${name}`);
  return name;
}

function sanitise(name: string, service: boolean): string {
  let s = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (s === '') s = 'unnamed';
  if (service && !/^[a-z]/.test(s)) s = `svc-${s}`;
  return s.slice(0, 63).replace(/-+$/, '');
}

function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base.slice(0, 60 - String(n).length)}-${n}`;
  taken.add(name);
  return name;
}

function placeholderSource(name: string): Source {
  return { order: -1, kind: 'Deployment', name, original: name, namespace: 'default', body: {}, placeOf: () => 'added by the import' };
}

function readWorkload(src: Source, name: string, note: (src: Source, message: string) => void): Workload {
  const daemonSet = src.kind === 'DaemonSet';
  const spec = record(src.body['spec']);
  const template = record(spec['template']);
  const pod = record(template['spec']);
  const dep: ServerIn = { app: 'http-server' };
  if (daemonSet) dep.kind = 'DaemonSet';
  else {
    // A Deployment's spec.replicas defaults to 1.
    const replicas = spec['replicas'] === undefined ? 1 : int(spec['replicas']);
    if (replicas === undefined || replicas < 0) note(src, `spec.replicas ${show(spec['replicas'])} is not a replica count; 1 used`);
    else if (replicas > MAX_REPLICAS) note(src, `spec.replicas ${replicas} is more than Netmortem runs; ${MAX_REPLICAS} used`);
    dep.replicas = replicas === undefined || replicas < 0 ? 1 : Math.min(replicas, MAX_REPLICAS);
  }
  const w: Workload = { src, name, labels: stringRecord(record(template['metadata'])['labels']), ports: [], probes: {}, config: [], dep };
  if (Object.keys(w.labels).length === 0) note(src, 'spec.template.metadata.labels is empty, so no Service of the manifests can select it');

  for (const key of Object.keys(spec)) {
    if (['replicas', 'selector', 'template', 'revisionHistoryLimit', 'progressDeadlineSeconds'].includes(key) || isEmpty(spec[key])) continue;
    if (key === (daemonSet ? 'updateStrategy' : 'strategy')) readStrategy(src, w, record(spec[key]), note);
    else note(src, `spec.${key} ignored`);
  }
  readPodSpec(src, w, pod, note);
  return w;
}

function readStrategy(src: Source, w: Workload, strategy: Obj, note: (src: Source, message: string) => void): void {
  const field = w.dep.kind === 'DaemonSet' ? 'spec.updateStrategy' : 'spec.strategy';
  const type = str(strategy['type']);
  if (type === 'Recreate') {
    // Recreate stops every old pod before starting new ones: no surge, all unavailable.
    w.dep.maxSurge = 0;
    w.dep.maxUnavailable = '100%';
    return;
  }
  if (type !== undefined && type !== 'RollingUpdate') {
    note(src, `${field}.type ${type} not modelled; rolling updates assumed`);
    return;
  }
  const rolling = record(strategy['rollingUpdate']);
  for (const key of ['maxSurge', 'maxUnavailable'] as const) {
    if (rolling[key] === undefined) continue;
    const value = intOrPercent(rolling[key]);
    if (value === undefined) note(src, `${field}.rollingUpdate.${key} ${show(rolling[key])} is not a count or a percentage; the default used`);
    else w.dep[key] = value;
  }
}

function readPodSpec(src: Source, w: Workload, pod: Obj, note: (src: Source, message: string) => void): void {
  const path = 'spec.template.spec';
  // terminationGracePeriodSeconds defaults to 30 s.
  const grace = pod['terminationGracePeriodSeconds'] === undefined ? 30 : num(pod['terminationGracePeriodSeconds']);
  if (grace === undefined || grace < 0) note(src, `${path}.terminationGracePeriodSeconds ${show(pod['terminationGracePeriodSeconds'])} ignored; 30 used`);
  w.dep.terminationGracePeriodSeconds = grace === undefined || grace < 0 ? 30 : Math.min(grace, 3600);
  for (const key of Object.keys(pod)) {
    if (['containers', 'terminationGracePeriodSeconds', ...POD_HARMLESS].includes(key) || isEmpty(pod[key])) continue;
    if (key === 'nodeSelector') readNodeSelector(src, w, record(pod[key]), note);
    // ClusterFirst is the default DNS policy; requests go to Service IPs, so DNS is not on their path.
    else if (key === 'dnsPolicy' && pod[key] === 'ClusterFirst') continue;
    else note(src, `${path}.${key} ignored`);
  }
  const containers = Array.isArray(pod['containers']) ? pod['containers'] : [];
  if (containers.length === 0) note(src, `${path}.containers is empty; an HTTP server on port ${DEFAULT_PORT} is modelled`);
  containers.forEach((c, i) => {
    if (i === 0) readContainer(src, w, record(c), note);
    else note(src, `${path}.containers[${i}]${containerName(c)} ignored: only the first container is modelled`);
  });
  w.dep.port = w.ports[0]?.port ?? DEFAULT_PORT;
}

function readNodeSelector(src: Source, w: Workload, selector: Obj, note: (src: Source, message: string) => void): void {
  for (const [key, value] of Object.entries(selector)) {
    if (key === 'kubernetes.io/hostname' && typeof value === 'string') w.hostname = value;
    else note(src, `spec.template.spec.nodeSelector ${key}=${show(value)} ignored: the imported nodes carry no labels`);
  }
}

function readContainer(src: Source, w: Workload, c: Obj, note: (src: Source, message: string) => void): void {
  const path = 'spec.template.spec.containers[0]';
  for (const key of Object.keys(c)) {
    if (CONTAINER_IDENTITY.includes(key) || isEmpty(c[key])) continue;
    if (key === 'ports') readPorts(src, w, c[key], note);
    else if (key === 'resources') readResources(src, w, record(c[key]), note);
    else if (key === 'lifecycle') readLifecycle(src, w, record(c[key]), note);
    // No readySeconds: the probe gates readiness itself, its delay counted from the container's start, which the
    // manifest cannot tell (params.kube.podStartSeconds stands in).
    else if (key === 'readinessProbe') w.probes.readiness = record(c[key]);
    else if (key === 'livenessProbe') w.probes.liveness = record(c[key]);
    else if (key === 'startupProbe') note(src, `${path}.startupProbe not modelled; the liveness and readiness probes start with the container, as if it had passed at once`);
    else if (key === 'env') readEnv(src, w, c[key]);
    else if (key === 'envFrom') readEnvFrom(src, w, c[key]);
    else note(src, `${path}.${key} ignored`);
  }
}

const CONTAINER_PATH = ['spec', 'template', 'spec', 'containers', 0];

/** Literal values and ConfigMap keys of the environment; secrets and the downward API name no Service the import can read. */
function readEnv(src: Source, w: Workload, env: unknown): void {
  if (!Array.isArray(env)) return;
  env.forEach((entry, i) => {
    const e = record(entry);
    const name = str(e['name']) ?? `[${i}]`;
    const value = e['value'];
    if (typeof value === 'string' || typeof value === 'number') {
      w.config.push({ via: `env ${name}`, place: src.placeOf([...CONTAINER_PATH, 'env', i, 'value']), value: String(value) });
      return;
    }
    const ref = record(record(e['valueFrom'])['configMapKeyRef']);
    const map = str(ref['name']);
    const key = str(ref['key']);
    if (map !== undefined && key !== undefined) w.config.push({ via: `env ${name}`, place: src.placeOf([...CONTAINER_PATH, 'env', i]), configMap: { name: map, key } });
  });
}

function readEnvFrom(src: Source, w: Workload, envFrom: unknown): void {
  if (!Array.isArray(envFrom)) return;
  envFrom.forEach((entry, i) => {
    const map = str(record(record(entry)['configMapRef'])['name']);
    if (map !== undefined) w.config.push({ via: 'envFrom', place: src.placeOf([...CONTAINER_PATH, 'envFrom', i]), configMap: { name: map } });
  });
}

function readPorts(src: Source, w: Workload, ports: unknown, note: (src: Source, message: string) => void): void {
  if (!Array.isArray(ports)) return;
  ports.forEach((p, i) => {
    const entry = record(p);
    const port = int(entry['containerPort']);
    if (port === undefined || port < 1 || port > 65535) {
      note(src, `spec.template.spec.containers[0].ports[${i}].containerPort ${show(entry['containerPort'])} is not a port; skipped`);
      return;
    }
    const protocol = str(entry['protocol']);
    if (protocol !== undefined && protocol !== 'TCP') note(src, `spec.template.spec.containers[0].ports[${i}] protocol ${protocol} not modelled; served as TCP`);
    if (entry['hostPort'] !== undefined) note(src, `spec.template.spec.containers[0].ports[${i}].hostPort ignored`);
    const name = str(entry['name']);
    w.ports.push(name === undefined ? { port } : { name, port });
  });
}

function readResources(src: Source, w: Workload, resources: Obj, note: (src: Source, message: string) => void): void {
  const path = 'spec.template.spec.containers[0].resources';
  for (const key of Object.keys(resources)) {
    if (key !== 'limits') {
      note(src, `${path}.${key} ignored`);
      continue;
    }
    for (const [resource, value] of Object.entries(record(resources['limits']))) {
      if (resource !== 'cpu') {
        note(src, `${path}.limits.${resource} ignored`);
        continue;
      }
      const cores = quantity(value);
      if (cores === undefined || cores <= 0 || cores > 512) note(src, `${path}.limits.cpu ${show(value)} is not a CPU limit Netmortem can model; ignored`);
      else {
        w.dep.cpuLimit = cores;
        note(src, `${path}.limits.cpu kept as cpuLimit ${cores}, but it throttles nothing until cpuPerRequestMs gives requests a CPU cost`);
      }
    }
  }
}

function readLifecycle(src: Source, w: Workload, lifecycle: Obj, note: (src: Source, message: string) => void): void {
  const path = 'spec.template.spec.containers[0].lifecycle';
  for (const key of Object.keys(lifecycle)) {
    if (key !== 'preStop') {
      note(src, `${path}.${key} ignored`);
      continue;
    }
    const seconds = preStopSleep(record(lifecycle['preStop']));
    if (seconds === undefined) note(src, `${path}.preStop ignored: only a hook that sleeps is modelled`);
    else w.dep.preStopSeconds = Math.min(seconds, 3600);
  }
}

/** The seconds a preStop hook sleeps: `sleep.seconds`, or an exec of `sleep N` alone, directly or through a shell. */
function preStopSleep(hook: Obj): number | undefined {
  const sleep = record(hook['sleep']);
  if (sleep['seconds'] !== undefined) {
    const seconds = num(sleep['seconds']);
    return seconds !== undefined && seconds >= 0 ? seconds : undefined;
  }
  const command = record(hook['exec'])['command'];
  if (!Array.isArray(command) || !command.every((part) => typeof part === 'string' || typeof part === 'number')) return undefined;
  const parts = command.map(String);
  const shell = parts.length === 3 && /(^|\/)(ba|da|a)?sh$/.test(parts[0]!) && parts[1] === '-c' ? parts[2]! : undefined;
  const line = shell ?? parts.join(' ');
  const match = /^\s*(?:\/(?:usr\/)?bin\/)?sleep\s+(\d+(?:\.\d+)?)(s|m)?\s*;?\s*$/.exec(line);
  if (!match) return undefined;
  return Number(match[1]) * (match[2] === 'm' ? 60 : 1);
}

function containerName(c: unknown): string {
  const name = str(record(c)['name']);
  return name === undefined ? '' : ` (${name})`;
}

/** Addresses the scenario already holds, and a cursor for allocating Service IPs. */
class IpClaims {
  private readonly used = new Set<string>();
  // Addresses the manifests ask for, kept out of allocation so a Service read later still gets its own.
  private readonly reserved = new Set<string>();
  // kubeadm's Service CIDR is 10.96.0.0/12; the low addresses go to the kubernetes and kube-dns Services.
  private next = 10;

  /** Whether the address can be given to a Service: free, and off the node network and the pod CIDRs. */
  free(ip: string): boolean {
    return !this.used.has(ip) && !ip.startsWith('10.0.0.') && !ip.startsWith('10.244.');
  }

  claim(ip: string): void {
    this.used.add(ip);
  }

  reserve(ip: unknown): void {
    if (typeof ip === 'string' && IPV4.test(ip)) this.reserved.add(ip);
  }

  allocate(): string {
    for (;;) {
      const n = this.next++;
      const ip = `10.96.${Math.floor(n / 256)}.${n % 256}`;
      // Skip each /24's network and broadcast-looking addresses.
      if (n % 256 === 0 || n % 256 === 255 || this.used.has(ip) || this.reserved.has(ip)) continue;
      this.used.add(ip);
      return ip;
    }
  }
}

function readService(src: Source, workloads: Workload[], ips: IpClaims, note: (src: Source, message: string) => void): ServiceIn | undefined {
  const spec = record(src.body['spec']);
  const type = str(spec['type']) ?? 'ClusterIP';
  if (type === 'ExternalName') {
    note(src, 'type ExternalName (a DNS alias) not modelled; skipped');
    return undefined;
  }
  if (spec['clusterIP'] === 'None') {
    note(src, 'headless (clusterIP: None): it has no virtual IP for clients to send to; not modelled, skipped');
    return undefined;
  }
  if (!['ClusterIP', 'NodePort', 'LoadBalancer'].includes(type)) {
    note(src, `type ${type} not modelled; skipped`);
    return undefined;
  }
  const selector = stringRecord(spec['selector']);
  const pairs = Object.entries(selector);
  if (pairs.length === 0) {
    note(src, 'no spec.selector (its endpoints are kept by hand): not modelled; skipped');
    return undefined;
  }
  const shown = pairs.map(([k, v]) => `${k}=${v}`).join(',');
  const matches = workloads.filter((w) => w.src.namespace === src.namespace && pairs.every(([k, v]) => w.labels[k] === v));
  const backend = matches[0];
  if (backend === undefined) {
    note(src, `selector ${shown} matches no imported Deployment or DaemonSet; skipped`);
    return undefined;
  }
  if (matches.length > 1) {
    note(src, `selector ${shown} matches ${matches.map((w) => `${w.src.kind} ${w.src.name}`).join(' and ')}; the scenario's Service selects only the first, ${backend.name}`);
  }
  const service: ServiceIn = { selector: backend.name, clusterIp: '', port: 80 };
  readServicePorts(src, spec, service, backend, type, note);
  if (type !== 'ClusterIP') service.type = type as 'NodePort' | 'LoadBalancer';

  const clusterIp = spec['clusterIP'];
  if (typeof clusterIp === 'string' && clusterIp !== '' && IPV4.test(clusterIp) && ips.free(clusterIp)) {
    service.clusterIp = clusterIp;
    ips.claim(clusterIp);
  } else {
    service.clusterIp = ips.allocate();
    if (typeof clusterIp === 'string' && clusterIp !== '')
      note(src, `clusterIP ${clusterIp} cannot be used here (not IPv4, taken, or inside the node or pod network); ${service.clusterIp} allocated`);
  }

  const policy = spec['externalTrafficPolicy'];
  // externalTrafficPolicy defaults to Cluster, which the scenario schema also assumes.
  if (policy === 'Local') {
    if (type === 'ClusterIP') note(src, 'externalTrafficPolicy Local ignored: a ClusterIP Service has no external traffic');
    else service.externalTrafficPolicy = 'Local';
  } else if (policy !== 'Cluster' && policy !== undefined) note(src, `externalTrafficPolicy ${show(policy)} is neither Cluster nor Local; Cluster used`);

  const lbIp = spec['loadBalancerIP'];
  if (lbIp !== undefined) {
    if (type !== 'LoadBalancer') note(src, 'loadBalancerIP ignored: only a LoadBalancer Service has one');
    else if (typeof lbIp === 'string' && IPV4.test(lbIp) && ips.free(lbIp)) {
      service.loadBalancerIp = lbIp;
      ips.claim(lbIp);
    } else note(src, `loadBalancerIP ${show(lbIp)} cannot be used here (not IPv4, taken, or inside the node or pod network); ignored`);
  }

  const handled = ['selector', 'ports', 'type', 'clusterIP', 'clusterIPs', 'externalTrafficPolicy', 'loadBalancerIP', 'ipFamilies', 'ipFamilyPolicy'];
  for (const key of Object.keys(spec)) {
    if (handled.includes(key) || isEmpty(spec[key])) continue;
    if (SERVICE_DEFAULTS[key] === spec[key]) continue;
    note(src, `spec.${key}${typeof spec[key] === 'string' ? ` ${spec[key] as string}` : ''} ignored`);
  }
  return service;
}

function readServicePorts(src: Source, spec: Obj, service: ServiceIn, backend: Workload, type: string, note: (src: Source, message: string) => void): void {
  const ports = Array.isArray(spec['ports']) ? spec['ports'] : [];
  if (ports.length === 0) {
    note(src, 'spec.ports is empty; port 80 used');
    return;
  }
  ports.slice(1).forEach((p, i) => note(src, `spec.ports[${i + 1}]${portName(p)} ignored: only the first port is modelled`));
  const first = record(ports[0]);
  const port = int(first['port']);
  if (port === undefined || port < 1 || port > 65535) note(src, `spec.ports[0].port ${show(first['port'])} is not a port; 80 used`);
  else service.port = port;
  const protocol = str(first['protocol']);
  if (protocol !== undefined && protocol !== 'TCP') note(src, `spec.ports[0].protocol ${protocol} not modelled; served as TCP`);

  const nodePort = first['nodePort'];
  if (nodePort !== undefined) {
    const value = int(nodePort);
    if (type === 'ClusterIP') note(src, 'spec.ports[0].nodePort ignored: a ClusterIP Service has no node port');
    // kube-apiserver's --service-node-port-range defaults to 30000-32767.
    else if (value === undefined || value < 30000 || value > 32767) note(src, `spec.ports[0].nodePort ${show(nodePort)} is outside 30000-32767; one is allocated instead`);
    else service.nodePort = value;
  }

  // targetPort defaults to the Service's port.
  const rawTarget = first['targetPort'] ?? service.port;
  const target = resolvePort(rawTarget, backend);
  if (target === undefined) {
    note(src, `spec.ports[0].targetPort ${show(rawTarget)} names no port of ${backend.src.kind} ${backend.src.name}'s first container; traffic goes to its port ${backend.dep.port}`);
    return;
  }
  if (target === backend.dep.port) {
    backend.portSetBy ??= src.name;
    return;
  }
  if (backend.portSetBy !== undefined) {
    note(
      src,
      `spec.ports[0].targetPort ${target} differs from port ${backend.dep.port}, which Service ${backend.portSetBy} already sends ${backend.name} traffic to; the model listens on one port, so ${backend.dep.port} is used`,
    );
    return;
  }
  if (backend.ports.length > 0 && !backend.ports.some((p) => p.port === target)) {
    note(src, `spec.ports[0].targetPort ${target} is not a containerPort of ${backend.src.kind} ${backend.src.name}; the deployment listens on ${target}`);
  }
  backend.dep.port = target;
  backend.portSetBy = src.name;
}

/** A port as Kubernetes resolves one against a container: a number, a string of digits, or the name of one of its ports. */
function resolvePort(value: unknown, backend: Workload): number | undefined {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number === 'number') return Number.isInteger(number) && number >= 1 && number <= 65535 ? number : undefined;
  if (typeof value !== 'string') return undefined;
  return backend.ports.find((p) => p.name === value)?.port;
}

function portName(p: unknown): string {
  const entry = record(p);
  const label = str(entry['name']) ?? (entry['port'] === undefined ? undefined : show(entry['port']));
  return label === undefined ? '' : ` (${label})`;
}

/** A Service's ports as configuration can name them: number, name and appProtocol. */
function servicePorts(src: Source): NamedService['ports'] {
  const ports = record(src.body['spec'])['ports'];
  if (!Array.isArray(ports)) return [];
  return ports.flatMap((p) => {
    const entry = record(p);
    const port = int(entry['port']);
    if (port === undefined) return [];
    const name = str(entry['name']);
    const appProtocol = str(entry['appProtocol']);
    return [{ port, ...(name === undefined ? {} : { name }), ...(appProtocol === undefined ? {} : { appProtocol }) }];
  });
}

/** The Services an Ingress sends to: networking.k8s.io/v1's `service.name` and v1beta1's `serviceName`, default backend included. */
function ingressBackends(body: Obj): string[] {
  const spec = record(body['spec']);
  const nameOf = (backend: unknown): string | undefined => str(record(record(backend)['service'])['name']) ?? str(record(backend)['serviceName']);
  const backends = [nameOf(spec['defaultBackend'] ?? spec['backend'])];
  for (const rule of Array.isArray(spec['rules']) ? spec['rules'] : []) {
    const paths = record(record(rule)['http'])['paths'];
    for (const path of Array.isArray(paths) ? paths : []) backends.push(nameOf(record(path)['backend']));
  }
  return [...new Set(backends.filter((b) => b !== undefined))];
}

/** A call from a workload to a Service, read from a value the workload's container is given. */
interface InferredCall {
  from: string;
  to: string;
  protocol: 'grpc' | 'http';
  port: number;
  via: string;
  place: string;
}

/**
 * The calls the workloads' configuration names (manifest-calls.ts), each once, in the order the manifests give them.
 * A call that would close a loop is left out, as a request would never be answered; a workload that names its own
 * Service is not calling it. The calls are written into each calling deployment.
 */
function inferCalls(
  workloads: Workload[],
  named: NamedService[],
  services: Map<string, ServiceIn>,
  valuesOf: (w: Workload) => { via: string; place: string; value: string }[],
  note: (src: Source, message: string) => void,
): InferredCall[] {
  const calls: InferredCall[] = [];
  const target = (service: string) => services.get(service)!.selector;
  const reaches = (from: string, to: string, seen = new Set<string>()): boolean => {
    if (from === to) return true;
    seen.add(from);
    return calls.some((c) => c.from === from && !seen.has(target(c.to)) && reaches(target(c.to), to, seen));
  };
  for (const w of workloads) {
    for (const given of valuesOf(w)) {
      for (const ref of serviceReferences(given.value, w.src.namespace, named)) {
        const to = ref.service.name;
        const said = `${given.via}=${given.value}`;
        if (ref.unknownPort) note(w.src, `${said} (${given.place}) names Service ${to} on port ${ref.port}, which it does not have; no call read`);
        else if (target(to) === w.name || calls.some((c) => c.from === w.name && c.to === to)) continue;
        else if (reaches(target(to), w.name)) note(w.src, `${said} (${given.place}) names Service ${to}, which already calls ${w.name}: requests would loop, so this call is left out`);
        else calls.push({ from: w.name, to, protocol: ref.protocol, port: ref.port ?? services.get(to)!.port ?? 80, via: said, place: given.place });
      }
    }
  }
  const selected = new Set([...services.values()].map((s) => s.selector));
  for (const w of workloads) {
    const mine = calls.filter((c) => c.from === w.name).map((c) => c.to);
    if (mine.length === 0) continue;
    if (selected.has(w.name)) w.dep.calls = mine;
    else {
      w.callsAsClient = mine[0];
      if (mine.length > 1) note(w.src, `no Service selects it, so it runs as an http-client, which sends to one Service: ${mine[0]}; its calls to ${mine.slice(1).join(', ')} are left out`);
    }
  }
  return calls;
}

/** A workload's configuration values as text, its ConfigMap references looked up (in its namespace) and added to `read`. */
function configValues(w: Workload, configMaps: Map<string, Source>, read: Set<Source>, note: (src: Source, message: string) => void): { via: string; place: string; value: string }[] {
  return w.config.flatMap((c) => {
    if (c.value !== undefined) return [{ via: c.via, place: c.place, value: c.value }];
    const ref = c.configMap!;
    const map = configMaps.get(`${w.src.namespace}/${ref.name}`);
    if (!map) {
      note(w.src, `${c.via} (${c.place}) takes ConfigMap ${ref.name}, which the manifests do not hold; the addresses it may give are unknown`);
      return [];
    }
    read.add(map);
    const data = stringRecord(map.body['data']);
    const keys = ref.key === undefined ? Object.keys(data) : [ref.key].filter((k) => data[k] !== undefined);
    return keys.map((key) => ({ via: `${c.via} ConfigMap ${ref.name} ${key}`, place: map.placeOf(['data', key]), value: data[key]! }));
  });
}

function callLine(c: InferredCall): string {
  const protocol = c.protocol === 'grpc' ? 'gRPC, run as HTTP requests' : 'HTTP';
  return `${c.from} → ${c.to} (${protocol}, port ${c.port}): ${c.via}, ${c.place}`;
}

/** A workload that only sends, as an http-client of `target`: its workload fields kept, the server's dropped with a note. */
function asClient(w: Workload, target: string, note: (src: Source, message: string) => void): DeploymentIn {
  const { cpuLimit, readinessProbe, livenessProbe, autoscale } = w.dep;
  const dropped = [cpuLimit !== undefined && 'its CPU limit', (readinessProbe ?? livenessProbe) !== undefined && 'its probes', autoscale !== undefined && 'its autoscaler'].filter(Boolean);
  if (dropped.length > 0) note(w.src, `runs as an http-client of ${target} (no Service selects it): ${dropped.join(', ')} left out, as a client serves nothing`);
  const workload: Partial<ServerIn> = { ...w.dep };
  for (const key of SERVER_ONLY) delete workload[key];
  return { ...workload, app: 'http-client', target } as DeploymentIn;
}

// An http-server's fields a client does not take.
const SERVER_ONLY = ['app', 'port', 'cpuLimit', 'cpuPerRequestMs', 'readinessProbe', 'livenessProbe', 'autoscale', 'calls'] as const;

/** Sets the target's autoscaler; false when the HPA could not be applied. */
function applyHpa(src: Source, workloads: Workload[], note: (src: Source, message: string) => void): boolean {
  const spec = record(src.body['spec']);
  const ref = record(spec['scaleTargetRef']);
  const kind = str(ref['kind']);
  const name = str(ref['name']);
  const w = workloads.find((x) => x.src.namespace === src.namespace && x.src.kind === kind && x.src.original === name);
  if (kind !== 'Deployment' || w === undefined) {
    let what = kind === undefined || name === undefined ? 'no spec.scaleTargetRef' : `target ${kind} ${name} is not an imported Deployment`;
    if (w?.dep.kind === 'DaemonSet') what = `target DaemonSet ${name ?? ''} runs one pod per node and has no replica count to scale`;
    note(src, `${what}; skipped`);
    return false;
  }
  if (w.dep.autoscale !== undefined) {
    note(src, `${w.name} already has an autoscaler; skipped`);
    return false;
  }
  const max = int(spec['maxReplicas']);
  if (max === undefined || max < 1) {
    note(src, `spec.maxReplicas ${show(spec['maxReplicas'])} is not a replica count; skipped`);
    return false;
  }
  // minReplicas defaults to 1.
  const rawMin = spec['minReplicas'] === undefined ? 1 : int(spec['minReplicas']);
  const min = rawMin === undefined || rawMin < 1 ? 1 : rawMin;
  if (min !== rawMin) note(src, `spec.minReplicas ${show(spec['minReplicas'])} is not modelled; 1 used`);
  const maxReplicas = Math.min(max, MAX_REPLICAS);
  const minReplicas = Math.min(min, maxReplicas);
  if (minReplicas !== min || maxReplicas !== max) note(src, `replica bounds ${min}..${max} clamped to ${minReplicas}..${maxReplicas}`);
  w.dep.autoscale = { minReplicas, maxReplicas, targetRequestsPerSecond: hpaTarget(src, spec, note) };
  for (const key of Object.keys(spec)) {
    if (key === 'behavior') note(src, "spec.behavior ignored: params.hpa holds the controller's settings");
    else if (!['scaleTargetRef', 'minReplicas', 'maxReplicas', 'metrics', 'targetCPUUtilizationPercentage'].includes(key)) note(src, `spec.${key} ignored`);
  }
  return true;
}

interface MetricTarget {
  /** Requests per second per pod, when the metric is a request rate averaged over pods. */
  rate?: number;
  what: string;
}

/** The requests-per-second target, from the first request-rate metric; FALLBACK_RPS with a note when there is none. */
function hpaTarget(src: Source, spec: Obj, note: (src: Source, message: string) => void): number {
  let targets: MetricTarget[];
  if (Array.isArray(spec['metrics'])) targets = spec['metrics'].map((m) => readMetric(record(m)));
  else if (spec['targetCPUUtilizationPercentage'] !== undefined) targets = [{ what: `CPU utilization target (${show(spec['targetCPUUtilizationPercentage'])} %)` }];
  else targets = [];
  // With no metrics, an HPA targets 80 % average CPU utilization.
  if (targets.length === 0) targets = [{ what: 'CPU utilization target (80 %, the default)' }];
  const chosen = targets.find((t) => t.rate !== undefined);
  const unmapped = targets.filter((t) => t !== chosen).map((t) => t.what);
  if (chosen?.rate !== undefined) {
    if (unmapped.length > 0) note(src, `${unmapped.join(' and ')} not modelled; scaled on ${chosen.what} alone`);
    return chosen.rate;
  }
  note(src, `${unmapped.join(' and ')} not modelled; scaled on ${FALLBACK_RPS} requests/s per pod instead`);
  return FALLBACK_RPS;
}

/** One entry of spec.metrics (autoscaling/v2, or v2beta1's flatter form). */
function readMetric(m: Obj): MetricTarget {
  const type = str(m['type']) ?? 'unknown';
  if (type === 'Resource' || type === 'ContainerResource') {
    const body = record(m[type === 'Resource' ? 'resource' : 'containerResource']);
    const resource = str(body['name']) ?? 'resource';
    const label = resource === 'cpu' ? 'CPU' : resource;
    const target = record(body['target']);
    const utilization = target['averageUtilization'] ?? body['targetAverageUtilization'];
    if (utilization !== undefined) return { what: `${label} utilization target (${show(utilization)} %)` };
    return { what: `${label} target` };
  }
  const key = type.charAt(0).toLowerCase() + type.slice(1);
  const body = record(m[key]);
  const metricName = str(record(body['metric'])['name']) ?? str(body['metricName']) ?? 'unnamed';
  const target = record(body['target']);
  const average = target['averageValue'] ?? body['targetAverageValue'] ?? body['averageValue'];
  const what = `${type} metric ${metricName}`;
  if (!['Pods', 'Object', 'External'].includes(type) || average === undefined) return { what: `${what} without an averageValue` };
  if (!/request|rps|qps|hits/i.test(metricName)) return { what: `${what} (not a request rate)` };
  const rate = quantity(average);
  if (rate === undefined || rate <= 0) return { what: `${what} averageValue ${show(average)}` };
  return { rate, what: `${what} (${rate} per pod)` };
}

function countNodes(requested: number, workloads: Workload[], clients: number, notes: Note[]): number {
  const daemonSets = workloads.filter((w) => w.dep.kind === 'DaemonSet').length;
  const perNode = Math.max(1, KUBELET_MAX_PODS - daemonSets);
  const pods = clients + workloads.reduce((sum, w) => sum + Math.max(w.dep.replicas ?? 0, w.dep.autoscale?.maxReplicas ?? 0), 0);
  const needed = Math.ceil(pods / perNode);
  if (needed > MAX_NODES) {
    notes.push({
      order: Number.MAX_SAFE_INTEGER,
      text: `${pods} pods need ${needed} nodes at kubelet's default 110 pods per node; the import stops at ${MAX_NODES}, so some pods will wait unscheduled`,
    });
  }
  return Math.min(MAX_NODES, Math.max(requested, needed));
}

function makeNodes(count: number): NodeIn[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `node-${i + 1}`,
    ip: `10.0.0.${11 + i}`,
    podCidr: `10.244.${i + 1}.0/24`,
    platform: 'bare-metal' as const,
  }));
}

function nodesLine(nodes: NodeIn[], requested: number): string {
  const range = nodes.length === 1 ? nodes[0]!.name : `${nodes[0]!.name} … ${nodes[nodes.length - 1]!.name}`;
  const what = `${countWord(nodes.length)} bare-metal node${nodes.length === 1 ? '' : 's'}`;
  const why = nodes.length > requested ? ` (${requested} asked for; more are needed at kubelet's default 110 pods per node)` : '';
  return `${range}: ${what}${why}`;
}

function countWord(n: number): string {
  return ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'][n] ?? String(n);
}

/** Node selection by hostname, probes, and container ports the model leaves out, once nodes and Services are settled. */
function finishWorkload(w: Workload, nodes: NodeIn[], note: (src: Source, message: string) => void): void {
  if (w.hostname !== undefined) {
    if (nodes.some((n) => n.name === w.hostname)) w.dep.nodes = [w.hostname];
    else
      note(w.src, `spec.template.spec.nodeSelector kubernetes.io/hostname=${w.hostname} names no imported node (${nodes[0]!.name} … ${nodes[nodes.length - 1]!.name}); it runs on any node`);
  }
  const probeNote = (message: string) => note(w.src, message);
  const readiness = w.probes.readiness && readProbe(w, 'readiness', w.probes.readiness, probeNote);
  if (readiness) w.dep.readinessProbe = readiness;
  const liveness = w.probes.liveness && readProbe(w, 'liveness', w.probes.liveness, probeNote);
  if (liveness) {
    // readProbe took a liveness probe's successThreshold only when it is 1, the one value Kubernetes allows there.
    const { successThreshold, ...rest } = liveness;
    w.dep.livenessProbe = successThreshold === undefined ? rest : { ...rest, successThreshold: 1 };
  }
  w.ports.forEach((p, i) => {
    if (p.port !== w.dep.port) note(w.src, `spec.template.spec.containers[0].ports[${i}] (${p.name ?? p.port}) ignored: the model listens on one port, ${w.dep.port}`);
  });
}

/**
 * A container's readiness or liveness probe as the scenario's kubelet runs it: a tcpSocket or httpGet on the port the
 * model listens on, with the timing fields as written; undefined, with a note, when it cannot be modelled.
 */
function readProbe(w: Workload, kind: ProbeKind, body: Obj, note: (message: string) => void): ProbeIn | undefined {
  const path = `spec.template.spec.containers[0].${kind}Probe`;
  const handlers = PROBE_HANDLERS.filter((h) => body[h] !== undefined);
  if (handlers.length !== 1) {
    const has = handlers.length === 0 ? 'has no handler' : `has ${handlers.join(' and ')}`;
    note(`${path} ${has}, where Kubernetes takes exactly one of ${PROBE_HANDLERS.join(', ')}; the probe is left out`);
    return undefined;
  }
  const handler = handlers[0]!;
  if (handler !== 'httpGet' && handler !== 'tcpSocket') {
    note(`${path}.${handler} not modelled: the kubelet here probes with a TCP connect or an HTTP GET; the probe is left out`);
    return undefined;
  }
  const action = record(body[handler]);
  const port = probePort(w, kind, `${path}.${handler}.port`, action['port'], note);
  if (port === undefined) return undefined;
  for (const [key, value] of Object.entries(action)) {
    // The model's GET asks for / over plain HTTP, so those values change nothing.
    if (key === 'port' || isEmpty(value) || (key === 'path' && value === '/') || (key === 'scheme' && value === 'HTTP')) continue;
    const why = PROBE_ACTION_UNMODELLED[key];
    const shown = typeof value === 'string' || typeof value === 'number' ? ` ${value}` : '';
    note(why === undefined ? `${path}.${handler}.${key} ignored` : `${path}.${handler}.${key}${shown} not modelled; ${why}`);
  }
  const probe: ProbeIn = handler === 'httpGet' ? { httpGet: { port } } : { tcpSocket: { port } };
  for (const [key, min] of PROBE_TIMING) {
    const value = body[key];
    // The API server turns such a 0 into the default (docs/sources/kubernetes.md#container-probes), as leaving it out does.
    if (value === undefined || (value === 0 && min === 1)) continue;
    const n = int(value);
    if (n === undefined || n < min) note(`${path}.${key} ${show(value)} is not a whole number from ${min}, which Kubernetes refuses; the default used`);
    else if (kind === 'liveness' && key === 'successThreshold' && n !== 1) note(`${path}.successThreshold ${n} is not 1, which Kubernetes refuses for a liveness probe; 1 used`);
    else {
      if (n > MAX_PROBE_VALUE) note(`${path}.${key} ${n} is more than Netmortem runs; ${MAX_PROBE_VALUE} used`);
      probe[key] = Math.min(n, MAX_PROBE_VALUE);
    }
  }
  for (const key of Object.keys(body)) {
    if (!PROBE_HANDLERS.includes(key) && !PROBE_TIMING.some(([timing]) => timing === key) && !isEmpty(body[key])) note(`${path}.${key} ignored`);
  }
  return probe;
}

/** The port a probe goes to: the one the model's server listens on, with a note when the manifest names another. */
function probePort(w: Workload, kind: ProbeKind, field: string, raw: unknown, note: (message: string) => void): number | undefined {
  const port = resolvePort(raw, w);
  if (port === undefined && typeof raw === 'string' && !/^\d+$/.test(raw)) {
    // The kubelet's prober errors on a name it cannot find and discards errored results (docs/sources/kubernetes.md#container-probes).
    const effect =
      kind === 'readiness'
        ? 'the pods never turn ready; the probe is left out, so here they turn ready as the container starts'
        : 'never restarts the container; the probe is left out, which changes nothing';
    note(`${field} ${raw} names no port of the container: in Kubernetes the probe errors every period and ${effect}`);
    return undefined;
  }
  if (port === undefined) {
    const what = raw === undefined ? 'is missing' : `${show(raw)} is not a port from 1 to 65535`;
    note(`${field} ${what}, which Kubernetes refuses; the probe is left out`);
    return undefined;
  }
  if (port !== w.dep.port) {
    const named = typeof raw === 'string' && String(port) !== raw ? ` (${port})` : '';
    note(`${field} ${show(raw)}${named} is not the port the model listens on; its one server listens on ${w.dep.port}, so the probe goes there`);
  }
  return w.dep.port;
}

function describe(imported: string[], calls: number, added: string[], notUnderstood: string[]): string {
  const lines = [
    `Imported from Kubernetes manifests: ${imported.length > 0 ? imported.join(', ') : 'no Deployment, DaemonSet or Service could be imported'}.`,
    "Every container runs Netmortem's HTTP server model in place of its image.",
  ];
  if (calls > 0) lines.push(`${calls} call${calls === 1 ? '' : 's'} between them read from their environment; each deployment's calls say where.`);
  lines.push('Added so it plays:', ...added.map((line) => `- ${line}`));
  if (notUnderstood.length > 0) lines.push(`Not understood or not modelled: ${notUnderstood.length} item${notUnderstood.length === 1 ? '' : 's'}.`);
  return lines.join('\n');
}

// Field order in the written file, so it reads like the shipped scenarios.
const DEPLOYMENT_KEYS = [
  'app',
  'kind',
  'replicas',
  'nodes',
  'port',
  'target',
  'calls',
  'maxSurge',
  'maxUnavailable',
  'terminationGracePeriodSeconds',
  'preStopSeconds',
  'readinessProbe',
  'livenessProbe',
  'cpuLimit',
  'autoscale',
];
const SERVICE_KEYS = ['selector', 'clusterIp', 'type', 'port', 'nodePort', 'loadBalancerIp', 'externalTrafficPolicy'];

function ordered<T extends object>(value: T, keys: readonly string[]): T {
  const entries = Object.entries(value).sort(([a], [b]) => rank(keys, a) - rank(keys, b));
  return Object.fromEntries(entries) as T;
}

function rank(keys: readonly string[], key: string): number {
  const i = keys.indexOf(key);
  return i < 0 ? keys.length : i;
}

/** `{}`, `[]` or null: what `kubectl get -o yaml` writes for fields left at nothing. */
function isEmpty(value: unknown): boolean {
  return value === null || (Array.isArray(value) && value.length === 0) || (isRecord(value) && Object.keys(value).length === 0);
}

function isRecord(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function record(value: unknown): Obj {
  return isRecord(value) ? value : {};
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(record(value))) if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
  return out;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function int(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

function intOrPercent(value: unknown): IntOrPercent | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : undefined;
  if (typeof value === 'string' && /^(100|[1-9]?\d)%$/.test(value)) return value as `${number}%`;
  return undefined;
}

// Kubernetes quantity suffixes: decimal SI and binary.
const QUANTITY_SCALE: Record<string, number> = { m: 1, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };

/** A Kubernetes quantity like `500m`, `2` or `1.5k` as a number. */
function quantity(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+(?:\.\d*)?|\.\d+)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(value.trim());
  if (!match) return undefined;
  // Milli is divided rather than multiplied by 0.001, so 300m reads as exactly 0.3.
  const scaled = Number(match[1]) * QUANTITY_SCALE[match[2] ?? '']!;
  return match[2] === 'm' ? scaled / 1000 : scaled;
}

function show(value: unknown): string {
  if (value === undefined) return '(missing)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line || 'unreadable';
}
