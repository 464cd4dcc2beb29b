import { deploymentParamsSchema, PARAM_SECTIONS } from './params';
import { cidrContains, formatCidr, formatIpv4, maskOf, parseCidr, parseIpv4, type Cidr } from '../net/ipv4';
import { checkCapacity } from './capacity';
import { issuesFromZod, type ScenarioIssue } from './issues';
import { formatPath, parsePath, type PathSegment } from './path';
import type { Scenario } from './schema';
import { APP_NEEDS, HTTP_SERVING_APPS, type Deployment } from './deployments';
import { didYouMean } from './suggest';
import { HOSTNAME_LABEL } from '../k8s/scheduling';

/** Checks that span fields: names, references between objects, addresses and times. Structure is already valid. */
export function checkScenario(scenario: Scenario): ScenarioIssue[] {
  const issues: ScenarioIssue[] = [];
  const report = (path: PathSegment[], message: string) => issues.push({ path, message });
  checkNames(scenario, report);
  checkAddresses(scenario, report);
  checkReferences(scenario, report);
  checkPlacement(scenario, report);
  checkTimes(scenario, report);
  checkFixes(scenario, report);
  // Counting and placing pods needs every reference resolved and every address valid.
  if (issues.length === 0) checkCapacity(scenario, report);
  return issues;
}

export type Report = (path: PathSegment[], message: string) => void;

function checkNames(scenario: Scenario, report: Report): void {
  const nodeNames = new Map<string, PathSegment[]>();
  const podNames = new Map<string, PathSegment[]>();
  scenario.topology.nodes.forEach((node, n) => {
    const nodePath = ['topology', 'nodes', n, 'name'];
    const seenNode = nodeNames.get(node.name);
    if (seenNode) report(nodePath, `duplicate node name "${node.name}" (also at ${formatPath(seenNode)})`);
    else nodeNames.set(node.name, nodePath);
    if (!node.joined && node.pods.length > 0) report(['topology', 'nodes', n, 'pods'], `node ${node.name} has not joined the cluster (joined: false), so it runs no pods`);
    node.pods.forEach((pod, p) => {
      const podPath = ['topology', 'nodes', n, 'pods', p, 'name'];
      const seenPod = podNames.get(pod.name);
      if (seenPod) report(podPath, `duplicate pod name "${pod.name}" (also at ${formatPath(seenPod)})`);
      else podNames.set(pod.name, podPath);
    });
  });
}

