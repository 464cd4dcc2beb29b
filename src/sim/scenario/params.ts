import { envoyParams } from '../discovery/envoy-params';
import { haproxyParams } from '../discovery/haproxy-params';
import { kubeParams } from '../k8s/kube-params';
import { tcpParams } from '../net/tcp-params';
import { RECONNECT_INTERVAL_MS } from '../apps/grpc/backoff';
import { MAX_REPLICAS } from './topology';
import { z } from './zod';

/** Tunable mechanism parameters. Every key is optional; a missing key takes the default written beside it. */

const engine = z.strictObject({
  // Connection attempts that nothing can tell apart run as a counted cohort (docs/cohorts.md): the same results in a
  // fraction of the time. false gives every attempt its own socket, timers and kept conntrack entries: the
  // per-packet model the cohorts are checked against.
  cohorts: z.boolean().default(true),
});

const network = z.strictObject({
  // One-way latency of one hop (veth or wire); a same-rack hop in a data centre is tens of microseconds.
  hopLatencyUs: z.number().int().min(0).default(50),
});

const client = z.strictObject({
  // Model choice: a steady, light load per client pod.
  requestsPerSecond: z.number().gt(0).default(10),
  // Model choice: one keep-alive connection per pod, like a simple HTTP client with pooling.
  connectionsPerPod: z.number().int().min(1).max(64).default(1),
  // Model choice: delay before reconnecting after a connection fails or is reset.
  reconnectMs: z.number().min(0).default(1000),
  // Close a connection after this many answered requests and dial a new one at once; 0 keeps it for good. Servers cap
  // keep-alive the same way (nginx keepalive_requests, default 1000), which is what makes new connections all day.
  requestsPerConnection: z.number().int().min(0).default(0),
  // Model choice: application connect timeout, shorter than the kernel's SYN retry budget.
  connectTimeoutMs: z.number().gt(0).default(5000),
  // Model choice: per-request deadline.
  requestTimeoutMs: z.number().gt(0).default(2000),
});

const dnsClient = z.strictObject({
  // Model choice: a service resolving its dependencies once a second.
  lookupsPerSecond: z.number().gt(0).default(1),
});

const server = z.strictObject({
  // Model choice: mean request processing time of a light HTTP handler.
  serviceTimeMs: z.number().min(0).default(5),
});

/** CPU bandwidth control for containers with a CPU limit (docs/sources/linux-cfs.md). */
const cpu = z.strictObject({
  // cpu.cfs_period_us defaults to 100 ms, and kubelet's --cpu-cfs-quota-period with it
  // (docs/sources/linux-cfs.md#bandwidth-control, #kubernetes-cpu-limits).
  periodMs: z.number().min(1).max(1000).default(100),
  // sched_cfs_bandwidth_slice_us defaults to 5 ms (docs/sources/linux-cfs.md#bandwidth-control).
  sliceMs: z.number().gt(0).max(1000).default(5),
  // Kernels from 5.4 carry a CPU's unused runtime over; 4.18 to 5.3 expire it each period
  // (docs/sources/linux-cfs.md#slice-expiry-bug).
  kernel: z.enum(['expiring', 'fixed']).default('fixed'),
});

/** The HorizontalPodAutoscaler controller (kube-controller-manager flags). */
const hpa = z.strictObject({
  // --horizontal-pod-autoscaler-sync-period 15 s.
  syncPeriodS: z.number().gt(0).max(600).default(15),
  // --horizontal-pod-autoscaler-tolerance 0.1.
  tolerance: z.number().min(0).max(1).default(0.1),
  // --horizontal-pod-autoscaler-downscale-stabilization 5 min.
  downscaleStabilizationS: z.number().min(0).max(3600).default(300),
});

