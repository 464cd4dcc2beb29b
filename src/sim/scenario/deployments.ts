import { z } from './zod';
import { cidrv4, dnsLabel, dnsLabelOf, labelKey, MAX_POD_RATE, MAX_RUN_S, MIN_RATE, port, requiredFor } from './formats';

export const MAX_REPLICAS = 20_000;

const intOrPercent = z.union([
  z.number().int().min(0).max(MAX_REPLICAS),
  z.string().regex(/^(100|[1-9]?\d)%$/, { error: 'must be a count or a percentage like 25%' }) as z.ZodType<`${number}%`>,
]);

// A probe's count of results in a row: Kubernetes' minimum 1; at most an hour of probes a second (docs/limits.md#counts).
const threshold = z.number().int().min(1).max(MAX_RUN_S);
// A probe's seconds: Kubernetes' minimum 1, within the longest run (docs/limits.md#periods).
const probeSeconds = z.number().int().min(1).max(MAX_RUN_S);

/**
 * The kubelet's probe of a container, from the node to the pod's address: a `tcpSocket` connect or an `httpGet` on a
 * port (the deployment's when left out). Defaults are Kubernetes' (docs/sources/kubernetes.md#container-probes).
 */
function probeSchema(kind: 'readiness' | 'liveness') {
  const action = z.strictObject({ port: port.optional() });
  return z
    .strictObject({
      tcpSocket: action.optional(),
      httpGet: action.optional(),
      initialDelaySeconds: z.number().int().min(0).max(MAX_RUN_S).default(0),
      periodSeconds: probeSeconds.default(10),
      timeoutSeconds: probeSeconds.default(1),
      failureThreshold: threshold.default(3),
      // Must be 1 for a liveness probe (Probe API reference).
      successThreshold: kind === 'liveness' ? z.literal(1).default(1) : threshold.default(1),
    })
    .refine((p) => (p.tcpSocket === undefined) !== (p.httpGet === undefined), { error: 'needs exactly one of tcpSocket or httpGet' });
}
/**
 * Pod anti-affinity against the deployment's own pods, as a manifest's labelSelector on its app label writes it
 * (docs/sources/kubernetes-scheduling.md#inter-pod-anti-affinity).
 */
const podAntiAffinity = z.strictObject({
  // requiredDuringSchedulingIgnoredDuringExecution: no two pods in one domain of the key.
  required: z.array(z.strictObject({ topologyKey: labelKey })).default([]),
  // preferredDuringSchedulingIgnoredDuringExecution: a score against domains that already hold pods; weight 1 to 100.
  preferred: z.array(z.strictObject({ weight: z.number().int().min(1).max(100), topologyKey: labelKey })).default([]),
});

/** A topologySpreadConstraint over the deployment's own pods (docs/sources/kubernetes-scheduling.md#topology-spread-constraints). */
const spreadConstraint = z.strictObject({
  // Required in the API; 0 is not allowed.
  maxSkew: z.number().int().min(1).max(MAX_REPLICAS),
  topologyKey: labelKey,
  whenUnsatisfiable: z.enum(['DoNotSchedule', 'ScheduleAnyway']),
});

/** What every deployment has, whatever app its pods run: the workload controller's fields. */
const workload = {
  // A DaemonSet runs one pod on every node its `nodes` allow and takes no replica count.
  kind: z.enum(['Deployment', 'DaemonSet']).default('Deployment'),
  // Required for a Deployment. Model choice: up to 20,000, ten times the first incident's clients (its bench scales to it).
  replicas: z.number().int().min(0).max(MAX_REPLICAS).optional(),
  // A nodeSelector by node name: pods go only to these nodes; any node when left out.
  nodes: z.array(z.string()).min(1).optional(),
  // Model choice: the port the server listens on inside the pod.
  port: port.default(8080),
  // RollingUpdate strategy: a Deployment defaults both to 25 %, a DaemonSet to maxSurge 0 and maxUnavailable 1 (API reference).
  maxSurge: intOrPercent.optional(),
  maxUnavailable: intOrPercent.optional(),
  // terminationGracePeriodSeconds defaults to 30 (docs/sources/kubernetes.md#pod-termination).
  terminationGracePeriodSeconds: z.number().min(0).max(3600).default(30),
  // A preStop hook that sleeps before SIGTERM (docs/sources/kubernetes.md#pod-termination); none by default.
  preStopSeconds: z.number().min(0).max(3600).default(0),
  // Creation to the container's start for this deployment's new pods, which is Ready unless a readiness probe gates it;
  // params.kube.podStartSeconds when left out.
  readySeconds: z.number().min(0).max(3600).optional(),
  // The kubelet's probes of the pod's container; none when left out, as in Kubernetes.
  readinessProbe: probeSchema('readiness').optional(),
  livenessProbe: probeSchema('liveness').optional(),
  podAntiAffinity: podAntiAffinity.optional(),
  topologySpreadConstraints: z.array(spreadConstraint).default([]),
};

