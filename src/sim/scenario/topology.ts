import { z } from './zod';
import { deploymentSchema } from './deployments';
import { cidrv4, dnsLabel, hostname, ipv4, labelKey, labelValue, namedRecord, noNames, port, serviceName } from './formats';

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
  // The Node object's labels, like rack or topology.kubernetes.io/zone, which topology keys name; kubernetes.io/hostname
  // is set from the name (docs/sources/kubernetes-scheduling.md#node-labels).
  labels: namedRecord(labelKey, labelValue).default(noNames),
  // Where the machine stands: its rack (behind the rack's top-of-rack switch) and room. Kubernetes knows neither unless
  // a label says so, and the picture draws the racks (docs/sources/kubernetes-scheduling.md#node-labels).
  rack: dnsLabel.optional(),
  room: dnsLabel.optional(),
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
  records: namedRecord(hostname, z.array(ipv4).min(1)).default(noNames),
  // external-dns writes Route 53 records with TTL 300 s unless told otherwise (docs/sources/dns.md#external-dns).
  // The same ceiling as params.externalDns.recordTtlS (docs/limits.md#times).
  recordTtl: z.number().int().min(0).max(172_800).default(300),
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
  // Prefixes every bare-metal node routes via this self IP (`ip route add <prefix> via <self IP>`), so replies to
  // clients there pass back through it, as a virtual server without SNAT needs
  // (docs/sources/load-balancers.md#return-path-without-snat). None by default: nodes answer clients directly.
  returnRoutes: z.array(cidrv4).default([]),
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
  deployments: namedRecord(dnsLabel, deploymentSchema),
  services: namedRecord(serviceName, service).default(noNames),
  dns: dns.optional(),
  routers: z.array(router).default([]),
  bgp: bgp.optional(),
  loadBalancers: z.array(loadBalancer).default([]),
  externalClients: z.array(externalClient).default([]),
  zookeeper: zookeeper.optional(),
});