const kubeProxy = z.strictObject({
  // kube-proxy minSyncPeriod 1 s (docs/sources/kube-proxy.md#sync-rate-limit).
  minSyncPeriodMs: z.number().min(0).default(1000),
  // kube-proxy syncPeriod 30 s (docs/sources/kube-proxy.md#sync-rate-limit).
  syncPeriodS: z.number().gt(0).default(30),
  // Partial restores (MinimizeIPTablesRestore) are GA and on from Kubernetes 1.28
  // (docs/sources/kube-proxy.md#full-and-partial-restores); `full` is before.
  restore: z.enum(['full', 'partial']).default('partial'),
  // Model choice: 10 µs per rule puts 150k endpoints × 3 rules near the 4–5 s iptables runs of kubernetes#92836
  // (docs/sources/kube-proxy.md#full-and-partial-restores).
  syncCostPerRuleUs: z.number().min(0).default(10),
  // The rest of a large cluster, not simulated as pods: Services and endpoints whose rules every node still holds. A
  // full restore rewrites all of them; a partial one only their jump rules.
  otherServices: z.number().int().min(0).max(100_000).default(0),
  otherEndpoints: z.number().int().min(0).max(1_000_000).default(0),
});

const lb = z.strictObject({
  // BIG-IP HTTP/TCP monitor interval 5 s (docs/sources/load-balancers.md#big-ip-health-monitors).
  monitorIntervalS: z.number().gt(0).default(5),
  // BIG-IP monitor timeout 16 s = 3 × interval + 1 (docs/sources/load-balancers.md#big-ip-health-monitors).
  monitorTimeoutS: z.number().gt(0).default(16),
  // Whether members whose health is still unknown get new connections; unconfirmed, the bare-metal talk says yes
  // (docs/sources/load-balancers.md#members-with-unknown-health).
  unknownReceivesTraffic: z.boolean().default(true),
  // `after-healthy` is the operator patch: a new member gets traffic only after its first good probe.
  activation: z.enum(['immediate', 'after-healthy']).default('immediate'),
  // F5 CIS configures SNAT automap by default; unconfirmed (docs/sources/load-balancers.md#snat-automap).
  snat: z.boolean().default(true),
  // The HTTP profile's Insert X-Forwarded-For is off in the parent profile, unconfirmed
  // (docs/sources/load-balancers.md#forwarded-headers): `preserve` leaves the header as the client sent it; `append`
  // adds the client's address; `replace` drops what the client sent first.
  xff: z.enum(['preserve', 'append', 'replace']).default('preserve'),
});

const bgpParams = z.strictObject({
  // Model choice: UPDATE processing plus FIB programming on a ToR, a few hundred milliseconds.
  convergenceMs: z.number().min(0).default(500),
});

const dns = z.strictObject({
  // node-local DNS's forward max_concurrent; 0 = unset, as the NodeLocal DNSCache manifest ships it
  // (docs/sources/dns.md#nodelocal-dnscache).
  maxConcurrent: z.number().int().min(0).default(0),
  // The forward plugin's per-request deadline, defaultTimeout 5 s
  // (docs/sources/dns.md#request-deadline-and-read-timeout).
  upstreamTimeoutS: z.number().gt(0).max(60).default(5),
});

const externalDns = z.strictObject({
  // external-dns --interval 1m (docs/sources/dns.md#external-dns).
  intervalS: z.number().gt(0).default(60),
  // --events off (docs/sources/dns.md#external-dns).
  events: z.boolean().default(false),
  // When a pod's address leaves the record: when the pod is deleted (as in the first incident) or already at SIGTERM.
  deregisterOn: z.enum(['delete', 'sigterm']).default('delete'),
  // The record's TTL annotation (external-dns.alpha.kubernetes.io/ttl); without one Route 53 records get 300 s
  // (docs/sources/dns.md#external-dns).
  recordTtlS: z.number().int().min(1).max(172_800).optional(),
});

