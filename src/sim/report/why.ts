import { formatCount } from '../core/format';
import { CLIENT_ADDRESS_CAUSES, CLIENT_ADDRESS_TEXT, type RequestJourney, type WhyChain, type WhyStep } from '../api';
import { formatIpv4 } from '../net/ipv4';
import type { CauseFact, CauseLog } from './causes';

/** What the chain builder asks of the world about addresses and deployments. */
export interface WhyWorld {
  /** The pod that last held an address: its entity, when it was deleted (µs) if it was, and whether it is gone. */
  podByIp(ip: number): { entity: string; deletedAt?: number; gone: boolean } | undefined;
  /** The instance or node an address is attached to now, if any. */
  holderOf(ip: number): string | undefined;
  /** The node (entity) a pod runs on. */
  nodeOf(podEntity: string): string | undefined;
  /** The node whose own address this is. */
  nodeByIp(ip: number): string | undefined;
  /** How a deployment's clients reconnect, in a few words, if it has clients. */
  reconnectPolicy(deployment: string): string | undefined;
  /** The sampled HTTP requests still kept, oldest first. */
  journeys(): RequestJourney[];
  /** A discovered service in ZooKeeper: its changes, the watches on it, its registrations and the reads it cost. */
  discovery(service: string): { changes: number; watchers: number; backends: number; reads: number } | undefined;
}

const seconds = (us: number) => `${(us / 1e6).toFixed(1)} s`;
const times = (n: number) => (n === 1 ? 'once' : `${formatCount(n)} times`);

/**
 * Builds chains for the run's main symptoms, following recorded causes only: a step appears when its fact was
 * recorded, so a chain stops where the evidence does.
 */
/** A step that is one recorded fact: at its entity, at the time it last happened. */
function factStep(fact: CauseFact, text: string): WhyStep {
  return { entity: fact.entity, at: fact.lastAt, text };
}

/** A chain from the recorded fact its symptom is. */
function chain(fact: CauseFact, symptom: string, steps: WhyStep[]): WhyChain {
  return { symptom, cause: { kind: fact.kind, entity: fact.entity, count: fact.count }, steps };
}

export function buildWhy(causes: CauseLog, world: WhyWorld): WhyChain[] {
  const chains: WhyChain[] = [];
  const serverErrors = causes.of('grpc_dependency_error')[0];
  if (serverErrors) {
    const node = world.nodeOf(serverErrors.entity);
    const steps: WhyStep[] = [factStep(serverErrors, `${formatCount(serverErrors.count)} queries failed because the pod's dependencies did not resolve`)];
    if (node) steps.push(...dnsSteps(causes, world, node));
    chains.push(chain(serverErrors, `server errors at ${serverErrors.entity}`, steps));
  }
  const refused = causes.of('dns_refused')[0];
  if (refused && refused.entity !== chains[0]?.steps[1]?.entity) {
    chains.push(chain(refused, `DNS refusals at ${refused.entity}`, dnsSteps(causes, world, refused.entity)));
  }
  const exceeded = causes.of('hypervisor_conntrack_exceeded')[0];
  if (exceeded && chains.length === 0) {
    chains.push(chain(exceeded, `drops at ${exceeded.entity}`, allowanceSteps(causes, world, exceeded)));
  }
  const martians = causes.of('rp_filter_martian')[0];
  if (martians && chains.length === 0) chains.push(chain(martians, `martian drops at ${martians.entity}`, martianSteps(causes, world, martians)));
  const collision = causes.of('pod_ip_collision')[0];
  if (collision) chains.push(chain(collision, `${collision.entity} unreachable`, collisionSteps(causes, collision)));
  const reset = nodeResets(causes);
  if (reset && causes.of('ecmp_changed').length > 0) chains.push(chain(reset, `connections reset at ${reset.entity}`, ecmpSteps(causes, reset)));
  const blackholed = causes.of('node_down').find((f) => f.entity.startsWith('router/'));
  if (blackholed) chains.push(chain(blackholed, `packets black-holed at ${blackholed.entity}`, staleNextHopSteps(causes, world, blackholed)));
  const darkNode = causes.of('node_down').find((f) => !f.entity.startsWith('router/'));
  if (darkNode && !blackholed) chains.push(chain(darkNode, `packets lost at ${darkNode.entity}`, darkNodeSteps(causes, world, darkNode)));
  const unheard = causes.of('no_local_endpoint').find((f) => silentPeer(causes, f.entity));
  if (unheard) chains.push(chain(unheard, `packets black-holed at ${unheard.entity}`, hungSpeakerSteps(unheard, silentPeer(causes, unheard.entity)!)));
  const gone = causes.of('stale_backend')[0];
  if (gone) chains.push(chain(gone, `requests to gone backends at ${gone.entity}`, goneBackendSteps(causes, world, gone)));
  const lost = causes.of('handshake_lost')[0];
  if (lost) chains.push(chain(lost, `lost handshakes at ${lost.entity}`, lostHandshakeSteps(causes, lost)));
  const stale = causes.of('stale_endpoint')[0];
  if (stale && chains.length === 0) chains.push(chain(stale, `connections to departed pods at ${stale.entity}`, staleSteps(causes, stale)));
  const slow = causes.of('cpu_delayed')[0];
  const throttled = slow ? causes.find('cpu_throttled', slow.entity) : causes.of('cpu_throttled')[0];
  if (throttled) chains.push(chain(slow ?? throttled, slow ? `requests waiting for CPU at ${slow.entity}` : `CPU throttling at ${throttled.entity}`, cpuSteps(causes, slow, throttled)));
  // A logged address a client made up is always worth a chain; an internal one is everyday behind a proxy, so asked for.
  const forged = causes.of(CLIENT_ADDRESS_CAUSES.forged)[0];
  const forgedSteps = forged ? clientAddressSteps(world, forged, 'forged') : [];
  if (forged && forgedSteps.length > 0) chains.push(chain(forged, `forged client addresses logged at ${forged.entity}`, forgedSteps));
  return chains;
}

