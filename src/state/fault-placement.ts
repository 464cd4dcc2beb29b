import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { FaultDescriptor } from '../sim';

/**
 * Putting a fault on the picture: a card being dragged (or picked from the keyboard) while the picture shows which
 * boxes take it, then a popover for its parameters at the box it was dropped on.
 */

export interface DropTarget {
  /** `kind/name` as the fault's target. */
  target: string;
  /** Where the popover opens, in the topology panel's pixels. */
  x: number;
  y: number;
}

export interface PlacementState {
  /** The fault being dragged or waiting for a target chosen by click or Enter; null otherwise. */
  placing: FaultDescriptor | null;
  /** The fault and target whose parameters are being set. */
  pending: (DropTarget & { fault: FaultDescriptor }) | null;
}

export const placementStore = createStore<PlacementState>(() => ({ placing: null, pending: null }));

export function usePlacement<T>(selector: (s: PlacementState) => T): T {
  return useStore(placementStore, selector);
}

export function startPlacing(fault: FaultDescriptor): void {
  placementStore.setState({ placing: fault, pending: null });
}

export function stopPlacing(): void {
  if (placementStore.getState().placing) placementStore.setState({ placing: null });
}

export function openFault(fault: FaultDescriptor, at: DropTarget): void {
  placementStore.setState({ placing: null, pending: { fault, ...at } });
}

export function closeFault(): void {
  placementStore.setState({ placing: null, pending: null });
}

/** What a box on the picture offers as a target, described by the data attributes d3 puts on it. */
export interface BoxInfo {
  /** `kind/name` of the box itself (pod, node, instance, router, lb, service, external), if it has one. */
  entity: string | null;
  /** The deployment of a pod or of a chip of pods. */
  deployment: string | null;
  /** The node the box is on or is. */
  node: string | null;
  /** The `dns/...` target the box stands for (the simulation's TopologyView.dnsTargets), if any. */
  dns: string | null;
}

/** The DNS target of a box, looked up by its entity, then by its deployment. */
export function dnsTargetOf(targets: Readonly<Record<string, string>>, entity: string | null, deployment: string | null): string | null {
  return (entity !== null ? targets[entity] : undefined) ?? (deployment !== null ? targets[`deployment/${deployment}`] : undefined) ?? null;
}

/**
 * The target a fault takes when dropped on a box: the box itself if the fault accepts its kind, else the pod's or
 * chip's deployment, else the node the box sits on; null when the fault takes none of them.
 */
export function targetFor(fault: FaultDescriptor, box: BoxInfo): string | null {
  const kinds = fault.targets;
  if (box.entity) {
    const kind = box.entity.slice(0, box.entity.indexOf('/'));
    if (kinds.includes(kind)) return box.entity;
  }
  const dns = kinds.includes('dns') ? box.dns : null;
  if (dns) return dns;
  if (box.deployment && kinds.includes('deployment')) return `deployment/${box.deployment}`;
  if (box.node && kinds.includes('node')) return `node/${box.node}`;
  return null;
}

/** The faults that can land on a box, each with the target it would take there. */
export function faultsForBox(catalog: readonly FaultDescriptor[], box: BoxInfo): { fault: FaultDescriptor; target: string }[] {
  return catalog.flatMap((fault) => {
    const target = targetFor(fault, box);
    return target ? [{ fault, target }] : [];
  });
}
