import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { importManifests } from '../../src/state/manifest-import';
import { atSeconds } from '../../src/sim/core/time';
import { FAULT_IDS } from '../../src/sim/faults/catalog';
import { loadScenario } from '../../src/sim/scenario/load';
import type { Scenario } from '../../src/sim/scenario/schema';
import { createSim } from '../../src/sim/sim';
import { loadText } from '../fixtures/scenario-run';

const SHOP = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 3
  strategy:
    type: RollingUpdate
    rollingUpdate: { maxSurge: 1, maxUnavailable: "0%" }
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web, tier: frontend }
    spec:
      terminationGracePeriodSeconds: 45
      volumes:
        - name: config
          configMap: { name: app-config }
      containers:
        - name: web
          image: nginx:1.27
          ports:
            - { name: http, containerPort: 8000 }
          env:
            - { name: MODE, value: prod }
          resources:
            requests: { cpu: 250m, memory: 128Mi }
            limits: { cpu: 500m, memory: 256Mi }
          lifecycle:
            preStop:
              exec:
                command: ["/bin/sh", "-c", "sleep 5"]
          readinessProbe:
            httpGet: { path: /healthz, port: http }
            initialDelaySeconds: 4
            periodSeconds: 5
          livenessProbe:
            httpGet: { path: /healthz, port: http }
        - name: istio-proxy
          image: istio/proxyv2
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
  loadBalancerIP: 192.0.2.50
  selector: { app: web }
  ports:
    - { name: http, port: 80, targetPort: http, nodePort: 30080 }
---
apiVersion: apps/v1
kind: DaemonSet
metadata: { name: node-agent, namespace: kube-system }
spec:
  selector: { matchLabels: { app: node-agent } }
  template:
    metadata: { labels: { app: node-agent } }
    spec:
      nodeSelector: { kubernetes.io/hostname: node-2 }
      tolerations: [{ operator: Exists }]
      containers:
        - name: agent
          image: agent:1
          ports: [{ containerPort: 9100 }]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: { name: web, namespace: shop }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }
  minReplicas: 2
  maxReplicas: 10
  metrics:
    - type: Resource
      resource: { name: cpu, target: { type: Utilization, averageUtilization: 70 } }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: app-config, namespace: shop }
data: { MODE: prod }
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: { name: web, namespace: shop }
spec:
  rules:
    - host: shop.example.com
`;

/** A Deployment with the given name, labels and container port, as YAML. */
function deployment(name: string, labels: string, port = 8080, extra = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name} }
spec:
  replicas: 2
  selector: { matchLabels: ${labels} }
  template:
    metadata: { labels: ${labels} }
    spec:
      containers:
        - name: app
          image: app:1
          ports: [{ containerPort: ${port} }]
${extra === '' ? '' : `${extra}\n`}`;
}

function service(name: string, selector: string, extra = '', targetPort = 8080): string {
  return `apiVersion: v1
kind: Service
metadata: { name: ${name} }
spec:
  selector: ${selector}
  ports: [{ port: 80, targetPort: ${targetPort} }]
${extra === '' ? '' : `${extra}\n`}`;
}

/** The scenario text loaded by the real loader; fails the test with the loader's errors when it does not load. */
function load(text: string): Scenario {
  const loaded = loadScenario(text, 'imported.yaml', { faultIds: FAULT_IDS });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  return loaded.scenario;
}

interface Parsed {
  topology: {
    nodes: { name: string; ip: string; podCidr: string; platform: string }[];
    deployments: Record<string, Record<string, unknown>>;
    services: Record<string, Record<string, unknown>>;
  };
  [key: string]: unknown;
}

function parsed(text: string): Parsed {
  return parse(text) as Parsed;
}

function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected an error');
}