/** A pod given the address its node's tunl0 still uses: where its traffic goes, and how IPAM came to hand it out. */
function collisionSteps(causes: CauseLog, collision: CauseFact): WhyStep[] {
  const ip = formatIpv4(Number(collision.detail['ip']));
  const node = String(collision.detail['node']);
  const refused = causes.find('no_socket_reset', node);
  const steps: WhyStep[] = [
    factStep(
      collision,
      `its address ${ip} is also tunl0's on ${node}: the host's local route wins, so packets to the pod are delivered to the node itself${refused ? `, which refused ${formatCount(refused.count)} of them` : ''}`,
    ),
  ];
  steps.push(...probeSteps(causes, collision.entity, node));
  const leak = causes.find('ipam_leak_released', node);
  if (leak) {
    steps.push({
      entity: node,
      at: Number(collision.detail['at']),
      text: `Calico's IPAM gave ${ip} to the pod at ${seconds(Number(collision.detail['at']))}: its garbage collector had released the address at ${seconds(leak.firstAt)} as leaked, ${leak.detail['graceS']} s after the allocation's node was deleted`,
    });
    const deletedAt = Number(leak.detail['deletedAt']);
    const joined = causes.find('node_joined', node);
    const back = joined && joined.lastAt >= deletedAt ? ` and registered again at ${seconds(joined.lastAt)}` : '';
    if (deletedAt >= 0)
      steps.push({ entity: node, at: deletedAt, text: `was deleted from the cluster at ${seconds(deletedAt)}${back}; tunl0 kept the address the deleted node's allocation was for` });
  }
  return steps;
}

/**
 * Packets a router sent to a node that had lost power: the next hop it still held, when the node went dark, and the
 * hold timer (or BFD) that decides how long the router keeps sending there.
 */
function staleNextHopSteps(causes: CauseLog, world: WhyWorld, drop: CauseFact): WhyStep[] {
  const hop = Number(drop.detail['nextHop']);
  const node = world.nodeByIp(hop);
  const steps: WhyStep[] = [
    factStep(drop, `sent ${formatCount(drop.count)} packets to ECMP next hop ${formatIpv4(hop)}${node ? ` (${node})` : ''}, a node the network no longer reaches, where they were lost`),
  ];
  if (!node) return steps;
  steps.push(...darkSteps(causes, node, ': its MetalLB speaker could withdraw nothing, so the router kept the route'));
  const lost = causes.find('bgp_peer_lost', node);
  if (lost) steps.push(heldRouteStep(lost, hop));
  return steps;
}

/** How a node went dark: it lost power, or its rack's switch failed; `after` is said of either. */
function darkSteps(causes: CauseLog, node: string, after = ''): WhyStep[] {
  const steps: WhyStep[] = [];
  const dark = causes.find('node_powered_off', node);
  if (dark) steps.push(factStep(dark, `lost power at ${seconds(dark.firstAt)}${after}`));
  const cut = causes.find('rack_switch_failed', node);
  if (cut) steps.push(factStep(cut, `was cut off at ${seconds(cut.firstAt)}: the top-of-rack switch of rack ${String(cut.detail['rack'])} failed${after}`));
  return steps;
}