/** Calico's IPAM, for the routed and IPIP pod networks. */
const calico = z.strictObject({
  // `node-cidr`: a node hands out its podCidr like the host-local plugin; `blocks`: Calico's block affinity, blocks of
  // blockSize claimed from the node's pool on demand, lowest free address first
  // (docs/sources/calico.md#ip-pools-and-blocks).
  ipam: z.enum(['node-cidr', 'blocks']).default('node-cidr'),
  // IPPool blockSize defaults to 26: 64 addresses a block (docs/sources/calico.md#ip-pools-and-blocks).
  blockSize: z.number().int().min(20).max(32).default(26),
  // kube-controllers' IPAM garbage collection confirms a leak after a 15 min grace (calico#5044,
  // docs/sources/calico.md#leak-garbage-collection).
  leakGraceS: z.number().min(0).max(86_400).default(900),
});

const rpFilter = z.union([z.literal(0), z.literal(1), z.literal(2)], { error: 'must be 0 (off), 1 (strict) or 2 (loose)' });

const node = z.strictObject({
  // systemd's sysctl.d/50-default.conf sets rp_filter = 2 (loose) on most distributions
  // (docs/sources/linux-routing-rp-filter.md#distribution-defaults).
  rpFilter: rpFilter.default(2),
  // Model choice: a typical worker; kube-proxy sizes conntrack from the core count
  // (docs/sources/linux-conntrack.md#kube-proxy-settings), and a container's threads spread over the cores under CPU
  // bandwidth control.
  cores: z.number().int().min(1).max(512).default(8),
  // Unset: kube-proxy's max(131072, 32768 × cores) (docs/sources/linux-conntrack.md#kube-proxy-settings).
  conntrackMax: z.number().int().min(1).optional(),
  // How pod addresses reach the node: routed per-node blocks (Calico BGP-style), IP-in-IP between nodes over tunl0
  // (Calico IPIP), or a secondary cloud interface (Cilium ENI mode).
  podNetwork: z.enum(['routed', 'ipip', 'eni']).default('routed'),
  // Cilium in ENI mode leaves the pod interface without an IPv4 address of its own
  // (docs/sources/incidents.md#it-wasnt-dns).
  podInterfaceHasIp: z.boolean().default(false),
  // Calico's tunnel-ip-allocator gives tunl0 the first address of the node's block
  // (docs/sources/calico.md#tunnel-address).
  tunnelHasIp: z.boolean().default(true),
  // Model choice: the CNI removes a deleted pod's ip rule as it cleans up the endpoint, at once.
  sourceRuleGcSeconds: z.number().min(0).default(0),
});

const instance = z.strictObject({
  // AWS does not publish tracked-connection maxima; a third-party benchmark saw ~77k on a large size
  // (docs/sources/cloud-hypervisor.md#tracked-connection-allowance). Per size unit.
  conntrackAllowance: z.number().int().min(1).default(75_000),
  // Model choice: AWS does not publish PPS maxima either; a few hundred thousand packets per second per size unit.
  ppsAllowance: z.number().gt(0).default(400_000),
  // Security-group rules that allow all traffic both ways leave flows untracked
  // (docs/sources/cloud-hypervisor.md#security-group-connection-tracking).
  untracked: z.boolean().default(false),
  // AWS ConnectionTrackingConfiguration default TcpEstablishedTimeout 432000 s
  // (docs/sources/cloud-hypervisor.md#security-group-connection-tracking).
  tcpEstablishedTimeoutS: z.number().min(60).max(432_000).default(432_000),
  // Model choice: AWS publishes no timeout for flows that never complete a handshake; Linux keeps SYN_SENT 120 s
  // (docs/sources/linux-conntrack.md#timeouts).
  tcpUnestablishedTimeoutS: z.number().gt(0).default(120),
  // AWS default UdpTimeout 30 s (docs/sources/cloud-hypervisor.md#security-group-connection-tracking).
  udpTimeoutS: z.number().min(30).max(60).default(30),
  // AWS default UdpStreamTimeout 180 s (docs/sources/cloud-hypervisor.md#security-group-connection-tracking).
  udpStreamTimeoutS: z.number().min(60).max(180).default(180),
  // Model choice: the cloud detaches a deleted pod's secondary address from the instance's interface some seconds later.
  ipReleaseDelayS: z.number().min(0).default(30),
  // EC2 checks source/destination by default: an instance may only send from its own addresses.
  sourceDestCheck: z.boolean().default(true),
  // Model choice: the incident's m5.4xlarge at AWS's commonly listed us-east-1 on-demand rate, $0.768/h (m5.large $0.096 × 8).
  hourlyCost: z.number().min(0).default(0.768),
});