describe('importManifests: a realistic multi-document manifest', () => {
  const result = importManifests(SHOP);
  const doc = parsed(result.scenarioText);
  const { deployments, services, nodes } = doc.topology;

  it('writes the scenario header', () => {
    expect(doc['version']).toBe(1);
    expect(doc['id']).toBe('imported');
    expect(doc['title']).toBe('Imported from Kubernetes manifests');
    expect(doc['seed']).toBe(1);
    expect(doc['duration']).toBe(60);
    expect(doc['description']).toContain('Deployment web');
    expect(doc['description']).toContain('Service web (LoadBalancer)');
    const charts = doc['charts'] as { series: { metric: string }[] }[];
    expect(charts[0]!.series.map((s) => s.metric)).toEqual(['requests.ok', 'requests.failed']);
    expect(charts[1]!.series[0]!.metric).toBe('hpa.desired_replicas{deployment=web}');
  });

  it('maps the Deployment, its container and its autoscaler', () => {
    expect(deployments['web']).toEqual({
      app: 'http-server',
      replicas: 3,
      port: 8000,
      maxSurge: 1,
      maxUnavailable: '0%',
      terminationGracePeriodSeconds: 45,
      preStopSeconds: 5,
      readinessProbe: { httpGet: { port: 8000 }, initialDelaySeconds: 4, periodSeconds: 5 },
      livenessProbe: { httpGet: { port: 8000 } },
      cpuLimit: 0.5,
      autoscale: { minReplicas: 2, maxReplicas: 10, targetRequestsPerSecond: 50 },
    });
  });

  it('maps the DaemonSet without replicas, pinned by its hostname selector', () => {
    expect(deployments['node-agent']).toEqual({
      app: 'http-server',
      kind: 'DaemonSet',
      nodes: ['node-2'],
      port: 9100,
      terminationGracePeriodSeconds: 30,
    });
  });

  it('maps the Service and allocates its cluster IP', () => {
    expect(services['web']).toEqual({
      selector: 'web',
      clusterIp: '10.96.0.10',
      type: 'LoadBalancer',
      port: 80,
      nodePort: 30080,
      loadBalancerIp: '192.0.2.50',
      externalTrafficPolicy: 'Local',
    });
  });

  it('adds three bare-metal nodes and a client per Service', () => {
    expect(nodes).toEqual([
      { name: 'node-1', ip: '10.0.0.11', podCidr: '10.244.1.0/24', platform: 'bare-metal' },
      { name: 'node-2', ip: '10.0.0.12', podCidr: '10.244.2.0/24', platform: 'bare-metal' },
      { name: 'node-3', ip: '10.0.0.13', podCidr: '10.244.3.0/24', platform: 'bare-metal' },
    ]);
    expect(deployments['web-client']).toEqual({ app: 'http-client', replicas: 1, target: 'web' });
    expect(result.added[0]).toBe('node-1 … node-3: three bare-metal nodes');
    expect(result.added[1]).toMatch(/^web-client: an http-client sending requests to Service web/);
  });

  it('names everything it did not model', () => {
    const notes = result.notUnderstood;
    expect(notes).toContain('ConfigMap app-config: not modelled: no imported workload takes it in its environment');
    expect(notes).toContain('Ingress web: the ingress controller is not modelled: the load from outside goes to its backend Services directly');
    expect(notes).toContain('Deployment web: spec.template.spec.containers[0].readinessProbe.httpGet.path /healthz not modelled; the server model answers every path alike');
    expect(notes).toContain('Deployment web: spec.template.spec.containers[0].livenessProbe.httpGet.path /healthz not modelled; the server model answers every path alike');
    // Its environment is read for the Services it names (MODE=prod names none); nothing there is left out.
    expect(notes.some((n) => n.includes('containers[0].env'))).toBe(false);
    expect(notes).toContain('Deployment web: spec.template.spec.volumes ignored');
    expect(notes).toContain('Deployment web: spec.template.spec.containers[0].resources.limits.memory ignored');
    expect(notes).toContain('DaemonSet node-agent: spec.template.spec.tolerations ignored');
    expect(notes.some((n) => n.startsWith('Deployment web: spec.template.spec.containers[1] (istio-proxy) ignored'))).toBe(true);
    expect(notes).toContain('HorizontalPodAutoscaler web: CPU utilization target (70 %) not modelled; scaled on 50 requests/s per pod instead');
    expect(notes.some((n) => n.includes('containers[0].image'))).toBe(false);
  });

  it('loads with the real loader and answers requests', () => {
    const scenario = load(result.scenarioText);
    const sim = createSim(scenario, { fixes: [] });
    sim.runUntil(atSeconds(20));
    const report = sim.report(0);
    expect(report.totals['requests.ok']).toBeGreaterThan(100);
    expect(report.totals['requests.failed'] ?? 0).toBe(0);
  });

  it('gives the same output for the same text', () => {
    expect(importManifests(SHOP)).toEqual(result);
  });
});