/**
 * Packets lost on their way to a node without power (or behind a dead switch), and how the pods they were for came
 * to be there: the scheduler's reason for each pod of a deployment with placement rules (scheduling.ts).
 */
function darkNodeSteps(causes: CauseLog, world: WhyWorld, drop: CauseFact): WhyStep[] {
  const dst = Number(drop.detail['dst']);
  const pod = world.podByIp(dst);
  const node = drop.entity.startsWith('node/') ? drop.entity : pod ? world.nodeOf(pod.entity) : world.nodeByIp(dst);
  const to = pod ? `${pod.entity} on ${node}` : (node ?? formatIpv4(dst));
  const steps: WhyStep[] = [factStep(drop, `lost ${formatCount(drop.count)} packets, the latest for ${to}: a machine that receives nothing and sends nothing`)];
  if (!node) return steps;
  steps.push(...darkSteps(causes, node));
  const name = node.slice('node/'.length);
  for (const placed of causes.of('pod_scheduled').filter((f) => f.detail['node'] === name)) {
    steps.push({ entity: placed.entity, at: placed.firstAt, text: `was scheduled onto ${name}: ${String(placed.detail['reason'])}` });
  }
  return steps;
}

/** Packets a node dropped for want of a local endpoint while its hung speaker could not withdraw the Service's address. */
function hungSpeakerSteps(drop: CauseFact, lost: CauseFact): WhyStep[] {
  const hop = Number(lost.detail['nextHop']);
  return [
    factStep(drop, `dropped ${formatCount(drop.count)} packets: it runs no endpoint of the Service under externalTrafficPolicy Local, yet the router kept sending it a share`),
    {
      entity: drop.entity,
      at: lost.firstAt,
      text: `its MetalLB speaker hung at ${seconds(lost.firstAt)}: it sent no more KEEPALIVEs and could not withdraw the address when the node lost its endpoints`,
    },
    heldRouteStep(lost, hop),
  ];
}

/** How long the router held a lost peer's route: until BFD or the hold timer noticed, plus graceful restart's stale time. */
function heldRouteStep(lost: CauseFact, hop: number): WhyStep {
  const d = lost.detail;
  const detectedAt = Number(d['detectedAt']);
  const stale = Number(d['staleS']);
  const notice =
    d['detection'] === 'BFD'
      ? `BFD declared the session down at ${seconds(detectedAt)}, when the BFD packets had stopped for the detection time`
      : `its BGP hold timer fired at ${seconds(detectedAt)}: ${d['holdTimeS']} s after the last KEEPALIVE, received at ${seconds(Number(d['lastKeepaliveAt']))}`;
  const kept = stale > 0 ? `; graceful restart then kept the route as stale for ${stale} s more` : '';
  return { entity: String(d['router']), at: detectedAt, text: `kept ${formatIpv4(hop)} as a next hop, stale, until ${notice}${kept}` };
}

/** The BGP session a node's speaker let fall silent (hung), if it did. */
function silentPeer(causes: CauseLog, node: string): CauseFact | undefined {
  const lost = causes.find('bgp_peer_lost', node);
  return lost?.detail['end'] === 'silent' ? lost : undefined;
}

/** What the kubelet saw of a pod: its probes failing, what that did to its readiness, and the restarts it made. */
function probeSteps(causes: CauseLog, pod: string, node: string): WhyStep[] {
  const steps: WhyStep[] = [];
  const readiness = causes.find('readiness_probe_failed', pod);
  const liveness = causes.find('liveness_probe_failed', pod);
  const killed = causes.find('liveness_killed', pod);
  if (readiness) {
    steps.push({
      entity: node,
      at: readiness.firstAt,
      text: `the kubelet's readiness probes of the pod failed ${times(readiness.count)} from ${seconds(readiness.firstAt)} (${readiness.detail['reason']}), so its endpoint is not ready and the Service sends it nothing`,
    });
  }
  if (liveness) {
    const restarts = killed ? `, so the kubelet killed its container ${times(killed.count)} and restarts it under CrashLoopBackOff` : '';
    steps.push({
      entity: node,
      at: liveness.firstAt,
      text: `the kubelet's liveness probes of the pod failed ${times(liveness.count)} from ${seconds(liveness.firstAt)} (${liveness.detail['reason']})${restarts}`,
    });
  }
  return steps;
}

/** The node that reset the most packets of connections it did not know. */
function nodeResets(causes: CauseLog): CauseFact | undefined {
  return causes.of('no_socket_reset').find((f) => f.entity.startsWith('node/'));
}

