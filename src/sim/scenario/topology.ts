import { z } from './zod';

// Kubernetes IsDNS1123Label: lower-case alphanumerics and '-', alphanumeric at both ends, at most 63 characters.
const DNS1123_LABEL = /^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// Kubernetes IsDNS1035Label (required for Service names): like a DNS-1123 label but starting with a letter.
const DNS1035_LABEL = /^(?=.{1,63}$)[a-z]([-a-z0-9]*[a-z0-9])?$/;

export const dnsLabel = z.string().regex(DNS1123_LABEL, {
  error: 'must be a DNS-1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit, at most 63 characters',
});

const serviceName = z.string().regex(DNS1035_LABEL, {
  error: 'must be a DNS-1035 label: lower-case letters, digits and "-", starting with a letter, at most 63 characters',
});

export const ipv4 = z.ipv4({ error: 'not an IPv4 address' });
const cidrv4 = z.cidrv4({ error: 'not an IPv4 CIDR block (like 10.244.1.0/24)' });
const port = z.number().int().min(1).max(65535);

const pod = z.strictObject({
  name: dnsLabel,
  deployment: z.string(),
  ip: ipv4.optional(),
});

const node = z.strictObject({
  name: dnsLabel,
  ip: ipv4,
  podCidr: cidrv4,
  // A cloud instance sits behind a hypervisor with allowances; a bare-metal host does not.
  platform: z.enum(['bare-metal', 'cloud']).default('bare-metal'),
  // Instance size in units of the per-size allowances (params.instance); twice as large doubles them.
  size: z.number().gt(0).max(64).default(1),
  pods: z.array(pod).default([]),
  // false: racked and cabled but not yet registered with the cluster (no pods, no speaker, in no pool); join-node registers it.
  joined: z.boolean().default(true),
});

// mesh-server: a backend announced in ZooKeeper; mesh-client: a client host reaching such backends through a local
// HAProxy (kept by synapse) or Envoy (fed over xDS).
export const APPS = ['http-server', 'http-client', 'ingress-proxy', 'dns-client', 'grpc-server', 'grpc-client', 'mesh-server', 'mesh-client'] as const;
/** Apps that answer HTTP on their port, so a Service may select them. */
export const HTTP_SERVING_APPS: readonly string[] = ['http-server', 'ingress-proxy'];

const intOrPercent = z.union([z.number().int().min(0), z.string().regex(/^(100|[1-9]?\d)%$/, { error: 'must be a count or a percentage like 25%' }) as z.ZodType<`${number}%`>]);

export const MAX_REPLICAS = 20_000;

const deployment = z.strictObject({
  app: z.enum(APPS),
  // A DaemonSet runs one pod on every node its `nodes` allow and takes no replica count.
  kind: z.enum(['Deployment', 'DaemonSet']).default('Deployment'),
  // Required for a Deployment. Model choice: up to 20,000, ten times the first incident's clients (its bench scales to it).
  replicas: z.number().int().min(0).max(MAX_REPLICAS).optional(),
  // A nodeSelector by node name: pods go only to these nodes; any node when left out.
  nodes: z.array(z.string()).min(1).optional(),
  // Model choice: the port the server listens on inside the pod.
  port: port.default(8080),
  target: z.string().optional(),
  // What a dns-client deployment looks up, e.g. a Route 53 name or `web` (a Service, through the search list).
  lookup: z.string().min(1).max(253).optional(),
  // What a grpc-server resolves through its DNS path before serving each query (its index and store, say).
  dependencies: z.array(z.string().min(1).max(253)).default([]),
  // RollingUpdate strategy: a Deployment defaults both to 25 %, a DaemonSet to maxSurge 0 and maxUnavailable 1 (API reference).
  maxSurge: intOrPercent.optional(),
  maxUnavailable: intOrPercent.optional(),
  // terminationGracePeriodSeconds defaults to 30 (docs/sources/kubernetes.md#pod-termination).
  terminationGracePeriodSeconds: z.number().min(0).max(3600).default(30),
  // A preStop hook that sleeps before SIGTERM (docs/sources/kubernetes.md#pod-termination); none by default.
  preStopSeconds: z.number().min(0).max(3600).default(0),
  // Creation to Ready for this deployment's new pods; params.kube.podStartSeconds when left out.
  readySeconds: z.number().min(0).max(3600).optional(),
  // An ingress-proxy's peers whose X-Forwarded-For it keeps and appends to; from any other peer it replaces the
  // header. Traefik's entryPoints forwardedHeaders.trustedIPs is empty by default, trusting no one.
  trustedIps: z.array(cidrv4).default([]),
  // An http-server's CPU time per request (on a thread of its own, before its service time); 0 leaves CPU out.
  cpuPerRequestMs: z.number().min(0).max(10_000).default(0),
  // A HorizontalPodAutoscaler on requests per second per ready pod; params.hpa holds the controller's settings.
  autoscale: z
    .strictObject({
      minReplicas: z.number().int().min(1).max(10_000).default(1),
      maxReplicas: z.number().int().min(1).max(10_000),
      targetRequestsPerSecond: z.number().gt(0),
    })
    .optional(),
  // limits.cpu in cores: quota = limit × params.cpu.periodMs per period
  // (docs/sources/linux-cfs.md#kubernetes-cpu-limits); 0 or left out, no limit.
  cpuLimit: z.number().min(0).max(512).optional(),
  // A mesh-server's name in service discovery: it registers under /services/<announce> in ZooKeeper.
  announce: dnsLabel.optional(),
  // Who registers a mesh-server: nerve health-checks it (docs/sources/service-discovery.md#nerve); the Kubernetes mini
  // announcer waits until the pod is ready and deregisters in its preStop hook.
  announcer: z.enum(['nerve', 'mini-announcer']).default('nerve'),
  // The discovered services a mesh-client sends requests to.
  uses: z.array(dnsLabel).min(1).optional(),
});

