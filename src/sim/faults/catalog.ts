import type { FaultDescriptor } from '../api';
import { deletePod } from './delete-pod';
import { rollingUpdate } from './rolling-update';
import type { Fault } from './fault';

/** Every fault, one file each. */
export const FAULTS: readonly Fault[] = [deletePod, rollingUpdate];

export const FAULT_IDS: string[] = FAULTS.map((f) => f.id);

export function findFault(id: string): Fault | undefined {
  return FAULTS.find((f) => f.id === id);
}

/** The catalog as plain data for the UI, the CLI's --list and shared links. */
export function faultCatalog(): FaultDescriptor[] {
  return FAULTS.map(({ id, label, icon, description, targets, params }) => ({
    id,
    label,
    icon,
    description,
    targets: [...targets],
    params: params.map((p) => ({ ...p })),
  }));
}