/**
 * Connections a node reset after a router moved their flows to it: the ECMP change, the BGP announcement or withdrawal
 * behind it, and what made the speaker's node gain or lose its pods (an autoscaler, a load spike).
 */
function ecmpSteps(causes: CauseLog, reset: CauseFact): WhyStep[] {
  const steps: WhyStep[] = [
    factStep(reset, `answered ${formatCount(reset.count)} packets with resets: they belonged to connections it had no socket for, flows the router had been sending to another node`),
  ];
  const change = causes.of('ecmp_changed')[0];
  if (!change) return steps;
  const c = change.detail;
  steps.push(
    factStep(
      change,
      `changed its ECMP group for ${c['prefix']} ${formatCount(change.count)} times; the latest, at ${seconds(change.lastAt)}, ${c['what']}: ${c['before']} → ${c['after']} next hops, and ${c['movedPct']} % of flows now hash to another next hop (${c['mode']} hashing keeps no record of connections)`,
    ),
  );
  const node = String(c['via']);
  const announced = causes.find('bgp_announced', node);
  const withdrawn = causes.find('bgp_withdrawn', node);
  const latest = [announced, withdrawn].filter((f) => f !== undefined).sort((a, b) => b.lastAt - a.lastAt)[0];
  // A session that died without a withdrawal (a dark node, a hung speaker) takes its next hop out when the router notices.
  const lost = causes.find('bgp_peer_lost', node);
  if (lost && Number(lost.detail['detectedAt']) <= change.lastAt && (!latest || latest.lastAt < Number(lost.detail['detectedAt']))) {
    steps.push(heldRouteStep(lost, Number(lost.detail['nextHop'])), ...darkSteps(causes, node));
    return steps;
  }
  if (!latest) return steps;
  const d = latest.detail;
  const local = d['policy'] === 'Local' ? ': under externalTrafficPolicy Local only nodes with a ready endpoint announce' : '';
  const why = latest.kind === 'bgp_announced' ? `it had ${d['ready']} ready pod(s) of ${d['deployment']} again` : `its last ready pod of ${d['deployment']} had gone`;
  steps.push({
    entity: node,
    text: `its MetalLB speaker ${latest.kind === 'bgp_announced' ? 'announced' : 'withdrew'} the address of Service ${d['service']} at ${seconds(latest.lastAt)}, as ${why}${local}`,
  });
  const hpa = causes.find('hpa_scaled', `deployment/${d['deployment']}`);
  if (hpa) {
    const h = hpa.detail;
    steps.push(
      factStep(
        hpa,
        `its HorizontalPodAutoscaler changed the replica count ${formatCount(hpa.count)} times; the latest, at ${seconds(hpa.lastAt)}, from ${h['from']} to ${h['to']}: ${h['perPod']} requests/s per pod against a target of ${h['target']}`,
      ),
    );
  }
  const spike = causes.of('load_spike')[0];
  if (spike) {
    const p = spike.detail;
    steps.push(
      factStep(
        spike,
        `from ${seconds(spike.lastAt)} to ${seconds(Number(p['until']))}, ${p['clients']} clients sent ×${p['factor']} as many requests, ${Math.round(Number(p['rate']))} a second in all`,
      ),
    );
  }
  return steps;
}

/**
 * Requests a client pod's proxy sent to backends that had left service discovery: the backend's deregistration, the
 * client's watcher still reading, and the ZooKeeper storm that made the reads slow.
 */
function goneBackendSteps(causes: CauseLog, world: WhyWorld, gone: CauseFact): WhyStep[] {
  const d = gone.detail;
  const service = String(d['service']);
  const proxy = d['proxy'] === 'envoy' ? 'Envoy' : 'HAProxy';
  const steps: WhyStep[] = [
    factStep(
      gone,
      `${formatCount(gone.count)} requests to ${service} failed at backends that were already gone; the latest went to ${d['backend']}, gone for ${(Number(d['goneForMs']) / 1000).toFixed(1)} s, from a list its ${proxy} got ${(Number(d['listAgeMs']) / 1000).toFixed(1)} s earlier`,
    ),
  ];
  if (typeof d['connectTimeoutMs'] === 'number') {
    steps.push(
      factStep(
        gone,
        `${proxy} waits ${d['connectTimeoutMs']} ms for a connection to an address nobody answers, ${d['connectTimeoutMs'] >= Number(d['deadlineMs']) ? `longer than the caller's ${d['deadlineMs']} ms deadline` : 'then tries another backend'}`,
      ),
    );
  }
  const left = causes.find('zk_deregistered', String(d['backend']));
  if (left)
    steps.push(factStep(left, `was deregistered from /services/${service} by its ${left.detail['by']} at ${seconds(left.lastAt)}; the clients had to read the service again to learn it`));
  const read = causes.find(`zk_read ${service}`, gone.entity);
  if (read) {
    const r = read.detail;
    const how = r['requests'] === 1 ? 'one request for the whole subtree' : `${formatCount(r['requests'])} requests, one after another`;
    steps.push(factStep(gone, `its watcher read ${service} ${formatCount(read.count)} times; the latest read took ${Number(r['seconds']).toFixed(1)} s for ${how}`));
  }
  steps.push(...zookeeperSteps(causes, world, service));
  return steps;
}