// A HorizontalPodAutoscaler on requests per second per ready pod; params.hpa holds the controller's settings.
const autoscale = z
  .strictObject({
    minReplicas: z.number().int().min(1).max(10_000).default(1),
    maxReplicas: z.number().int().min(1).max(10_000),
    targetRequestsPerSecond: z.number().min(MIN_RATE).max(MAX_POD_RATE),
  })
  .optional();

const serviceTarget = (app: string) => z.string(requiredFor(`an ${app} deployment (name a service)`));

// A gRPC target: a DNS name and a port.
const GRPC_TARGET = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?:\d{1,5}$/;

const httpServer = z.strictObject({
  app: z.literal('http-server'),
  ...workload,
  // CPU time per request (on a thread of its own, before its service time); 0 leaves CPU out.
  cpuPerRequestMs: z.number().min(0).max(10_000).default(0),
  // limits.cpu in cores: quota = limit × params.cpu.periodMs per period
  // (docs/sources/linux-cfs.md#kubernetes-cpu-limits); 0 or left out, no limit.
  cpuLimit: z.number().min(0).max(512).optional(),
  // Services each request calls, all at once, once its CPU work is done; it is answered a service time after the last
  // call returns, and fails (a 502) when any call does. Model choice: parallel calls, as a handler's fan-out makes them.
  calls: z.array(z.string()).default([]),
  autoscale,
});

const ingressProxy = z.strictObject({
  app: z.literal('ingress-proxy'),
  ...workload,
  // The Service it forwards every request to.
  target: serviceTarget('ingress-proxy'),
  // Peers whose X-Forwarded-For it keeps and appends to; from any other peer it replaces the header. Traefik's
  // entryPoints forwardedHeaders.trustedIPs is empty by default, trusting no one.
  trustedIps: z.array(cidrv4).default([]),
  autoscale,
});

const httpClient = z.strictObject({
  app: z.literal('http-client'),
  ...workload,
  // The Service it sends requests to.
  target: serviceTarget('http-client'),
});

const dnsClient = z.strictObject({
  app: z.literal('dns-client'),
  ...workload,
  // What it looks up, e.g. a Route 53 name or `web` (a Service, through the search list).
  lookup: z.string(requiredFor('a dns-client deployment (a name to resolve)')).min(1).max(253),
});

const grpcServer = z.strictObject({
  app: z.literal('grpc-server'),
  ...workload,
  // What it resolves through its DNS path before serving each query (its index and store, say).
  dependencies: z.array(z.string().min(1).max(253)).default([]),
});

const grpcClient = z.strictObject({
  app: z.literal('grpc-client'),
  ...workload,
  // host:port, resolved through the pod's DNS path as gRPC's dns resolver does.
  target: z.string(requiredFor('a grpc-client deployment (host:port, resolved through DNS)')).regex(GRPC_TARGET, { error: 'must be host:port, like metric.example.com:9090' }),
});

const meshServer = z.strictObject({
  app: z.literal('mesh-server'),
  ...workload,
  // Its name in service discovery: it registers under /services/<announce> in ZooKeeper.
  announce: dnsLabelOf('a mesh-server deployment (the name it registers under)'),
  // Who registers it: nerve health-checks it (docs/sources/service-discovery.md#nerve); the Kubernetes mini announcer
  // waits until the pod is ready and deregisters in its preStop hook.
  announcer: z.enum(['nerve', 'mini-announcer']).default('nerve'),
});

const meshClient = z.strictObject({
  app: z.literal('mesh-client'),
  ...workload,
  // The discovered services it sends requests to, through a local HAProxy (kept by synapse) or Envoy (fed over xDS).
  uses: z.array(dnsLabel, requiredFor('a mesh-client deployment (the announced services it calls)')).min(1),
});

/** A deployment: its workload fields and, by `app`, the fields of the app its pods run. */
export const deploymentSchema = z.discriminatedUnion('app', [httpServer, httpClient, ingressProxy, dnsClient, grpcServer, grpcClient, meshServer, meshClient]);

export type Deployment = z.output<typeof deploymentSchema>;
export type ProbeSpec = NonNullable<Deployment['readinessProbe']>;
export type AppName = Deployment['app'];
export type DeploymentOf<A extends AppName> = Extract<Deployment, { app: A }>;

/** What each app kind needs besides its own fields: a part of the topology, and whether a Service may select it. */
export interface AppNeeds {
  /** The topology part its pods cannot run without. */
  topology?: 'dns' | 'zookeeper';
  /** It answers HTTP on its port, so a Service may select it. */
  servesHttp?: true;
}

export const APP_NEEDS: { readonly [A in AppName]: AppNeeds } = {
  'http-server': { servesHttp: true },
  'http-client': {},
  'ingress-proxy': { servesHttp: true },
  'dns-client': { topology: 'dns' },
  'grpc-server': {},
  'grpc-client': { topology: 'dns' },
  'mesh-server': { topology: 'zookeeper' },
  'mesh-client': { topology: 'zookeeper' },
};

export const APPS = Object.keys(APP_NEEDS) as AppName[];
export const HTTP_SERVING_APPS: readonly string[] = APPS.filter((app) => APP_NEEDS[app].servesHttp);
