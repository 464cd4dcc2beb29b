import type { PodView, TopologyView } from '../sim';
import { appStore } from './app-store';
import { frameStore } from './frame-store';

/** What the inspector shows: one entity of the topology, named `kind/name` like fault targets and log entries. */

export function splitEntity(entity: string): { kind: string; name: string } {
  const slash = entity.indexOf('/');
  return slash < 0 ? { kind: entity, name: '' } : { kind: entity.slice(0, slash), name: entity.slice(slash + 1) };
}

export function selectEntity(entity: string): void {
  if (appStore.getState().selected !== entity) appStore.setState({ selected: entity });
}

/** Selects an entity and asks the picture to bring it into view (from outside the picture: search, why, the log). */
export function revealEntity(entity: string): void {
  appStore.setState((s) => ({ selected: entity, reveal: { entity, n: (s.reveal?.n ?? 0) + 1 } }));
}

/** Returns whether there was a selection to clear. */
export function clearSelection(): boolean {
  if (appStore.getState().selected === null) return false;
  appStore.setState({ selected: null });
  return true;
}

/** The pod `entity` names, while the topology still draws it (a pod shown as gone counts until it is forgotten). */
export function findPod(topology: TopologyView | null, entity: string | null): PodView | undefined {
  if (!topology || entity === null) return undefined;
  const { kind, name } = splitEntity(entity);
  return kind === 'pod' ? topology.pods.find((p) => p.name === name) : undefined;
}

/** Whether the topology draws the entity: a pod, node, instance, router, load balancer, Service or external system. */
export function entityExists(topology: TopologyView, entity: string): boolean {
  const { kind, name } = splitEntity(entity);
  switch (kind) {
    case 'pod':
      return topology.pods.some((p) => p.name === name);
    case 'node':
      return topology.nodes.some((n) => n.name === name);
    case 'instance':
      return topology.nodes.some((n) => n.instance?.entity === entity);
    case 'service':
      return topology.services.some((s) => s.name === name);
    default:
      return [...topology.routers, ...topology.loadBalancers, ...topology.externals].some((e) => e.entity === entity);
  }
}

/**
 * Clears the selection when a new topology of the run no longer holds the selected entity. Between runs (no topology yet) the
 * selection is kept, so a reset or a fix toggle comes back to the same pod. Returns the unsubscribe function.
 */
export function followTopology(): () => void {
  const prune = (topology: TopologyView | null): void => {
    const { selected } = appStore.getState();
    if (topology && selected !== null && !entityExists(topology, selected)) clearSelection();
  };
  prune(frameStore.getState().topology);
  // A scrub's preview may show a moment before the selected entity was there: the selection is the run's, and stays.
  return frameStore.subscribe((s, prev) => {
    if (s.topology !== prev.topology && s.preview === null) prune(s.topology);
  });
}