/** Connections whose SYN or SYN-ACK a node's packet allowance dropped, and the health checks that filled it. */
function lostHandshakeSteps(causes: CauseLog, lost: CauseFact): WhyStep[] {
  const d = lost.detail;
  const steps: WhyStep[] = [
    factStep(
      lost,
      `${formatCount(lost.count)} connections to backends lost their SYN or SYN-ACK and sent it again; the latest, to ${d['backend']} of ${d['service']}, waited ${d['lostMs']} ms against the caller's ${d['deadlineMs']} ms deadline`,
    ),
  ];
  const full = causes.find('hypervisor_pps_exceeded', String(d['instance']));
  if (full) steps.push(...checkAllowanceSteps(full));
  return steps;
}

/** An instance's packet allowance run over by HAProxy's health checks: how many, and against what. */
function checkAllowanceSteps(full: CauseFact): WhyStep[] {
  const d = full.detail;
  if (d['checkPps'] === undefined) return [];
  return [
    factStep(
      full,
      `its hypervisor was over its packet allowance for ${formatCount(full.count)} tenths of a second; the latest time HAProxy health checks alone came to ${formatCount(d['checkPps'])} packets a second against ${formatCount(d['allowance'])}, and ${d['lossPct']} % of its packets were dropped`,
    ),
    {
      entity: full.entity,
      text: `every HAProxy checks every server line it lists once per inter, and a check's packets count at the instances at both ends: ${formatCount(d['checks'])} checks a second start or end here, ${d['packets']} packets each. A restarted HAProxy marks a server DOWN at its first failed check`,
    },
  ];
}

/** Why ZooKeeper was slow: the reads each change of a service costs, the packet allowance they ran into, and the deploy. */
function zookeeperSteps(causes: CauseLog, world: WhyWorld, service: string): WhyStep[] {
  const steps: WhyStep[] = [];
  const zk = world.discovery(service);
  if (zk) {
    const perChange = zk.watchers * (1 + zk.backends);
    steps.push({
      entity: 'zookeeper/ensemble',
      text: `${service} changed ${formatCount(zk.changes)} times; a change fires the watch of each of its ${formatCount(zk.watchers)} watchers, and each reads the list and then ${formatCount(zk.backends)} children one by one: ${formatCount(perChange)} reads for a change on its own. Changes during a read wait for it and share the next one, so they cost ${formatCount(zk.reads)} reads in all`,
    });
  }
  const alarm = causes.of('zk_packet_alarm')[0];
  if (alarm) {
    const a = alarm.detail;
    steps.push(
      factStep(
        alarm,
        `its packet alarm fired in ${formatCount(alarm.count)} seconds: at ${seconds(alarm.lastAt)} ${a['server']} handled ${formatCount(a['pps'])} packets/s against an allowance of ${formatCount(a['allowance'])}, and ${a['dropped']} % were dropped and sent again, slowing every read on it`,
      ),
    );
  }
  const deployment = causes.find('rollout', `deployment/${service}`) ?? causes.of('rollout')[0];
  if (deployment)
    steps.push(factStep(deployment, `rolled out a new version at ${seconds(deployment.lastAt)}: every pod it replaced deregistered and every new one registered, each a change`));
  return steps;
}

/** New connections a node sent to pods no longer among the ready endpoints: its kube-proxy's syncs, and who keeps them busy. */
function staleSteps(causes: CauseLog, stale: CauseFact): WhyStep[] {
  const node = stale.entity;
  const steps: WhyStep[] = [
    {
      entity: node,
      text: `sent ${formatCount(stale.count)} new connections to pods that had already left their Service's ready endpoints (the latest to ${stale.detail['pod']}, ${stale.detail['phase']}): its rules were behind the API`,
    },
  ];
  const sync = causes.find('kube_proxy_sync', node);
  if (sync) {
    const kind = sync.detail['full'] === 1 ? 'full restore' : 'partial restore';
    steps.push({
      entity: node,
      text: `its kube-proxy ran ${formatCount(sync.count)} syncs; each change waits for the one running, and the latest, a ${kind} of ${formatCount(sync.detail['rules'])} rules, took ${duration(sync.detail['tookUs'])}`,
    });
  }
  const busiest = causes.of('endpoints_changed')[0];
  if (busiest) {
    const all = causes.of('endpoints_changed').reduce((n, f) => n + f.count, 0);
    steps.push(factStep(busiest, `caused ${formatCount(busiest.count)} of the ${formatCount(all)} endpoint changes; every one of them is a sync on every node`));
  }
  return steps;
}

