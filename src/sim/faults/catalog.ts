import type { FaultDescriptor } from '../api';
import { addBgpSpeaker } from './add-bgp-speaker';
import { addInterfaceAddress } from './add-interface-address';
import { breakUpstream } from './break-upstream';
import { changeEcmpHash } from './change-ecmp-hash';
import { crashLoop } from './crash-loop';
import { deletePod } from './delete-pod';
import { drainNode } from './drain-node';
import type { Fault } from './fault';
import { recreatePool } from './recreate-pool';
import { joinNode } from './join-node';
import { loadSpike } from './load-spike';
import { removeBgpSpeaker } from './remove-bgp-speaker';
import { removeInterfaceAddress } from './remove-interface-address';
import { removeNode } from './remove-node';
import { restartNodeAgent } from './restart-node-agent';
import { rollingUpdate } from './rolling-update';
import { rollOutFix } from './roll-out-fix';
import { scaleDeployment } from './scale-deployment';
import { setCpuLimit } from './set-cpu-limit';
import { setForwardedHeader } from './set-forwarded-header';
import { setInstanceAllowance } from './set-instance-allowance';
import { setLbPolicy } from './set-lb-policy';
import { setReconnectPolicy } from './set-reconnect-policy';
import { setRpFilter } from './set-rp-filter';
import { slowUpstream } from './slow-upstream';
import { slowZookeeper } from './slow-zookeeper';
import { partitionZookeeper } from './partition-zookeeper';
import { setEnvoyRollout } from './set-envoy-rollout';
import { powerOffNode } from './power-off-node';
import { failRackSwitch } from './fail-rack-switch';
import { hangBgpSpeaker } from './hang-bgp-speaker';
import { restartBgpSpeaker } from './restart-bgp-speaker';

/** Every fault, one file each, in palette order. */
export const FAULTS: readonly Fault[] = [
  deletePod,
  rollingUpdate,
  scaleDeployment,
  loadSpike,
  crashLoop,
  setCpuLimit,
  drainNode,
  removeNode,
  joinNode,
  recreatePool,
  restartNodeAgent,
  setForwardedHeader,
  addBgpSpeaker,
  removeBgpSpeaker,
  changeEcmpHash,
  powerOffNode,
  failRackSwitch,
  hangBgpSpeaker,
  restartBgpSpeaker,
  setInstanceAllowance,
  setRpFilter,
  addInterfaceAddress,
  removeInterfaceAddress,
  breakUpstream,
  slowUpstream,
  setReconnectPolicy,
  setLbPolicy,
  slowZookeeper,
  partitionZookeeper,
  setEnvoyRollout,
];

export const FAULT_IDS: string[] = FAULTS.map((f) => f.id);

/** Faults the palette, timelines and sweeps do not offer, for a compare's run B alone. */
const BRANCH_FAULTS: Fault[] = [rollOutFix];

export function findFault(id: string): Fault | undefined {
  return FAULTS.find((f) => f.id === id) ?? BRANCH_FAULTS.find((f) => f.id === id);
}

/** The catalog as plain data for the UI, the CLI's --list and shared links. */
export function faultCatalog(): FaultDescriptor[] {
  return FAULTS.map(({ id, label, icon, description, targets, params }) => ({
    id,
    label,
    icon,
    description,
    targets: [...targets],
    params: params.map((p) => ({ ...p, ...(p.choices ? { choices: [...p.choices] } : {}) })),
  }));
}