function checkAddresses(scenario: Scenario, report: Report): void {
  const owners = new Map<number, string>();
  const claim = (path: PathSegment[], text: string | undefined, owner: string) => {
    if (text === undefined) return;
    const ip = parseIpv4(text);
    if (ip === null) return;
    const previous = owners.get(ip);
    if (previous !== undefined) report(path, `${text} is already used by ${previous}`);
    else owners.set(ip, owner);
  };
  scenario.topology.nodes.forEach((node, n) => {
    claim(['topology', 'nodes', n, 'ip'], node.ip, `node ${node.name}`);
    const cidr = parseCidr(node.podCidr);
    if (cidr === null) report(['topology', 'nodes', n, 'podCidr'], hostBitsProblem(node.podCidr));
    const calico = scenario.params.calico;
    // Block IPAM carves each node's pool (its podCidr) into blocks, so a block may not be larger than the pool.
    if (cidr && calico.ipam === 'blocks' && scenario.params.node.podNetwork !== 'eni' && calico.blockSize < cidr.prefix) {
      report(['params', 'calico', 'blockSize'], `/${calico.blockSize} blocks do not fit node ${node.name}'s podCidr ${node.podCidr}`);
    }
    node.pods.forEach((pod, p) => {
      const path = ['topology', 'nodes', n, 'pods', p, 'ip'];
      const ip = pod.ip === undefined ? null : parseIpv4(pod.ip);
      if (cidr && ip !== null && !cidrContains(cidr, ip)) {
        report(path, `${pod.ip} is outside node ${node.name}'s podCidr ${node.podCidr}`);
      }
      claim(path, pod.ip, `pod ${pod.name}`);
    });
  });
  const dns = scenario.topology.dns;
  if (dns) {
    claim(['topology', 'dns', 'clusterIp'], dns.clusterIp, 'the kube-dns Service');
    claim(['topology', 'dns', 'upstreamClusterIp'], dns.upstreamClusterIp, 'the kube-dns-upstream Service');
    claim(['topology', 'dns', 'resolverIp'], dns.resolverIp, 'the cloud DNS resolver');
  }
  const t = scenario.topology;
  t.routers.forEach((r, i) => claim(['topology', 'routers', i, 'ip'], r.ip, `router ${r.name}`));
  t.loadBalancers.forEach((lb, i) => {
    claim(['topology', 'loadBalancers', i, 'ip'], lb.ip, `load balancer ${lb.name}`);
    lb.virtualServers.forEach((v, j) => claim(['topology', 'loadBalancers', i, 'virtualServers', j, 'vip'], v.vip, `virtual server ${v.name}`));
  });
  t.externalClients.forEach((c, i) => claim(['topology', 'externalClients', i, 'ip'], c.ip, `external client ${c.name}`));
  const nodePorts = new Map<number, string>();
  for (const [name, service] of Object.entries(scenario.topology.services)) {
    const path = ['topology', 'services', name];
    claim([...path, 'clusterIp'], service.clusterIp, `service ${name}`);
    if (service.loadBalancerIp !== undefined) claim([...path, 'loadBalancerIp'], service.loadBalancerIp, `service ${name}'s load-balancer IP`);
    if (service.type === 'ClusterIP') {
      if (service.externalTrafficPolicy === 'Local') report([...path, 'externalTrafficPolicy'], 'Local needs type NodePort or LoadBalancer');
      if (service.nodePort !== undefined) report([...path, 'nodePort'], 'only NodePort and LoadBalancer Services have a node port');
    }
    if (service.type !== 'LoadBalancer' && service.loadBalancerIp !== undefined) {
      report([...path, 'loadBalancerIp'], 'only LoadBalancer Services have a load-balancer IP');
    }
    if (service.nodePort !== undefined) {
      const other = nodePorts.get(service.nodePort);
      if (other !== undefined) report([...path, 'nodePort'], `${service.nodePort} is already service ${other}'s node port`);
      nodePorts.set(service.nodePort, name);
    }
  }
}

/** The schema has already accepted the text as a CIDR, so the only way parseCidr refuses it is set host bits. */
function hostBitsProblem(text: string): string {
  const [address = '', bits = '0'] = text.split('/');
  const prefix = Number(bits);
  const network = ((parseIpv4(address) ?? 0) & maskOf(prefix)) >>> 0;
  return `host bits are set; the block is ${formatIpv4(network)}/${prefix}`;
}

/** Routers, BGP speakers and load balancers must name things that exist. */
function checkEdge(scenario: Scenario, report: Report): void {
  const { routers, bgp, loadBalancers, nodes, services } = scenario.topology;
  const routerNames = routers.map((r) => r.name);
  const nodeNames = nodes.map((n) => n.name);
  const serviceNames = Object.keys(services);
  if (bgp) {
    if (!routerNames.includes(bgp.router)) report(['topology', 'bgp', 'router'], `unknown router "${bgp.router}"${didYouMean(bgp.router, routerNames)}`);
    bgp.speakers?.forEach((name, i) => {
      if (!nodeNames.includes(name)) report(['topology', 'bgp', 'speakers', i], `unknown node "${name}"${didYouMean(name, nodeNames)}`);
    });
  }
  const routedVia = new Map<string, string>();
  const cloud = nodes.find((n) => n.platform === 'cloud');
  loadBalancers.forEach((lb, i) => {
    const path = ['topology', 'loadBalancers', i, 'returnRoutes'];
    if (cloud && lb.returnRoutes.length > 0) report(path, `${cloud.name} is a cloud instance, whose network delivers by destination; these routes are for bare-metal nodes`);
    lb.returnRoutes.forEach((text, j) => {
      const block = parseCidr(text);
      if (block === null) report([...path, j], hostBitsProblem(text));
      // The box forwards only its own flows, so a route that swallowed the cluster's addresses would cut the nodes off.
      const overlaps = (pods: Cidr | null): boolean => block !== null && pods !== null && (cidrContains(block, pods.base) || cidrContains(pods, block.base));
      const inside = block && nodes.find((n) => cidrContains(block, parseIpv4(n.ip) ?? 0) || overlaps(parseCidr(n.podCidr)));
      if (inside) report([...path, j], `${text} holds ${inside.name}'s addresses; route only the clients' networks via a load balancer`);
      const key = block ? formatCidr(block) : text;
      const other = routedVia.get(key);
      if (other === undefined) routedVia.set(key, lb.name);
      else report([...path, j], `the nodes already route ${key} via load balancer ${other}`);
    });
  });
  loadBalancers.forEach((lb, i) =>
    lb.virtualServers.forEach((v, j) => {
      const path = ['topology', 'loadBalancers', i, 'virtualServers', j, 'service'];
      const service = services[v.service];
      if (service === undefined) report(path, `unknown service "${v.service}"${didYouMean(v.service, serviceNames)}`);
      else if (v.members === 'nodes' && service.type === 'ClusterIP') {
        report(path, `service ${v.service} is ClusterIP; node members need a NodePort or LoadBalancer Service`);
      }
      const base = ['topology', 'loadBalancers', i, 'virtualServers', j];
      v.memberNodes?.forEach((name, k) => {
        if (!nodeNames.includes(name)) report([...base, 'memberNodes', k], `unknown node "${name}"${didYouMean(name, nodeNames)}`);
      });
    }),
  );
}

