import { definedKnobs } from '../apps/catalog';
import { GRPC_CLIENT_DEFAULTS } from '../apps/grpc-client';
import { RECONNECT_INTERVAL_MS } from '../apps/grpc/backoff';
import { TRIED_CPU_LIMIT_CORES } from '../faults/set-cpu-limit';
import { knobsOf } from '../scenario/params';
import type { Scenario } from '../scenario/schema';

/** A configuration that real incidents turned on, which the sweep tries on every place of a scenario that could have it. */
export interface RiskySetting {
  id: string;
  /** Why it is dangerous, in one line. */
  why: string;
  /** The docs/sources section that says so, with its primary source. */
  source: string;
  /** What it applies to in a scenario, as `kind/name`, found from the scenario's topology. */
  targets(scenario: Scenario): string[];
  /** The `--set` overrides that turn it on for a target from time 0: none when the scenario already has it there. */
  sets(scenario: Scenario, target: string): string[];
}

/** A risky setting on one target, and the overrides that turn it on. */
export interface SettingUse {
  id: string;
  target: string;
  sets: string[];
}

/** The assignments among `wanted` whose place does not hold that value yet, as `path=value`. */
function missing(wanted: readonly [path: string, now: unknown, value: string | number | boolean][]): string[] {
  return wanted.filter(([, now, value]) => now !== value).map(([path, , value]) => `${path}=${value}`);
}

const nameOf = (target: string): string => target.slice(target.indexOf('/') + 1);

export const RISKY_SETTINGS: readonly RiskySetting[] = [
  {
    id: 'fixed-reconnect',
    why: "round_robin channels redial every address of a name in the background every 300 ms, each attempt given 300 ms, instead of gRPC's growing backoff: a deleted pod's address draws a SYN storm until the next re-resolution",
    source: 'docs/sources/incidents.md#it-wasnt-dns',
    targets: (scenario) =>
      Object.entries(scenario.topology.deployments)
        .filter(([, d]) => d.app === 'grpc-client')
        .map(([name]) => `deployment/${name}`),
    sets(scenario, target) {
      const name = nameOf(target);
      const now = { ...GRPC_CLIENT_DEFAULTS, ...definedKnobs(knobsOf(scenario.params, name)) };
      const interval = RECONNECT_INTERVAL_MS.default;
      return missing([
        [`params.${name}.lbPolicy`, now.lbPolicy, 'round_robin'],
        [`params.${name}.reconnect`, now.reconnect, 'fixed'],
        [`params.${name}.reconnectIntervalMs`, now.reconnectIntervalMs, interval],
        // Each attempt given 300 ms too, as its-not-dns reads the talk (docs/sources/grpc.md#connection-backoff).
        [`params.${name}.minConnectTimeoutMs`, now.minConnectTimeoutMs, interval],
      ]);
    },
  },
  {
    id: 'etp-local-unknown-members',
    why: 'externalTrafficPolicy: Local behind a load balancer whose pool holds every node and sends to members of unknown health: a node with no local pod drops what it is sent until the monitor marks it down (16 s)',
    source: 'docs/sources/load-balancers.md#members-with-unknown-health',
    targets: (scenario) => {
      const services = scenario.topology.loadBalancers.flatMap((lb) => lb.virtualServers.filter((v) => v.members === 'nodes').map((v) => v.service));
      return Object.keys(scenario.topology.services)
        .filter((name) => services.includes(name))
        .map((name) => `service/${name}`);
    },
    sets(scenario, target) {
      const name = nameOf(target);
      const lb = scenario.params.lb;
      return missing([
        [`topology.services.${name}.externalTrafficPolicy`, scenario.topology.services[name]!.externalTrafficPolicy, 'Local'],
        ['params.lb.unknownReceivesTraffic', lb.unknownReceivesTraffic, true],
        ['params.lb.activation', lb.activation, 'immediate'],
      ]);
    },
  },
  {
    id: 'cpu-limit-expiring-kernel',
    why: "a CPU limit on a pod whose threads do CPU work across the node's cores, on a kernel from 4.18 to 5.3: each core's unused slice expires every period and the pod is throttled far below its quota",
    source: 'docs/sources/linux-cfs.md#slice-expiry-bug',
    targets: (scenario) =>
      Object.entries(scenario.topology.deployments)
        .filter(([, d]) => d.app === 'http-server' && d.cpuPerRequestMs > 0)
        .map(([name]) => `deployment/${name}`),
    sets(scenario, target) {
      const name = nameOf(target);
      const deployment = scenario.topology.deployments[name]!;
      const limited = deployment.app === 'http-server' && (deployment.cpuLimit ?? 0) > 0;
      // A limit the scenario gives stays as it is; a deployment without one gets the tried half core.
      const limit = limited ? [] : [`topology.deployments.${name}.cpuLimit=${TRIED_CPU_LIMIT_CORES}`];
      return [...limit, ...missing([['params.cpu.kernel', scenario.params.cpu.kernel, 'expiring']])];
    },
  },
  {
    id: 'stateless-ecmp',
    why: 'a router that hashes flows over its BGP next hops without resilient hashing: each next hop a speaker adds or withdraws moves up to half of the established flows to nodes that reset them',
    source: 'docs/sources/load-balancers.md#ecmp-hash-threshold',
    targets: (scenario) => (scenario.topology.bgp ? [`router/${scenario.topology.bgp.router}`] : []),
    sets(scenario, target) {
      const i = scenario.topology.routers.findIndex((r) => r.name === nameOf(target));
      // Modulo-N moves even more than hash-threshold; either one is the setting.
      return scenario.topology.routers[i]!.ecmp === 'resilient' ? [`topology.routers.${i}.ecmp=hash-threshold`] : [];
    },
  },
];

export const SETTING_IDS: readonly string[] = RISKY_SETTINGS.map((s) => s.id);

/** Where the chosen settings (all when `ids` is absent) would change the scenario, which have no target in it, and which it already has. */
export function settingUses(scenario: Scenario, ids?: readonly string[]): { uses: SettingUse[]; untargeted: string[]; inEffect: { id: string; target: string }[] } {
  const uses: SettingUse[] = [];
  const untargeted: string[] = [];
  const inEffect: { id: string; target: string }[] = [];
  for (const setting of RISKY_SETTINGS.filter((s) => ids === undefined || ids.includes(s.id))) {
    const targets = setting.targets(scenario);
    if (targets.length === 0) untargeted.push(setting.id);
    for (const target of targets) {
      const sets = setting.sets(scenario, target);
      if (sets.length === 0) inEffect.push({ id: setting.id, target });
      else uses.push({ id: setting.id, target, sets });
    }
  }
  return { uses, untargeted, inEffect };
}