/** The ZooKeeper ensemble that service discovery registers in and reads from (topology.zookeeper sizes it). */
const zookeeper = z.strictObject({
  // Model choice: reads one server answers per second from memory; ZooKeeper's own benchmarks reach tens of thousands.
  readsPerSecond: z.number().gt(0).default(20_000),
  // Model choice: the packets per second a ZooKeeper host's network interface allows before the hypervisor drops the
  // excess; the talk met such a limit on EC2 without a published number
  // (docs/sources/incidents.md#service-discovery-at-scale).
  ppsAllowance: z.number().gt(0).default(60_000),
  // Model choice: the packet-rate alert on each ZooKeeper host fires above this rate.
  alarmPps: z.number().gt(0).default(40_000),
  // Model choice: round trip between a pod and a ZooKeeper server in the same region.
  rttMs: z.number().gt(0).default(0.5),
  // Model choice: sessions of 10 s; ZooKeeper bounds a session to 2–20 ticks (tickTime 2 s by default: 4–40 s).
  sessionTimeoutS: z.number().min(1).max(120).default(10),
  // How a watcher reads a service: getChildren plus one getData per child (synapse,
  // docs/sources/service-discovery.md#zookeeper-reads), or the whole tree in one round trip (the talk's fix).
  read: z.enum(['children-then-data', 'single-roundtrip']).default('children-then-data'),
  // Model choice: a registration written as raw JSON strings (host, port, name, labels, weights and the service's
  // proxy options) takes about 1.8 kB, more than one TCP segment.
  recordBytes: z.number().int().min(1).max(1_000_000).default(1800),
  // `compact`: the same registration serialised in a compact binary form (the talk's encoding fix).
  encoding: z.enum(['raw', 'compact']).default('raw'),
  // Model choice: the compact form of one registration.
  compactRecordBytes: z.number().int().min(1).max(1_000_000).default(120),
  // Model choice: one child's name in a getChildren answer (a host name, address and sequence number).
  nameBytes: z.number().int().min(1).max(1000).default(48),
  // Model choice: in a single-roundtrip read, serving one record costs a tenth of a whole request.
  recordCost: z.number().min(0).max(1).default(0.1),
});

/**
 * nerve, the SmartStack agent that health-checks a service and registers it (docs/sources/service-discovery.md#nerve).
 */
const nerve = z.strictObject({
  // check_interval 0.5 s, rise 1, fall 1 (docs/sources/service-discovery.md#nerve); a stopped app refuses the check at
  // once, so nerve's 100 ms check timeout never comes into play.
  checkIntervalMs: z.number().gt(0).default(500),
  rise: z.number().int().min(1).max(100).default(1),
  fall: z.number().int().min(1).max(100).default(1),
  // Model choice: the Kubernetes mini announcer polls the API server for its pod's container statuses every second.
  announcerPollMs: z.number().gt(0).default(1000),
});

/**
 * synapse, the SmartStack watcher that turns ZooKeeper's view of a service into HAProxy configuration
 * (docs/sources/service-discovery.md#synapse).
 */