// Names topology.dns creates: the CoreDNS deployment and the two Services in front of it.
export const DNS_NAMES = ['coredns', 'kube-dns', 'kube-dns-upstream'] as const;

// What a fault may target as `dns/<name>`: CoreDNS behind kube-dns, or the cloud resolver's provider.
export const DNS_TARGETS = ['cluster', 'provider'] as const;

function checkReferences(scenario: Scenario, report: Report): void {
  const { deployments, services, nodes } = scenario.topology;
  const deploymentNames = Object.keys(deployments);
  const serviceNames = Object.keys(services);
  if (deploymentNames.length === 0) report(['topology', 'deployments'], 'needs at least one deployment');

  const explicitPods = new Map<string, number>();
  nodes.forEach((node, n) => {
    node.pods.forEach((pod, p) => {
      const deployment = deployments[pod.deployment];
      const path = ['topology', 'nodes', n, 'pods', p, 'deployment'];
      if (deployment === undefined) {
        report(path, `unknown deployment "${pod.deployment}"${didYouMean(pod.deployment, deploymentNames)}`);
        return;
      }
      explicitPods.set(pod.deployment, (explicitPods.get(pod.deployment) ?? 0) + 1);
      if (deployment.nodes !== undefined && !deployment.nodes.includes(node.name)) {
        report(path, `${pod.deployment}'s nodes do not include ${node.name}, so its pods cannot run there`);
      } else if (deployment.kind === 'DaemonSet' && node.pods.findIndex((q) => q.deployment === pod.deployment) !== p) {
        report(path, `${pod.deployment} is a DaemonSet: one pod per node, and ${node.name} already lists one`);
      }
    });
  });

  const nodeNames = nodes.map((n) => n.name);
  for (const [name, deployment] of Object.entries(deployments)) {
    const placed = explicitPods.get(name) ?? 0;
    const path = ['topology', 'deployments', name];
    if (deployment.kind === 'DaemonSet') {
      if (deployment.replicas !== undefined) report([...path, 'replicas'], 'a DaemonSet runs one pod per node it may run on; leave replicas out');
      if ('autoscale' in deployment && deployment.autoscale) report([...path, 'autoscale'], 'an autoscaler scales replicas, and a DaemonSet has none: it runs one pod per node');
    } else if (deployment.replicas === undefined) report([...path, 'replicas'], 'required for a Deployment (or set kind: DaemonSet)');
    else if (placed > deployment.replicas) report([...path, 'replicas'], `${placed} pods are placed explicitly but replicas is ${deployment.replicas}`);
    deployment.nodes?.forEach((node, i) => {
      if (!nodeNames.includes(node)) report([...path, 'nodes', i], `unknown node "${node}"${didYouMean(node, nodeNames)}`);
    });
    const needed = APP_NEEDS[deployment.app].topology;
    if (needed !== undefined && scenario.topology[needed] === undefined) report([...path, 'app'], `${deployment.app} needs topology.${needed}`);
    const called: [PathSegment[], string][] = deployment.app === 'http-client' ? [[[...path, 'target'], deployment.target]] : servingCalls(name, deployment);
    for (const [at, service] of called) {
      if (services[service] === undefined) report(at, `unknown service "${service}"${didYouMean(service, serviceNames)}`);
      else if (services[service]!.selector === name) report(at, `the service "${service}" selects this deployment itself: requests would loop`);
    }
    if ((deployment.app === 'http-server' || deployment.app === 'ingress-proxy') && deployment.autoscale && deployment.autoscale.minReplicas > deployment.autoscale.maxReplicas) {
      report([...path, 'autoscale', 'minReplicas'], `must be at most maxReplicas (${deployment.autoscale.maxReplicas})`);
    }
    if (deployment.app === 'grpc-server' && deployment.dependencies.length > 0 && scenario.topology.dns === undefined) {
      report([...path, 'dependencies'], 'resolving dependencies needs topology.dns');
    }
  }
  checkCallLoops(scenario, report);
  checkMesh(scenario, report);
  checkEdge(scenario, report);
  for (const [key, value] of Object.entries(scenario.params)) {
    if (PARAM_SECTIONS.includes(key)) continue;
    if (deployments[key] === undefined) {
      report(['params', key], `unknown key${didYouMean(key, [...PARAM_SECTIONS, ...deploymentNames])}`);
      continue;
    }
    const knobs = deploymentParamsSchema.safeParse(value, { reportInput: true });
    if (!knobs.success) {
      for (const issue of issuesFromZod(knobs.error.issues, deploymentParamsSchema)) report(['params', key, ...issue.path], issue.message);
    }
  }
  const externalDns = scenario.topology.dns?.externalDns;
  if (externalDns && deployments[externalDns.deployment] === undefined) {
    report(['topology', 'dns', 'externalDns', 'deployment'], `unknown deployment "${externalDns.deployment}"${didYouMean(externalDns.deployment, deploymentNames)}`);
  }
  if (scenario.topology.dns) {
    for (const reserved of DNS_NAMES) {
      if (deployments[reserved] !== undefined) report(['topology', 'deployments', reserved], `"${reserved}" is taken by topology.dns`);
      if (services[reserved] !== undefined) report(['topology', 'services', reserved], `"${reserved}" is taken by topology.dns`);
    }
  }

  for (const [name, service] of Object.entries(services)) {
    const path = ['topology', 'services', name, 'selector'];
    const selected = deployments[service.selector];
    if (selected === undefined) {
      report(path, `unknown deployment "${service.selector}"${didYouMean(service.selector, deploymentNames)}`);
    } else if (!HTTP_SERVING_APPS.includes(selected.app)) {
      report(path, `deployment "${service.selector}" runs ${selected.app}; a service must select an http-server or ingress-proxy`);
    }
  }
}