const ms = (us: number | string | undefined) => `${(Number(us) / 1000).toFixed(1)} ms`;
const duration = (us: number | string | undefined) => (Number(us) < 1e6 ? ms(us) : `${(Number(us) / 1e6).toFixed(2)} s`);

/** Requests that waited for CPU, the throttled periods behind them, and what ate the quota. */
function cpuSteps(causes: CauseLog, slow: CauseFact | undefined, throttled: CauseFact): WhyStep[] {
  const d = throttled.detail;
  const entity = throttled.entity;
  const periods = causes.find('cpu_period', entity)?.count ?? throttled.count;
  const steps: WhyStep[] = [];
  if (slow) steps.push({ entity, text: `${formatCount(slow.count)} requests waited 5 ms or more for CPU beyond their own work; the longest ${ms(slow.detail['longestUs'])}` });
  steps.push({
    entity,
    text: `its cgroup was throttled in ${formatCount(throttled.count)} of ${formatCount(periods)} periods; in the latest it used ${ms(d['usedUs'])} of its ${ms(d['quotaUs'])} quota`,
  });
  const held = `its threads ran on ${d['cpus']} CPUs; a CPU takes runtime from the quota ${ms(d['sliceUs'])} at a time and keeps 1 ms when it goes idle`;
  if (Number(d['expiredUs']) > 0) {
    steps.push({ entity, text: `${held}, and on this kernel (4.18 to 5.3) the ${ms(d['expiredUs'])} the CPUs still held expired at the period's end` });
  } else if (Number(d['usedUs']) >= 0.95 * Number(d['quotaUs'])) {
    steps.push({ entity, text: `its threads needed the whole quota in that period` });
  } else {
    steps.push({ entity, text: `${held}, so the pool ran dry while CPUs held what the others needed; on this kernel unused runtime carries over, so nothing expired` });
  }
  const cores = Number(d['quotaUs']) / Number(d['periodUs']);
  steps.push({ entity, text: `its CPU limit of ${cores} cores sets the quota to ${ms(d['quotaUs'])} per ${ms(d['periodUs'])} period` });
  return steps;
}

/**
 * Why a server logged an address that was not its client's, read from the latest sampled request it logged that way:
 * the server's choice, then back along the request every hop that changed its source address or its header.
 */
function clientAddressSteps(world: WhyWorld, fact: CauseFact, verdict: 'internal' | 'forged'): WhyStep[] {
  const journey = world
    .journeys()
    .reverse()
    .find((j) => j.logged?.verdict === verdict && j.hops.at(-1)?.where === fact.entity);
  if (!journey) return [];
  const hops = journey.hops;
  const server = hops.at(-1)!;
  const from = server.xff === '' ? "its connection's peer, as no X-Forwarded-For came with it" : `the leftmost entry of X-Forwarded-For: ${server.xff}`;
  const steps: WhyStep[] = [
    factStep(
      fact,
      `logged ${CLIENT_ADDRESS_TEXT[verdict]} as the client for ${formatCount(fact.count)} requests; a sampled request from ${journey.origin} was logged as ${journey.logged!.address}, ${from}`,
    ),
  ];
  const sourceOf = (address: string) => address.slice(0, address.lastIndexOf(':'));
  for (let i = hops.length - 2; i >= 1; i--) {
    const hop = hops[i]!;
    const before = hops[i - 1]!;
    if (sourceOf(hop.src) === sourceOf(before.src) && hop.xff === before.xff) continue;
    steps.push({ entity: hop.where, text: `${hop.what}; the request went on from ${sourceOf(hop.src)} with X-Forwarded-For ${hop.xff === '' ? 'empty' : `"${hop.xff}"`}` });
  }
  const first = hops[0]!;
  const header = first.xff === '' ? 'with no X-Forwarded-For' : `with an X-Forwarded-For of its own: "${first.xff}"`;
  steps.push({ entity: first.where, text: `sent the request from ${journey.origin} ${header}` });
  return steps;
}

