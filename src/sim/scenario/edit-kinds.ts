/** What the scenario editor can do to a topology; no code runs on import, so the UI can take the list as it is. */

export type EditKind = 'node' | 'deployment' | 'service' | 'client' | 'router' | 'load-balancer';
export type YamlPath = (string | number)[];
export type ScalarValue = string | number | boolean;

/** Something the editor can add, with what a button needs to say. */
export interface EditOption {
  kind: EditKind;
  label: string;
  /** What the button adds, for its tooltip. */
  description: string;
}

export const ADDABLE: readonly EditOption[] = [
  { kind: 'node', label: 'Node', description: 'An empty node with the next free address and a /24 pod CIDR of its own.' },
  { kind: 'deployment', label: 'Deployment', description: 'An http-server Deployment with one replica, placed by the scheduler.' },
  { kind: 'service', label: 'Service', description: 'A ClusterIP Service selecting an http-server or ingress-proxy Deployment that has none yet.' },
  { kind: 'client', label: 'Client', description: 'An http-client Deployment with one replica calling a Service.' },
  { kind: 'router', label: 'Router', description: 'A router on the node network, for BGP peering.' },
  { kind: 'load-balancer', label: 'Load balancer', description: 'An F5-style load balancer with one virtual server in front of a Service.' },
];

/** One item of the topology outline the editor lists: its kind, a name, its YAML path, and whether it can be removed. */
export interface OutlineItem {
  kind: EditKind | 'pod';
  name: string;
  path: YamlPath;
  removable: boolean;
  detail: string;
  /** Why it cannot be removed, when it cannot. */
  reason?: string;
}

export type Edit = { op: 'add'; kind: EditKind } | { op: 'remove'; path: YamlPath } | { op: 'set'; path: YamlPath; value: ScalarValue };