/**
 * Node labels and the topology keys that read them. A real API server takes a key no node carries, and the scheduler
 * then treats every node as outside its domains; here that is refused as the likely typo it is.
 */
function checkPlacement(scenario: Scenario, report: Report): void {
  const { nodes, deployments } = scenario.topology;
  const keys = new Set([HOSTNAME_LABEL]);
  nodes.forEach((node, n) => {
    for (const key of Object.keys(node.labels)) {
      if (key === HOSTNAME_LABEL) report(['topology', 'nodes', n, 'labels', key], `set from the node's name (${node.name}); leave it out`);
      keys.add(key);
    }
  });
  // A rack stands in one room: the same rack name in two rooms is two racks, and more likely a typo.
  const roomOf = new Map<string, { room: string | undefined; node: string }>();
  nodes.forEach((node, n) => {
    if (node.rack === undefined) return;
    const first = roomOf.get(node.rack);
    if (!first) roomOf.set(node.rack, { room: node.room, node: node.name });
    else if (first.room !== node.room)
      report(['topology', 'nodes', n, 'room'], `rack ${node.rack} stands in ${first.room ?? 'no room'} (${first.node}); ${node.name} puts it in ${node.room ?? 'no room'}`);
  });
  const known = [...keys];
  for (const [name, deployment] of Object.entries(deployments)) {
    const path = ['topology', 'deployments', name];
    const rules: [PathSegment[], string][] = [
      ...(deployment.podAntiAffinity?.required ?? []).map((t, i): [PathSegment[], string] => [[...path, 'podAntiAffinity', 'required', i, 'topologyKey'], t.topologyKey]),
      ...(deployment.podAntiAffinity?.preferred ?? []).map((t, i): [PathSegment[], string] => [[...path, 'podAntiAffinity', 'preferred', i, 'topologyKey'], t.topologyKey]),
      ...deployment.topologySpreadConstraints.map((c, i): [PathSegment[], string] => [[...path, 'topologySpreadConstraints', i, 'topologyKey'], c.topologyKey]),
    ];
    if (deployment.kind === 'DaemonSet' && rules.length > 0) {
      report([...path, 'kind'], 'a DaemonSet runs one pod per node: pod anti-affinity and topology spread constraints do not apply to it');
      continue;
    }
    for (const [at, key] of rules) if (!keys.has(key)) report(at, `no node carries the label "${key}"${didYouMean(key, known)}`);
  }
}