function martianSteps(causes: CauseLog, world: WhyWorld, martians: CauseFact): WhyStep[] {
  const d = martians.detail;
  const iface = d['iface'] === undefined ? '' : ` on ${d['iface']}${d['ifaceHasAddress'] === 0 ? ', which has no IPv4 address' : ''}`;
  const steps: WhyStep[] = [factStep(martians, `${formatCount(martians.count)} packets dropped as martians${iface} (rp_filter ${d['rpFilter']})`)];
  if (typeof d['dst'] === 'number') steps.push(...addressSteps(causes, world, d['dst']));
  return steps;
}

/**
 * The chain behind one symptom someone clicked: a drop reason or error kind at an entity (or, without one, where it
 * happened most). Null when nothing of the kind was recorded there. `explain` gives a drop reason's sentence.
 */
export function whyFor(causes: CauseLog, world: WhyWorld, kind: string, entity: string | undefined, explain: (kind: string) => string | undefined): WhyChain | null {
  const fact = entity === undefined ? causes.of(kind)[0] : causes.find(kind, entity);
  if (!fact) return null;
  const symptom = `${kind} at ${fact.entity}`;
  // A reset at a node is the ECMP story once the router has changed its group; otherwise the address tells the story.
  if (kind === 'no_socket_reset' && fact.entity.startsWith('node/') && causes.of('ecmp_changed').length > 0) return chain(fact, symptom, ecmpSteps(causes, fact));
  switch (kind) {
    case 'grpc_dependency_error': {
      const node = world.nodeOf(fact.entity);
      const steps: WhyStep[] = [factStep(fact, `${formatCount(fact.count)} queries failed because the pod's dependencies did not resolve`)];
      if (node) steps.push(...dnsSteps(causes, world, node));
      return chain(fact, symptom, steps);
    }
    case 'dns_refused':
      return chain(fact, symptom, dnsSteps(causes, world, fact.entity));
    case 'hypervisor_conntrack_exceeded':
      return chain(fact, symptom, allowanceSteps(causes, world, fact));
    case 'rp_filter_martian':
      return chain(fact, symptom, martianSteps(causes, world, fact));
    case 'stale_endpoint':
      return chain(fact, symptom, staleSteps(causes, fact));
    case 'stale_backend':
      return chain(fact, symptom, goneBackendSteps(causes, world, fact));
    case 'handshake_lost':
      return chain(fact, symptom, lostHandshakeSteps(causes, fact));
    case 'hypervisor_pps_exceeded':
      if (fact.detail['checkPps'] !== undefined) return chain(fact, symptom, checkAllowanceSteps(fact));
      if (fact.entity !== 'zookeeper/ensemble') break;
      return chain(fact, symptom, [
        factStep(
          fact,
          `the ZooKeeper hosts' hypervisors dropped ${formatCount(fact.detail['dropped'])} packets over ${Math.round(fact.count * Number(fact.detail['tickSeconds']))} server-seconds above their allowance`,
        ),
        ...zookeeperSteps(causes, world, String(fact.detail['service'])),
      ]);
    case 'pod_ip_collision':
      return chain(fact, symptom, collisionSteps(causes, fact));
    case 'node_down':
      if (!fact.entity.startsWith('router/')) return chain(fact, symptom, darkNodeSteps(causes, world, fact));
      return chain(fact, symptom, staleNextHopSteps(causes, world, fact));
    case 'no_local_endpoint': {
      const lost = silentPeer(causes, fact.entity);
      if (!lost) break;
      return chain(fact, symptom, hungSpeakerSteps(fact, lost));
    }
    case 'cpu_delayed':
    case 'cpu_throttled': {
      const throttled = causes.find('cpu_throttled', fact.entity);
      if (!throttled) return chain(fact, symptom, [factStep(fact, `${formatCount(fact.count)} requests waited for a CPU: their threads queued behind each other, not throttled`)]);
      return chain(fact, symptom, cpuSteps(causes, kind === 'cpu_delayed' ? fact : undefined, throttled));
    }
    case CLIENT_ADDRESS_CAUSES.internal:
    case CLIENT_ADDRESS_CAUSES.forged: {
      const verdict = kind === CLIENT_ADDRESS_CAUSES.forged ? 'forged' : 'internal';
      const steps = clientAddressSteps(world, fact, verdict);
      const none = factStep(fact, `${formatCount(fact.count)} requests; none of the sampled requests kept shows the path yet`);
      return chain(fact, symptom, steps.length > 0 ? steps : [none]);
    }
  }
  const why = explain(kind);
  const steps: WhyStep[] = [factStep(fact, `${formatCount(fact.count)} times${why ? `: ${why}` : ''}`)];
  if (typeof fact.detail['dst'] === 'number') steps.push(...addressSteps(causes, world, fact.detail['dst']));
  return chain(fact, symptom, steps);
}

