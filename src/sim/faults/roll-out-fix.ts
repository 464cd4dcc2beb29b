import { GRPC_CLIENT_DEFAULTS, type GrpcClientSettings } from '../apps/grpc-client';
import type { Scenario, ScenarioFix } from '../scenario/schema';
import { defineFault } from './fault';
import { rollOutClientSettings } from './targets';

type Rollout = Map<string, Partial<GrpcClientSettings>>;

/**
 * What rolling fix `name` out to a running cluster changes: the gRPC client settings it sets, by deployment. Or why a
 * running cluster cannot take it: a setting that is not a client's pod template (instances, nodes, DNS) changes only
 * with a new run, as resizing instances or changing a sysctl fleet-wide is not a rollout.
 */
export function fixRollout(fixes: Readonly<Record<string, ScenarioFix>>, isGrpcClient: (deployment: string) => boolean, name: string): Rollout | string {
  const fix = Object.hasOwn(fixes, name) ? fixes[name] : undefined;
  if (!fix) return `no fix named "${name}"`;
  const rollout: Rollout = new Map();
  for (const [path, value] of Object.entries(fix.set)) {
    const match = /^params\.([^.]+)\.([^.]+)$/.exec(path);
    const [, deployment = '', key = ''] = match ?? [];
    if (!match || !isGrpcClient(deployment) || !Object.hasOwn(GRPC_CLIENT_DEFAULTS, key)) {
      return `${path} is not a gRPC client's pod template, which is all a rollout changes: compare from 0 instead`;
    }
    rollout.set(deployment, { ...rollout.get(deployment), [key]: value });
  }
  return rollout;
}

/** Why a compare cannot roll fix `name` of `scenario` out from a moment on, or null when it can. */
export function fixRolloutProblem(scenario: Scenario, name: string): string | null {
  const rollout = fixRollout(scenario.fixes, (deployment) => scenario.topology.deployments[deployment]?.app === 'grpc-client', name);
  return typeof rollout === 'string' ? rollout : null;
}

/**
 * Not in the palette: how a compare's run B takes a fix from a moment on (its record holds it like a fault a user
 * applied). Each client deployment the fix sets gets the settings in its pod template and rolls, as a release would.
 */
export const rollOutFix = defineFault({
  id: 'roll-out-fix',
  label: 'Roll out a fix',
  icon: '✓',
  description: "Rolls one of the scenario's fixes out to the running cluster: the gRPC client settings it sets go into their deployments' pod templates, and the deployments roll.",
  targets: ['fix'],
  params: [],
  apply(world, _kind, name, _params, cause) {
    const rollout = fixRollout(world.fixes, (deployment) => world.grpcClientSettings(deployment) !== undefined, name);
    if (typeof rollout === 'string') throw new Error(`target: fix "${name}": ${rollout}`);
    for (const [deployment, change] of rollout) rollOutClientSettings(world, deployment, change, cause);
  },
});
