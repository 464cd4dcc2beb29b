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
  kind: EditKind | 'pod' | 'scenario' | 'params';
  name: string;
  path: YamlPath;
  removable: boolean;
  detail: string;
  /** Why it cannot be removed, when it cannot. */
  reason?: string;
}

/** `unset` takes a single value out of the text, so its default (or nothing) applies again. */
export type Edit = { op: 'add'; kind: EditKind } | { op: 'remove'; path: YamlPath } | { op: 'set'; path: YamlPath; value: ScalarValue } | { op: 'unset'; path: YamlPath };

/** One single value of an outline item, typed from the scenario's schema, for the editor's properties form. */
export interface Field {
  /** The key under the item, dotted when it is inside a map of the item (`autoscale.maxReplicas`). */
  key: string;
  path: YamlPath;
  input: 'number' | 'text' | 'boolean' | 'choice';
  /** A number input that takes whole numbers only. */
  integer?: boolean;
  /** A text input where a whole number is written as a number (a count or a percentage). */
  numeric?: boolean;
  options?: string[];
  min?: number;
  max?: number;
  /** Exclusive lower bound. */
  above?: number;
  default?: ScalarValue;
  required: boolean;
  /** What the text says, when it says it as a single value. */
  value?: ScalarValue;
}
