import type { WhyChain } from '../api';

/** What the project knows to do, in general, about the recorded fact a why chain starts from. */
export interface Remedy {
  /** The fact's kind: a drop reason or a cause id (report/why.ts). */
  cause: string;
  /** Only for facts at entities of this kind (`router/`); any when absent. */
  at?: string;
  text: string;
  /** The pages of docs/sources that give the facts the text relies on, with their primary sources. */
  sources: string[];
}

/** Looked up in order: an entry with `at` comes before the entry for any entity of its cause. */
export const REMEDIES: readonly Remedy[] = [
  {
    cause: 'node_down',
    at: 'router/',
    text: 'The router keeps sending to a node that went dark until BGP notices: BFD on the sessions notices in under a second (300 ms × 3), and without it a shorter hold time (3 s at the least) bounds the loss.',
    sources: ['docs/sources/load-balancers.md#bfd', 'docs/sources/load-balancers.md#bgp-timers'],
  },
  {
    cause: 'node_down',
    text: 'A machine that goes dark takes every packet to its pods until they run elsewhere: spread the replicas over nodes and racks (a topology spread constraint with DoNotSchedule refuses nodes without the key), so one loss costs one share.',
    sources: ['docs/sources/kubernetes-scheduling.md#topology-spread-constraints'],
  },
  {
    cause: 'no_socket_reset',
    text: "A host resets packets of connections it has no socket for: after a change of the router's next hops, resilient next-hop groups move only the changed hop's flows, and a fixed set of announcing nodes (one ingress pod per speaker) makes no change at all.",
    sources: ['docs/sources/load-balancers.md#resilient-hashing', 'docs/sources/tcp.md#resets'],
  },
  {
    cause: 'no_local_endpoint',
    text: "Under externalTrafficPolicy: Local a node without a ready endpoint drops what it is sent: send only to nodes that have one (MetalLB announces only from them; a load balancer can monitor the Service's healthCheckNodePort, which answers 503 there), or use Cluster and lose the client's address.",
    sources: ['docs/sources/kube-proxy.md#externaltrafficpolicy', 'docs/sources/kube-proxy.md#healthchecknodeport'],
  },
  {
    cause: 'service_no_endpoints',
    text: 'No ready endpoint is left, so kube-proxy rejects every connection: keep replicas on several nodes and roll out with a maxUnavailable that leaves some ready; a crash-looping pod comes back only after a growing back-off (10 s doubling to 300 s), so only fixing the crash ends it.',
    sources: ['docs/sources/kubernetes.md#deployment-rollouts', 'docs/sources/kubernetes.md#pod-termination'],
  },
  {
    cause: 'no_route',
    text: 'Nothing on the way routes to the address: under externalTrafficPolicy Local a MetalLB speaker announces only while its node has a ready pod, so when every ingress pod is gone every route is withdrawn; keep ready replicas on the speaker nodes.',
    sources: ['docs/sources/load-balancers.md#metallb-bgp-mode'],
  },
  {
    cause: 'stale_endpoint',
    text: "kube-proxy's rules were behind the API: partial restores (MinimizeIPTablesRestore, GA in 1.28) shorten each sync, fewer endpoint changes (no flapping pods) mean fewer syncs, and a terminating pod that keeps serving through a preStop delay covers the lag.",
    sources: ['docs/sources/kube-proxy.md#full-and-partial-restores', 'docs/sources/kube-proxy.md#crash-looping-pods', 'docs/sources/kubernetes.md#pod-termination'],
  },
  {
    cause: 'rp_filter_martian',
    text: "SYNs to a deleted pod's address die as martians on an interface without an IPv4 address and go unanswered until the client's connect timeout: clients that wait with a growing backoff (gRPC's starts at 1 s) rather than redialling at a short fixed interval send few of them, and a shorter connect timeout ends each sooner.",
    sources: ['docs/sources/linux-routing-rp-filter.md#interface-without-an-ipv4-address', 'docs/sources/grpc.md#connection-backoff'],
  },
  {
    cause: 'hypervisor_conntrack_exceeded',
    text: "The instance's tracked-connection allowance is full, mostly of SYNs to addresses nobody answers: gRPC's default backoff (1 s, ×1.6, up to 120 s) turns a fixed fast reconnect's flood into a trickle; a larger instance only raises the ceiling.",
    sources: ['docs/sources/grpc.md#connection-backoff', 'docs/sources/cloud-hypervisor.md#tracked-connection-allowance'],
  },
  {
    cause: 'hypervisor_pps_exceeded',
    text: "The instance is over its packet allowance, which counts a health check's packets at both ends: every proxy checking every backend adds up; check less often (a longer inter), list fewer backends per proxy, or use a proxy that needs no active checks.",
    sources: ['docs/sources/service-discovery.md#health-check-traffic', 'docs/sources/cloud-hypervisor.md#ena-allowance-counters'],
  },
  {
    cause: 'handshake_lost',
    text: 'Handshakes to backends were lost at instances over their packet allowance, filled by health checks: check less often, or list fewer backends per proxy, so the checks fit the allowance.',
    sources: ['docs/sources/service-discovery.md#health-check-saturation'],
  },
  {
    cause: 'stale_backend',
    text: "Calls went to backends that had already left service discovery, from lists that slow reads left old: read a service in one request instead of one per child, and apply a new list at once with retries on another backend (Envoy's EDS) instead of restarting the proxy.",
    sources: ['docs/sources/service-discovery.md#zookeeper-reads', 'docs/sources/service-discovery.md#envoy-eds'],
  },
  {
    cause: 'dns_refused',
    text: "The DNS forwarder's concurrent-query slots were all held by queries waiting on a silent upstream: admitted queries a second are the slots over the time each holds one, so repair the path to the upstream or hold each query for less time.",
    sources: ['docs/sources/dns.md#concurrency-saturation'],
  },
  {
    cause: 'grpc_dependency_error',
    text: "The server's dependencies did not resolve because node-local DNS refused them: its concurrent-query slots were held by queries waiting on a silent upstream; repair the path to the upstream or hold each query for less time.",
    sources: ['docs/sources/dns.md#concurrency-saturation'],
  },
  {
    cause: 'cpu_throttled',
    text: 'A throttled cgroup that used far less than its quota ran many threads on a kernel from 4.18 to 5.3, which expires the runtime each CPU still holds at the end of every period: run a kernel with the fix (5.4 on, or a backport), or raise or drop the limit; one that used its whole quota needs a larger limit.',
    sources: ['docs/sources/linux-cfs.md#slice-expiry-bug', 'docs/sources/linux-cfs.md#kubernetes-cpu-limits'],
  },
  {
    cause: 'cpu_delayed',
    text: 'Requests waited for CPU while their cgroup was throttled: on a kernel from 4.18 to 5.3 a limit over many threads strands runtime on idle CPUs; run a kernel with the fix (5.4 on), or raise or drop the limit.',
    sources: ['docs/sources/linux-cfs.md#slice-expiry-bug'],
  },
  {
    cause: 'pod_ip_collision',
    text: "A pod holds the address its node's IPIP tunnel still uses, so its traffic is delivered to the node: restart calico-node on that node, which gives tunl0 a new address.",
    sources: ['docs/sources/calico.md#tunnel-address-collision'],
  },
  {
    cause: 'lb_member_down',
    text: "The load balancer's monitor had marked every member down, so it had nowhere to send a connection: its timeout (16 s by default) decides how long a dead member still gets traffic and how soon a live one comes back.",
    sources: ['docs/sources/load-balancers.md#big-ip-health-monitors'],
  },
  {
    cause: 'host_conntrack_full',
    text: "The node's connection-tracking table is full: nf_conntrack_max follows the node's memory unless set; raise it, or stop what opens flows that never finish.",
    sources: ['docs/sources/linux-conntrack.md#table-size'],
  },
  {
    cause: 'client_ip_forged',
    text: 'A client wrote its own X-Forwarded-For and the server trusted it: the first proxy must drop a header the client sent and write the peer it received the request from.',
    sources: ['docs/sources/load-balancers.md#forwarded-headers'],
  },
];

/** The remedy for the fact a chain starts from, if the project knows one. */
export function remedyFor(cause: WhyChain['cause']): Remedy | undefined {
  return REMEDIES.find((r) => r.cause === cause.kind && (r.at === undefined || cause.entity.startsWith(r.at)));
}