/** The Services a deployment's pods call while they serve a request: an ingress proxy's target, an HTTP server's calls. */
function servingCalls(name: string, deployment: Deployment): [PathSegment[], string][] {
  const path = ['topology', 'deployments', name];
  if (deployment.app === 'ingress-proxy') return [[[...path, 'target'], deployment.target]];
  if (deployment.app === 'http-server') return deployment.calls.map((service, i): [PathSegment[], string] => [[...path, 'calls', i], service]);
  return [];
}

/**
 * A request that comes back to a deployment it has already passed through would never be answered, each hop waiting on
 * the next: the calls between deployments, through the Services they name, must not loop. Each loop is reported once,
 * at the call that closes it; a deployment calling its own Service is reported where the call is checked.
 */
function checkCallLoops(scenario: Scenario, report: Report): void {
  const { deployments, services } = scenario.topology;
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (name: string): void => {
    state.set(name, 'open');
    trail.push(name);
    for (const [at, service] of servingCalls(name, deployments[name]!)) {
      const next = services[service]?.selector;
      if (next === undefined || next === name || deployments[next] === undefined) continue;
      if (state.get(next) === 'open') {
        const loop = [...trail.slice(trail.indexOf(next)), next];
        report(at, `requests would loop: ${loop.join(' → ')}, each waiting on the next`);
      } else if (!state.has(next)) visit(next);
    }
    trail.pop();
    state.set(name, 'done');
  };
  for (const name of Object.keys(deployments)) if (!state.has(name)) visit(name);
}

/** Announced names and their users must match. */
function checkMesh(scenario: Scenario, report: Report): void {
  const deployments = Object.entries(scenario.topology.deployments);
  const announced = deployments.flatMap(([, d]) => (d.app === 'mesh-server' ? [d.announce] : []));
  for (const [name, deployment] of deployments) {
    const path = ['topology', 'deployments', name];
    if (deployment.app === 'mesh-server' && announced.indexOf(deployment.announce) !== announced.lastIndexOf(deployment.announce)) {
      report([...path, 'announce'], `another mesh-server deployment already announces "${deployment.announce}"`);
    }
    if (deployment.app !== 'mesh-client') continue;
    deployment.uses.forEach((service, i) => {
      if (!announced.includes(service)) report([...path, 'uses', i], `no mesh-server announces "${service}"${didYouMean(service, announced)}`);
      else if (deployment.uses.indexOf(service) !== i) report([...path, 'uses', i], `"${service}" is listed twice`);
    });
  }
}

/**
 * The names a pod may have during a run: those placed explicitly, and `<deployment>-<n>`, as the ReplicaSet controller
 * names the pods it creates (k8s/workloads.ts). Whether such a pod exists at the fault's time only the run knows.
 */