/** node-local DNS on a node: refusals, failing upstream connections, and the instance's allowance under them. */
function dnsSteps(causes: CauseLog, world: WhyWorld, node: string): WhyStep[] {
  const steps: WhyStep[] = [];
  const refused = causes.find('dns_refused', node);
  const saturated = causes.find('dns_saturated', node);
  if (refused) {
    const limit = saturated ? ` with all ${saturated.detail['maxConcurrent']} max_concurrent slots taken` : '';
    steps.push({ entity: node, at: refused.lastAt, text: `node-local DNS answered ${formatCount(refused.count)} queries REFUSED${limit}` });
  }
  const upstream = causes.find('dns_upstream_error', node);
  if (upstream)
    steps.push({
      entity: node,
      at: upstream.lastAt,
      text: `its queries to the upstream DNS failed ${formatCount(upstream.count)} times: connections could not be opened or went unanswered`,
    });
  const instance = `instance/${node.slice('node/'.length)}`;
  const exceeded = causes.find('hypervisor_conntrack_exceeded', instance);
  if (exceeded) steps.push(...allowanceSteps(causes, world, exceeded));
  return steps;
}

/** A full tracked-connection table: how full, what fills it, and from there who sends to that address. */
function allowanceSteps(causes: CauseLog, world: WhyWorld, exceeded: CauseFact): WhyStep[] {
  const d = exceeded.detail;
  const steps: WhyStep[] = [
    factStep(exceeded, `the hypervisor dropped ${formatCount(exceeded.count)} packets of new flows: ${formatCount(d['used'])} of ${formatCount(d['allowance'])} tracked connections in use`),
  ];
  const busiest = d['busiestDst'];
  if (typeof busiest === 'number') {
    const share = Math.round(100 * Number(d['busiestShare'] ?? 0));
    steps.push(factStep(exceeded, `${share} % of the tracked flows sampled go to ${formatIpv4(busiest)}`));
    steps.push(...addressSteps(causes, world, busiest));
  }
  return steps;
}

/** A load balancer that sent connections to a member before its monitor had judged it, and the node that just joined. */
function unknownMemberSteps(causes: CauseLog, world: WhyWorld, lb: string, ip: number): WhyStep[] {
  const address = formatIpv4(ip);
  const picks = causes.find('lb_pick_unknown', `${lb} ${address}`);
  if (!picks) return [];
  const steps: WhyStep[] = [
    {
      entity: lb,
      text: `gave ${formatCount(picks.count)} new connections to ${address} from ${seconds(picks.firstAt)} while its health was still unknown: only members marked down are skipped, and the monitor needs its timeout to mark one down`,
    },
  ];
  const node = world.nodeByIp(ip);
  const joined = node ? causes.find('node_joined', node) : undefined;
  if (node && joined) {
    const pods = joined.detail['pods'] === 0 ? ' with no pods yet' : '';
    steps.push({ entity: node, at: joined.firstAt, text: `joined the cluster at ${seconds(joined.firstAt)}${pods}; the controller added it to the pool at its next node poll` });
  }
  return steps;
}

/** Whose address it was, where it still lives, and who keeps trying to reach it. */
function addressSteps(causes: CauseLog, world: WhyWorld, ip: number): WhyStep[] {
  const steps: WhyStep[] = [];
  const address = formatIpv4(ip);
  const pod = world.podByIp(ip);
  const collision = pod ? causes.find('pod_ip_collision', pod.entity) : undefined;
  if (collision) steps.push(...collisionSteps(causes, collision));
  if (pod?.deletedAt !== undefined) {
    const holder = world.holderOf(ip);
    const still = holder ? `; the address is still attached to ${holder}` : '';
    steps.push({ entity: pod.entity, at: pod.deletedAt, text: `${address} was this pod's address; it was deleted at ${seconds(pod.deletedAt)}${still}` });
  }
  const attempts = causes.attemptsTo(ip);
  if (attempts.length > 0) {
    const [origin, count] = attempts[0]!;
    steps.push({ entity: origin, text: `made ${count} of the ${attempts.reduce((n, [, c]) => n + c, 0)} connection attempts to ${address}` });
    if (origin.startsWith('lb/')) steps.push(...unknownMemberSteps(causes, world, origin, ip));
    const deployment = origin.startsWith('deployment/') ? origin.slice('deployment/'.length) : undefined;
    const policy = deployment ? world.reconnectPolicy(deployment) : undefined;
    if (policy) steps.push({ entity: origin, text: policy });
  }
  return steps;
}