const service = z.strictObject({
  selector: z.string(),
  clusterIp: ipv4,
  port: port.default(80),
  type: z.enum(['ClusterIP', 'NodePort', 'LoadBalancer']).default('ClusterIP'),
  // kube-apiserver --service-node-port-range default 30000-32767; unset ports are allocated.
  nodePort: z.number().int().min(30000).max(32767).optional(),
  loadBalancerIp: ipv4.optional(),
  // Kubernetes defaults externalTrafficPolicy to Cluster (docs/sources/kube-proxy.md#externaltrafficpolicy).
  externalTrafficPolicy: z.enum(['Cluster', 'Local']).default('Cluster'),
});

const hostname = z.string().regex(/^(?=.{1,253}$)([a-z0-9]([-a-z0-9]*[a-z0-9])?\.)*[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, {
  error: 'must be a lower-case DNS name like metric.example.com',
});

/** external-dns publishing one name whose A records are a deployment's pod addresses (a headless Service's); its loop is params.externalDns. */
const externalDns = z.strictObject({
  hostname,
  deployment: z.string(),
});

/** The cluster's DNS: CoreDNS behind kube-dns, optionally node-local DNS, and the cloud resolver with a provider's records. */
const dns = z.strictObject({
  // kube-dns's ClusterIP: pods' nameserver.
  clusterIp: ipv4,
  // kube-dns-upstream's ClusterIP: where node-local DNS sends the cluster zone (over TCP).
  upstreamClusterIp: ipv4,
  // kubeadm deploys CoreDNS with 2 replicas.
  replicas: z.number().int().min(1).max(50).default(2),
  nodeLocal: z.boolean().default(false),
  // The Amazon-provided DNS resolver's link-local address (docs/sources/dns.md#amazon-provided-dns).
  resolverIp: ipv4.default('169.254.169.253'),
  records: z.record(hostname, z.array(ipv4).min(1)).default({}),
  // external-dns writes Route 53 records with TTL 300 s unless told otherwise (docs/sources/dns.md#external-dns).
  recordTtl: z.number().int().min(0).default(300),
  externalDns: externalDns.optional(),
});

const router = z.strictObject({
  name: dnsLabel,
  // Its address on the node network, where BGP speakers peer.
  ip: ipv4,
  // Legacy Linux multipath and many ToRs use hash-threshold (docs/sources/load-balancers.md#ecmp-hash-threshold).
  ecmp: z.enum(['modulo', 'hash-threshold', 'resilient']).default('hash-threshold'),
});

/**
 * MetalLB in BGP mode: speakers on nodes announce LoadBalancer IPs to a router
 * (docs/sources/load-balancers.md#metallb-bgp-mode).
 */
const bgp = z.strictObject({
  router: z.string(),
  // Nodes that run a speaker; all nodes when left out.
  speakers: z.array(z.string()).optional(),
});

const virtualServer = z.strictObject({
  name: dnsLabel,
  vip: ipv4,
  port: port,
  // The Service whose node ports (members: nodes) or pods (members: pods) form the pool.
  service: z.string(),
  // F5 CIS --pool-member-type: nodeport (node IP:NodePort) or cluster (pod IPs)
  // (docs/sources/load-balancers.md#container-ingress-services).
  members: z.enum(['nodes', 'pods']).default('nodes'),
  // With members: nodes, only these nodes become members (CIS's --node-label-selector picks them by label); every
  // joined node when left out. Pod members ignore it, so fixes that set either one still combine.
  memberNodes: z.array(z.string()).optional(),
});

const loadBalancer = z.strictObject({
  name: dnsLabel,
  // Its self IP: the source of SNATed connections and of health probes.
  ip: ipv4,
  virtualServers: z.array(virtualServer).min(1),
});

/** A machine on the internet running an HTTP client against an address (a VIP or a LoadBalancer IP). */
const externalClient = z.strictObject({
  name: dnsLabel,
  ip: ipv4,
  targetIp: ipv4,
  targetPort: port,
  // An X-Forwarded-For value the client writes into its own requests, like "1.2.3.4": a spoofing client.
  forwardedFor: z
    .string()
    .max(200)
    .regex(/^[\w .:,-]*$/, { error: 'must be a header value like "1.2.3.4, 5.6.7.8"' })
    .optional(),
});

/** The ZooKeeper ensemble of service discovery; params.zookeeper holds its capacities. */
const zookeeper = z.strictObject({
  // Model choice: a five-server ensemble, the usual size for a production quorum.
  servers: z.number().int().min(1).max(15).default(5),
});

export const topologySchema = z.strictObject({
  nodes: z.array(node).min(1),
  deployments: z.record(dnsLabel, deployment),
  services: z.record(serviceName, service).default({}),
  dns: dns.optional(),
  routers: z.array(router).default([]),
  bgp: bgp.optional(),
  loadBalancers: z.array(loadBalancer).default([]),
  externalClients: z.array(externalClient).default([]),
  zookeeper: zookeeper.optional(),
});