function podNamer(topology: Scenario['topology']): { possible: (name: string) => boolean; examples: () => string[] } {
  const explicit = new Set(topology.nodes.flatMap((node) => node.pods.map((pod) => pod.name)));
  const owners = new Set(Object.keys(topology.deployments));
  if (topology.dns) owners.add(DNS_NAMES[0]);
  return {
    possible: (name) => {
      if (explicit.has(name)) return true;
      const generated = /^(.+)-\d+$/.exec(name);
      return generated !== null && owners.has(generated[1]!);
    },
    examples: () => [...explicit, ...[...owners].map((owner) => `${owner}-0`)],
  };
}

/** What a fault may name, by target kind, from the scenario alone; pods are not in it (podNamer says which names may exist). */
export function targetNames(topology: Scenario['topology']): Record<string, string[]> {
  return {
    node: topology.nodes.map((node) => node.name),
    deployment: Object.keys(topology.deployments),
    service: Object.keys(topology.services),
    router: topology.routers.map((r) => r.name),
    lb: topology.loadBalancers.map((lb) => lb.name),
    dns: topology.dns ? [...DNS_TARGETS] : [],
    external: topology.externalClients.map((c) => c.name),
    zookeeper: topology.zookeeper ? ['ensemble'] : [],
    rack: [...new Set(topology.nodes.flatMap((node) => (node.rack === undefined ? [] : [node.rack])))],
  };
}

function checkTimes(scenario: Scenario, report: Report): void {
  const { duration, topology } = scenario;
  const known = targetNames(topology);
  const podNames = podNamer(topology);
  scenario.timeline.forEach((entry, i) => {
    if (entry.at > duration) report(['timeline', i, 'at'], `${entry.at} s is after the end of the run (duration ${duration} s)`);
    const [kind = '', name = ''] = entry.target.split('/');
    const names = known[kind];
    if (kind === 'pod' && !podNames.possible(name)) {
      report(['timeline', i, 'target'], `no pod can be named "${name}": a pod is placed by name under topology.nodes, or named <deployment>-<n>${didYouMean(name, podNames.examples())}`);
    } else if (kind === 'dns' && !topology.dns) report(['timeline', i, 'target'], 'the scenario has no topology.dns to target');
    else if (kind === 'zookeeper' && !topology.zookeeper) report(['timeline', i, 'target'], 'the scenario has no topology.zookeeper to target');
    else if (names !== undefined && !names.includes(name)) {
      report(['timeline', i, 'target'], `unknown ${kind} "${name}"${didYouMean(name, names)}`);
    }
  });
  scenario.chapters.forEach((chapter, i) => {
    if (chapter.at > duration) report(['chapters', i, 'at'], `${chapter.at} s is after the end of the run (duration ${duration} s)`);
    const before = scenario.chapters[i - 1];
    if (before && chapter.at < before.at) report(['chapters', i, 'at'], `chapters must be in time order: ${chapter.at} s comes after ${before.at} s`);
  });
  scenario.expect.forEach((expectation, i) => {
    if (expectation.window === undefined) return;
    const [from, to] = expectation.window;
    const path = ['expect', i, 'window'];
    if (from >= to) report(path, `window start ${from} must be before its end ${to}`);
    else if (to > duration) report(path, `window ends at ${to} s, after the end of the run (duration ${duration} s)`);
  });
}

function checkFixes(scenario: Scenario, report: Report): void {
  const known = Object.keys(scenario.fixes);
  scenario.expect.forEach((e, i) =>
    e.fixes?.forEach((id, j) => {
      if (!known.includes(id)) report(['expect', i, 'fixes', j], `no fix named "${id}"${didYouMean(id, known)}`);
    }),
  );
  for (const [name, fix] of Object.entries(scenario.fixes)) {
    const entries = Object.keys(fix.set);
    if (entries.length === 0) report(['fixes', name, 'set'], 'must set at least one value');
    for (const key of entries) {
      const path = ['fixes', name, 'set', key];
      try {
        const target = parsePath(key);
        if (target[0] === 'fixes') report(path, 'a fix cannot change fixes');
      } catch (error) {
        report(path, `bad path: ${(error as Error).message}`);
      }
    }
  }
}