describe('importManifests: other shapes of input', () => {
  it('reads a kind: List', () => {
    const text = `apiVersion: v1
kind: List
items:
  - ${deployment('api', '{ app: api }', 9000).split('\n').join('\n    ')}
  - ${service('api', '{ app: api }', '', 9000).split('\n').join('\n    ')}
`;
    const result = importManifests(text);
    const doc = parsed(result.scenarioText);
    expect(doc.topology.deployments['api']).toMatchObject({ app: 'http-server', replicas: 2, port: 9000 });
    expect(doc.topology.services['api']).toMatchObject({ selector: 'api', port: 80 });
    expect(doc.topology.deployments['api-client']).toEqual({ app: 'http-client', replicas: 1, target: 'api' });
    load(result.scenarioText);
  });

  it('skips a Service that selects nothing, and adds one so requests still flow', () => {
    const result = importManifests(`${deployment('web', '{ app: web }')}---\n${service('ghost', '{ app: nobody }')}`);
    const doc = parsed(result.scenarioText);
    expect(result.notUnderstood).toContain('Service ghost: selector app=nobody matches no imported Deployment or DaemonSet; skipped');
    expect(doc.topology.services['ghost']).toBeUndefined();
    expect(doc.topology.services['web']).toMatchObject({ selector: 'web' });
    expect(result.added.some((a) => a.startsWith('Service web: a ClusterIP Service'))).toBe(true);
    load(result.scenarioText);
  });

  it('picks the first of two matching deployments and says so', () => {
    const text = [deployment('web', '{ app: web, track: stable }'), deployment('web-canary', '{ app: web, track: canary }'), service('web', '{ app: web }')].join('---\n');
    const result = importManifests(text);
    expect(parsed(result.scenarioText).topology.services['web']!['selector']).toBe('web');
    expect(result.notUnderstood).toContain("Service web: selector app=web matches Deployment web and Deployment web-canary; the scenario's Service selects only the first, web");
    load(result.scenarioText);
  });

  it('sanitises names that are not DNS labels', () => {
    const text = [deployment('Web_App', '{ app: web }'), service('9lives', '{ app: web }')].join('---\n');
    const result = importManifests(text);
    const doc = parsed(result.scenarioText);
    expect(doc.topology.deployments['web-app']).toBeDefined();
    expect(doc.topology.services['svc-9lives']).toMatchObject({ selector: 'web-app' });
    expect(result.notUnderstood).toContain('Deployment Web_App: name is not a DNS-1123 label, as the scenario requires; imported as web-app');
    expect(result.notUnderstood).toContain('Service 9lives: name is not a DNS-1035 label, as the scenario requires; imported as svc-9lives');
    load(result.scenarioText);
  });

  it('notes a headless Service and an ExternalName Service', () => {
    const text = [
      deployment('db', '{ app: db }', 5432),
      service('db', '{ app: db }', '  clusterIP: None'),
      'apiVersion: v1\nkind: Service\nmetadata: { name: upstream }\nspec: { type: ExternalName, externalName: example.com }\n',
    ].join('---\n');
    const result = importManifests(text);
    expect(result.notUnderstood.some((n) => n.startsWith('Service db: headless (clusterIP: None)'))).toBe(true);
    expect(result.notUnderstood.some((n) => n.startsWith('Service upstream: type ExternalName'))).toBe(true);
    expect(parsed(result.scenarioText).topology.services['upstream']).toBeUndefined();
    load(result.scenarioText);
  });

  it('keeps a usable clusterIP, replaces a taken one, and allocates around the ones asked for', () => {
    const text = [
      deployment('a', '{ app: a }'),
      deployment('b', '{ app: b }'),
      deployment('c', '{ app: c }'),
      service('c', '{ app: c }'),
      service('a', '{ app: a }', '  clusterIP: 10.96.0.10'),
      service('b', '{ app: b }', '  clusterIP: 10.96.0.10'),
    ].join('---\n');
    const result = importManifests(text);
    const { services } = parsed(result.scenarioText).topology;
    expect(services['c']!['clusterIp']).toBe('10.96.0.11');
    expect(services['a']!['clusterIp']).toBe('10.96.0.10');
    expect(services['b']!['clusterIp']).toBe('10.96.0.12');
    expect(result.notUnderstood).toContain('Service b: clusterIP 10.96.0.10 cannot be used here (not IPv4, taken, or inside the node or pod network); 10.96.0.12 allocated');
    load(result.scenarioText);
  });

  it("moves a deployment's port to the Service's numeric targetPort", () => {
    const result = importManifests([deployment('web', '{ app: web }', 8080), service('web', '{ app: web }', '', 3000)].join('---\n'));
    expect(parsed(result.scenarioText).topology.deployments['web']!['port']).toBe(3000);
    expect(result.notUnderstood).toContain('Service web: spec.ports[0].targetPort 3000 is not a containerPort of Deployment web; the deployment listens on 3000');
  });

  it('maps preStop sleep hooks, whole-core CPU limits and the Recreate strategy', () => {
    const sleepHook = `          lifecycle: { preStop: { sleep: { seconds: 7 } } }
          resources: { limits: { cpu: "2" } }
  strategy: { type: Recreate }`;
    const execHook = `          lifecycle: { preStop: { exec: { command: ["sleep", "3"] } } }`;
    const result = importManifests([deployment('a', '{ app: a }', 8080, sleepHook), deployment('b', '{ app: b }', 8080, execHook)].join('---\n'));
    const { deployments } = parsed(result.scenarioText).topology;
    expect(deployments['a']).toMatchObject({ preStopSeconds: 7, cpuLimit: 2, maxSurge: 0, maxUnavailable: '100%' });
    expect(deployments['b']).toMatchObject({ preStopSeconds: 3 });
    load(result.scenarioText);
  });

  it('uses defaults when replicas, grace period and ports are left out', () => {
    const text = `apiVersion: apps/v1
kind: Deployment
metadata: { name: bare }
spec:
  selector: { matchLabels: { app: bare } }
  template:
    metadata: { labels: { app: bare } }
    spec:
      containers: [{ name: bare, image: bare:1 }]
`;
    const result = importManifests(text);
    expect(parsed(result.scenarioText).topology.deployments['bare']).toEqual({ app: 'http-server', replicas: 1, port: 8080, terminationGracePeriodSeconds: 30 });
    load(result.scenarioText);
  });

  it('scales on a request-rate Pods metric, and on 50 requests/s for autoscaling/v1', () => {
    const v2 = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: { name: a }
spec:
  scaleTargetRef: { kind: Deployment, name: a }
  maxReplicas: 6
  metrics:
    - type: Pods
      pods: { metric: { name: http_requests_per_second }, target: { type: AverageValue, averageValue: "120" } }
`;
    const v1 = `apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: { name: b }
spec:
  scaleTargetRef: { kind: Deployment, name: b }
  minReplicas: 2
  maxReplicas: 4
  targetCPUUtilizationPercentage: 60
`;
    const result = importManifests([deployment('a', '{ app: a }'), deployment('b', '{ app: b }'), v2, v1].join('---\n'));
    const { deployments } = parsed(result.scenarioText).topology;
    expect(deployments['a']!['autoscale']).toEqual({ minReplicas: 1, maxReplicas: 6, targetRequestsPerSecond: 120 });
    expect(deployments['b']!['autoscale']).toEqual({ minReplicas: 2, maxReplicas: 4, targetRequestsPerSecond: 50 });
    expect(result.notUnderstood).toContain('HorizontalPodAutoscaler b: CPU utilization target (60 %) not modelled; scaled on 50 requests/s per pod instead');
    expect(result.notUnderstood.some((n) => n.startsWith('HorizontalPodAutoscaler a:'))).toBe(false);
    load(result.scenarioText);
  });

  it('notes an HPA on something that was not imported, and a hostname that names no node', () => {
    const hpa = 'apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: { name: db }\nspec: { scaleTargetRef: { kind: StatefulSet, name: db }, maxReplicas: 3 }\n';
    const pinned = `apiVersion: apps/v1
kind: DaemonSet
metadata: { name: agent }
spec:
  template:
    metadata: { labels: { app: agent } }
    spec:
      nodeSelector: { kubernetes.io/hostname: worker-7, disktype: ssd }
      containers: [{ name: agent, image: agent:1 }]
`;
    const result = importManifests([pinned, hpa].join('---\n'));
    const agent = parsed(result.scenarioText).topology.deployments['agent']!;
    expect(agent['nodes']).toBeUndefined();
    expect(agent['replicas']).toBeUndefined();
    expect(result.notUnderstood).toContain('HorizontalPodAutoscaler db: target StatefulSet db is not an imported Deployment; skipped');
    expect(result.notUnderstood.some((n) => n.startsWith('DaemonSet agent: spec.template.spec.nodeSelector kubernetes.io/hostname=worker-7 names no imported node'))).toBe(true);
    expect(result.notUnderstood).toContain('DaemonSet agent: spec.template.spec.nodeSelector disktype=ssd ignored: the imported nodes carry no labels');
    load(result.scenarioText);
  });

  it('notes same-named objects in two namespaces and keeps both', () => {
    const staging = deployment('web', '{ app: web }').replace('metadata: { name: web }', 'metadata: { name: web, namespace: staging }');
    const result = importManifests([deployment('web', '{ app: web }'), staging].join('---\n'));
    const { deployments } = parsed(result.scenarioText).topology;
    expect(Object.keys(deployments).filter((n) => !n.endsWith('-client'))).toEqual(['web', 'web-staging']);
    expect(result.notUnderstood).toContain('Deployment web: also in namespace default; namespaces are not modelled, so the one in staging is imported as web-staging');
    load(result.scenarioText);
  });

  it('honours options.nodes and adds nodes when the pods do not fit', () => {
    expect(parsed(importManifests(deployment('web', '{ app: web }'), { nodes: 5 }).scenarioText).topology.nodes).toHaveLength(5);
    const big = importManifests(deployment('web', '{ app: web }').replace('replicas: 2', 'replicas: 500'), { nodes: 2 });
    const nodes = parsed(big.scenarioText).topology.nodes;
    expect(nodes).toHaveLength(5);
    expect(nodes[4]).toEqual({ name: 'node-5', ip: '10.0.0.15', podCidr: '10.244.5.0/24', platform: 'bare-metal' });
    expect(big.added[0]).toMatch(/^node-1 … node-5: five bare-metal nodes \(2 asked for/);
    load(big.scenarioText);
    expect(() => importManifests(deployment('web', '{ app: web }'), { nodes: 0 })).toThrow(/^options\.nodes/);
  });

  it("writes options.requestsPerSecond as the generated clients' rate, within the rate the scenario allows", () => {
    const web = deployment('web', '{ app: web }');
    expect(parsed(importManifests(web).scenarioText).params).toEqual({ client: { requestsPerSecond: 10 } });
    const result = importManifests(web, { requestsPerSecond: 0.5 });
    expect(parsed(result.scenarioText).params).toEqual({ client: { requestsPerSecond: 0.5 } });
    load(result.scenarioText);
    expect(() => importManifests(web, { requestsPerSecond: 10_001 })).toThrow('options.requestsPerSecond: must be a number from 0.001 to 10,000');
    expect(() => importManifests(web, { requestsPerSecond: Number.NaN })).toThrow(/^options\.requestsPerSecond/);
  });

  it('stays quiet about the empty and default fields kubectl get -o yaml writes', () => {
    const defaults = `          resources: {}
          terminationMessagePath: /dev/termination-log
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      securityContext: {}`;
    const svc = service('web', '{ app: web }', '  sessionAffinity: None\n  internalTrafficPolicy: Cluster');
    const result = importManifests([deployment('web', '{ app: web }', 8080, defaults), svc].join('---\n'));
    expect(result.notUnderstood).toEqual([]);
  });

  it('still plays when the manifests hold no workload', () => {
    const result = importManifests('apiVersion: v1\nkind: ConfigMap\nmetadata: { name: settings }\ndata: { a: "1" }\n');
    expect(result.notUnderstood).toEqual(['ConfigMap settings: not modelled: no imported workload takes it in its environment']);
    expect(result.added.some((a) => a.startsWith('web: an http-server Deployment'))).toBe(true);
    load(result.scenarioText);
  });
});

/** A Deployment of the payments team as `kubectl get -o yaml` writes it, its probes given in full and its ports last. */
const PAYMENTS = `apiVersion: apps/v1
kind: Deployment
metadata: { name: api, namespace: payments, labels: { app: api } }
spec:
  replicas: 2
  selector: { matchLabels: { app: api } }
  template:
    metadata: { labels: { app: api } }
    spec:
      containers:
        - name: api
          image: registry.example.com/payments/api:3.4.1
          readinessProbe:
            tcpSocket: { port: 8443 }
            initialDelaySeconds: 4
            periodSeconds: 2
            timeoutSeconds: 1
            failureThreshold: 2
            successThreshold: 2
          livenessProbe:
            httpGet: { path: /, port: web, scheme: HTTP }
            initialDelaySeconds: 15
            periodSeconds: 20
            timeoutSeconds: 5
            failureThreshold: 6
            successThreshold: 1
          ports:
            - { name: web, containerPort: 8443, protocol: TCP }
---
apiVersion: v1
kind: Service
metadata: { name: api, namespace: payments }
spec:
  selector: { app: api }
  ports: [{ name: web, port: 443, targetPort: web }]
`;

/** One workload whose first container is given as YAML lines (indented for the containers list). */
function workload(kind: 'Deployment' | 'DaemonSet', name: string, container: string): string {
  return `apiVersion: apps/v1
kind: ${kind}
metadata: { name: ${name} }
spec:
${kind === 'Deployment' ? '  replicas: 2\n' : ''}  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec:
      containers:
${container}
`;
}

const probeField = (kind: string, name: string, field: string) => `${kind} ${name}: spec.template.spec.containers[0].${field}`;

describe('importManifests: readiness and liveness probes', () => {
  it('imports tcpSocket and httpGet probes with their timing as written, a named port resolved through the container ports', () => {
    const result = importManifests(PAYMENTS);
    const api = parsed(result.scenarioText).topology.deployments['api']!;
    expect(api['readinessProbe']).toEqual({ tcpSocket: { port: 8443 }, initialDelaySeconds: 4, periodSeconds: 2, timeoutSeconds: 1, failureThreshold: 2, successThreshold: 2 });
    expect(api['livenessProbe']).toEqual({ httpGet: { port: 8443 }, initialDelaySeconds: 15, periodSeconds: 20, timeoutSeconds: 5, failureThreshold: 6, successThreshold: 1 });
    // A readiness probe gates readiness itself now; readySeconds would delay the container's start as well.
    expect(api['readySeconds']).toBeUndefined();
    // path / and scheme HTTP are what the model's probe sends anyway.
    expect(result.notUnderstood).toEqual([]);
    expect(load(result.scenarioText).topology.deployments['api']!.livenessProbe).toEqual({
      httpGet: { port: 8443 },
      initialDelaySeconds: 15,
      periodSeconds: 20,
      timeoutSeconds: 5,
      failureThreshold: 6,
      successThreshold: 1,
    });
  });

  it("leaves the timing fields out when the manifest does, so the schema fills in Kubernetes' defaults", () => {
    const container = `        - name: web
          image: nginx:1.27
          ports: [{ containerPort: 80 }]
          readinessProbe: { httpGet: { port: 80 } }
          livenessProbe: { tcpSocket: { port: 80 } }`;
    const result = importManifests(workload('Deployment', 'web', container));
    const web = parsed(result.scenarioText).topology.deployments['web']!;
    expect(web['readinessProbe']).toEqual({ httpGet: { port: 80 } });
    expect(web['livenessProbe']).toEqual({ tcpSocket: { port: 80 } });
    const defaults = { initialDelaySeconds: 0, periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 3, successThreshold: 1 };
    const loaded = load(result.scenarioText).topology.deployments['web']!;
    expect(loaded.readinessProbe).toEqual({ httpGet: { port: 80 }, ...defaults });
    expect(loaded.livenessProbe).toEqual({ tcpSocket: { port: 80 }, ...defaults });
    expect(result.notUnderstood).toEqual([]);
  });

  it('notes a named port that matches none of the container ports, by its field, and leaves the probe out', () => {
    const container = `        - name: node-exporter
          image: quay.io/prometheus/node-exporter:v1.8.2
          ports: [{ name: metrics, containerPort: 9100 }]
          readinessProbe:
            httpGet: { path: /, port: metric }
          livenessProbe:
            tcpSocket: { port: prometheus }`;
    const result = importManifests(workload('DaemonSet', 'node-exporter', container));
    const exporter = parsed(result.scenarioText).topology.deployments['node-exporter']!;
    expect(exporter['readinessProbe']).toBeUndefined();
    expect(exporter['livenessProbe']).toBeUndefined();
    expect(result.notUnderstood).toEqual([
      `${probeField('DaemonSet', 'node-exporter', 'readinessProbe.httpGet.port')} metric names no port of the container: in Kubernetes the probe errors every period and the pods never turn ready; the probe is left out, so here they turn ready as the container starts`,
      `${probeField('DaemonSet', 'node-exporter', 'livenessProbe.tcpSocket.port')} prometheus names no port of the container: in Kubernetes the probe errors every period and never restarts the container; the probe is left out, which changes nothing`,
    ]);
    load(result.scenarioText);
  });

  it('notes exec and grpc probes and a startup probe as not modelled, and keeps the probe it can model', () => {
    const container = `        - name: search
          image: search:2.0
          ports: [{ name: grpc, containerPort: 9090 }]
          startupProbe:
            httpGet: { path: /started, port: grpc }
            failureThreshold: 30
          readinessProbe:
            exec: { command: [/bin/grpc_health_probe, -addr=:9090] }
          livenessProbe:
            grpc: { port: 9090 }
            periodSeconds: 15`;
    const result = importManifests(workload('Deployment', 'search', container));
    const search = parsed(result.scenarioText).topology.deployments['search']!;
    expect(search['readinessProbe']).toBeUndefined();
    expect(search['livenessProbe']).toBeUndefined();
    expect(result.notUnderstood).toEqual([
      `${probeField('Deployment', 'search', 'startupProbe')} not modelled; the liveness and readiness probes start with the container, as if it had passed at once`,
      `${probeField('Deployment', 'search', 'readinessProbe.exec')} not modelled: the kubelet here probes with a TCP connect or an HTTP GET; the probe is left out`,
      `${probeField('Deployment', 'search', 'livenessProbe.grpc')} not modelled: the kubelet here probes with a TCP connect or an HTTP GET; the probe is left out`,
    ]);

    const withTcp = container.replace('exec: { command: [/bin/grpc_health_probe, -addr=:9090] }', 'tcpSocket: { port: grpc }');
    const kept = importManifests(workload('Deployment', 'search', withTcp));
    expect(parsed(kept.scenarioText).topology.deployments['search']!['readinessProbe']).toEqual({ tcpSocket: { port: 9090 } });
    load(kept.scenarioText);
  });

  it('names each httpGet and tcpSocket field the model leaves out: path, httpHeaders, host, scheme', () => {
    const container = `        - name: shop
          image: shop:7
          ports: [{ name: http, containerPort: 8080 }]
          readinessProbe:
            httpGet:
              path: /ready
              port: http
              host: shop.internal
              scheme: HTTPS
              httpHeaders: [{ name: X-Probe, value: kubelet }]
          livenessProbe:
            tcpSocket: { port: 8080, host: 127.0.0.1 }`;
    const result = importManifests(workload('Deployment', 'shop', container));
    const shop = parsed(result.scenarioText).topology.deployments['shop']!;
    expect(shop['readinessProbe']).toEqual({ httpGet: { port: 8080 } });
    expect(shop['livenessProbe']).toEqual({ tcpSocket: { port: 8080 } });
    expect(result.notUnderstood).toEqual([
      `${probeField('Deployment', 'shop', 'readinessProbe.httpGet.path')} /ready not modelled; the server model answers every path alike`,
      `${probeField('Deployment', 'shop', 'readinessProbe.httpGet.host')} shop.internal not modelled; the probe goes to the pod's address`,
      `${probeField('Deployment', 'shop', 'readinessProbe.httpGet.scheme')} HTTPS not modelled; the probe is plain HTTP`,
      `${probeField('Deployment', 'shop', 'readinessProbe.httpGet.httpHeaders')} not modelled; the server model answers whatever headers come`,
      `${probeField('Deployment', 'shop', 'livenessProbe.tcpSocket.host')} 127.0.0.1 not modelled; the probe goes to the pod's address`,
    ]);
    load(result.scenarioText);
  });

  it('sends a probe on another of the container ports to the one port the model listens on, the one the Service settled', () => {
    // The first container port is admin, but the Service targets http, so the model's one server listens on 8080.
    const container = `        - name: envoy
          image: envoyproxy/envoy:v1.31
          readinessProbe: { httpGet: { path: /ready, port: admin } }
          livenessProbe: { tcpSocket: { port: http } }
          ports:
            - { name: admin, containerPort: 9901 }
            - { name: http, containerPort: 8080 }`;
    const svc = 'apiVersion: v1\nkind: Service\nmetadata: { name: edge }\nspec:\n  selector: { app: edge }\n  ports: [{ port: 80, targetPort: http }]\n';
    const result = importManifests([workload('Deployment', 'edge', container), svc].join('---\n'));
    const edge = parsed(result.scenarioText).topology.deployments['edge']!;
    expect(edge['port']).toBe(8080);
    expect(edge['readinessProbe']).toEqual({ httpGet: { port: 8080 } });
    expect(edge['livenessProbe']).toEqual({ tcpSocket: { port: 8080 } });
    expect(result.notUnderstood).toContain(
      `${probeField('Deployment', 'edge', 'readinessProbe.httpGet.port')} admin (9901) is not the port the model listens on; its one server listens on 8080, so the probe goes there`,
    );
    expect(result.notUnderstood.filter((n) => n.includes('livenessProbe'))).toEqual([]);
    load(result.scenarioText);
  });

  it('takes 0 as the default, as Kubernetes does, and notes values Kubernetes refuses or Netmortem cannot run', () => {
    const container = `        - name: worker
          image: worker:1
          ports: [{ containerPort: 8080 }]
          readinessProbe:
            tcpSocket: { port: "8080" }
            initialDelaySeconds: 7200
            periodSeconds: 0
            timeoutSeconds: -1
            failureThreshold: 2.5
            terminationGracePeriodSeconds: 10
          livenessProbe:
            httpGet: { port: 8080 }
            successThreshold: 3
            failureThreshold: 0`;
    const result = importManifests(workload('Deployment', 'worker', container));
    const worker = parsed(result.scenarioText).topology.deployments['worker']!;
    expect(worker['readinessProbe']).toEqual({ tcpSocket: { port: 8080 }, initialDelaySeconds: 3600 });
    expect(worker['livenessProbe']).toEqual({ httpGet: { port: 8080 } });
    expect(result.notUnderstood).toEqual([
      `${probeField('Deployment', 'worker', 'readinessProbe.initialDelaySeconds')} 7200 is more than Netmortem runs; 3600 used`,
      `${probeField('Deployment', 'worker', 'readinessProbe.timeoutSeconds')} -1 is not a whole number from 1, which Kubernetes refuses; the default used`,
      `${probeField('Deployment', 'worker', 'readinessProbe.failureThreshold')} 2.5 is not a whole number from 1, which Kubernetes refuses; the default used`,
      `${probeField('Deployment', 'worker', 'readinessProbe.terminationGracePeriodSeconds')} ignored`,
      `${probeField('Deployment', 'worker', 'livenessProbe.successThreshold')} 3 is not 1, which Kubernetes refuses for a liveness probe; 1 used`,
    ]);
    load(result.scenarioText);
  });

  it('leaves out a probe without a port or with two handlers, saying why', () => {
    const container = `        - name: cache
          image: redis:7
          ports: [{ name: redis, containerPort: 6379 }]
          readinessProbe:
            periodSeconds: 5
          livenessProbe:
            tcpSocket: { port: redis }
            exec: { command: [redis-cli, ping] }`;
    const result = importManifests(workload('Deployment', 'cache', container));
    const cache = parsed(result.scenarioText).topology.deployments['cache']!;
    expect(cache['readinessProbe']).toBeUndefined();
    expect(cache['livenessProbe']).toBeUndefined();
    expect(result.notUnderstood).toEqual([
      `${probeField('Deployment', 'cache', 'readinessProbe')} has no handler, where Kubernetes takes exactly one of httpGet, tcpSocket, exec, grpc; the probe is left out`,
      `${probeField('Deployment', 'cache', 'livenessProbe')} has tcpSocket and exec, where Kubernetes takes exactly one of httpGet, tcpSocket, exec, grpc; the probe is left out`,
    ]);
    const portless = importManifests(workload('Deployment', 'cache', container.replace('periodSeconds: 5', 'tcpSocket: {}')));
    expect(portless.notUnderstood[0]).toBe(`${probeField('Deployment', 'cache', 'readinessProbe.tcpSocket.port')} is missing, which Kubernetes refuses; the probe is left out`);
  });

  it('runs the imported probes: a new pod turns ready only once its readiness probe passes, initialDelaySeconds after it starts', () => {
    const doc = parse(importManifests(PAYMENTS).scenarioText) as Record<string, unknown>;
    // api scales from 2 to 3 at 5 s: api-2 is created then and its container starts params.kube.podStartSeconds (2 s) later.
    doc['timeline'] = [{ at: 5, fault: 'scale-deployment', target: 'deployment/api', params: { replicas: 3 } }];
    const sim = createSim(loadText(stringify(doc)));
    sim.runUntil(atSeconds(20));
    const at = (kind: string) =>
      sim
        .eventsSince(0)
        .filter((e) => e.kind === kind && e.entity === 'pod/api-2')
        .map((e) => Math.round(e.t / 1e4) / 100);
    expect(at('pod.started')).toEqual([7]);
    // Probed at 11 s (7 + initialDelaySeconds 4) and 13 s: ready at the second pass in a row (successThreshold 2).
    expect(at('pod.ready')).toEqual([13]);
    const report = sim.report(0);
    expect(report.totals['kubelet.probes.sent']).toBeGreaterThan(10);
    expect(report.totals['kubelet.probes.failed{probe=readiness}'] ?? 0).toBe(0);
    expect(report.totals['kubelet.probes.failed{probe=liveness}'] ?? 0).toBe(0);
    expect(report.totals['requests.ok']).toBeGreaterThan(100);
    expect(report.totals['requests.failed'] ?? 0).toBe(0);
  });
});

describe('importManifests: text it cannot read', () => {
  it('names the document and line of a YAML error', () => {
    const message = errorOf(() => importManifests('kind: ConfigMap\nmetadata: { name: a }\n---\nkind: Service\nmetadata: { name: [web\nspec: {}\n'));
    expect(message).toMatch(/^document 2, line \d+: not valid YAML/);
    expect(Number(/line (\d+)/.exec(message)![1])).toBeGreaterThanOrEqual(5);
  });

  it('names the place when no object has a kind', () => {
    expect(errorOf(() => importManifests('apiVersion: v1\nmetadata: { name: a }\n'))).toMatch(/^document 1, line 1: no Kubernetes object found/);
    expect(errorOf(() => importManifests('just some words'))).toMatch(/^document 1, line 1: /);
    expect(errorOf(() => importManifests(''))).toMatch(/^document 1, line 1: /);
  });

  it('skips documents without a kind beside ones with a kind', () => {
    const result = importManifests(`${deployment('web', '{ app: web }')}---\nfoo: bar\n`);
    expect(result.notUnderstood[0]).toMatch(/^document 2, line \d+: no "kind"; skipped$/);
  });
});