const synapse = z.strictObject({
  // restart_interval 2 s: HAProxy reloads at least this far apart (docs/sources/service-discovery.md#synapse).
  restartIntervalS: z.number().min(0).max(600).default(2),
  // Model choice: 0, a watcher re-reads as soon as its watch fires; the talk's fix adds a random delay up to this.
  readJitterMs: z.number().min(0).max(600_000).default(0),
  // Model choice: 0, no self-throttling; the talk's fix lets a watcher start a read at most this often.
  minReadIntervalMs: z.number().min(0).max(600_000).default(0),
});

/** Client pods of the service mesh: which proxy each one runs, and how much it sends. */
const mesh = z.strictObject({
  // The share of client pods that run Envoy instead of HAProxy, chosen per pod from a hash of its name at start.
  envoyPercent: z.number().min(0).max(100).default(0),
  // The kill switch: every pod that starts from now on runs HAProxy, whatever the percentage.
  killSwitch: z.boolean().default(false),
  // Model choice: each client pod sends two requests a second to each service it uses.
  requestsPerSecond: z.number().gt(0).max(10_000).default(2),
});

/** Per-deployment knobs, under params.<deployment name>: they override what the topology says for that deployment. */
export const deploymentParamsSchema = z.strictObject({
  replicas: z.number().int().min(0).max(MAX_REPLICAS).optional(),
  // terminationGracePeriodSeconds for this deployment's pods.
  gracePeriodS: z.number().min(0).max(3600).optional(),
  // gRPC clients (defaults and their sources in apps/grpc-client.ts).
  lbPolicy: z.enum(['pick_first', 'round_robin']).optional(),
  reconnect: z.enum(['backoff', 'fixed']).optional(),
  reconnectIntervalMs: z.number().min(RECONNECT_INTERVAL_MS.min).max(RECONNECT_INTERVAL_MS.max).optional(),
  minConnectTimeoutMs: z.number().gt(0).max(600_000).optional(),
  resolutionIntervalS: z.number().min(0).max(3600).optional(),
  resolverRefresh: z.enum(['defer', 'drop']).optional(),
  rpcsPerSecond: z.number().gt(0).max(10_000).optional(),
  deadlineMs: z.number().min(0).max(600_000).optional(),
  maxAttempts: z.number().int().min(1).max(5).optional(),
});
export type DeploymentParams = z.output<typeof deploymentParamsSchema>;

const sections = {
  engine: engine.prefault({}),
  network: network.prefault({}),
  tcp: tcpParams.prefault({}),
  client: client.prefault({}),
  server: server.prefault({}),
  cpu: cpu.prefault({}),
  dnsClient: dnsClient.prefault({}),
  dns: dns.prefault({}),
  externalDns: externalDns.prefault({}),
  kube: kubeParams.prefault({}),
  hpa: hpa.prefault({}),
  kubeProxy: kubeProxy.prefault({}),
  lb: lb.prefault({}),
  bgp: bgpParams.prefault({}),
  node: node.prefault({}),
  calico: calico.prefault({}),
  instance: instance.prefault({}),
  zookeeper: zookeeper.prefault({}),
  nerve: nerve.prefault({}),
  synapse: synapse.prefault({}),
  haproxy: haproxyParams.prefault({}),
  envoy: envoyParams.prefault({}),
  mesh: mesh.prefault({}),
};

/** The mechanism sections; any other key names a deployment whose knobs it sets. */
export const PARAM_SECTIONS = Object.keys(sections);

// Keys beside the sections are checked against the deployments once the topology is known (cross-checks.ts).
export const paramsSchema = z.strictObject(sections).catchall(z.unknown()).prefault({});

export type ScenarioParams = z.output<typeof paramsSchema>;

/** The knobs a scenario sets for one deployment (empty when none). */
export function knobsOf(params: ScenarioParams, deployment: string): DeploymentParams {
  if (PARAM_SECTIONS.includes(deployment) || params[deployment] === undefined) return {};
  return deploymentParamsSchema.parse(params[deployment]);
}

/** Every parameter at its default. */
export function defaultParams(): ScenarioParams {
  return paramsSchema.parse(undefined);
}
