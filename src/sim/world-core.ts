import type { SimContext } from './context';
import type { NamespaceStacks } from './dns/packet-transport';
import type { ExternalHost } from './infra/external-host';
import type { Host } from './infra/host';
import type { Network } from './infra/network';
import type { Service } from './k8s/service';
import type { Workloads } from './k8s/workloads';
import type { Tcp } from './net/tcp';
import type { Udp } from './net/udp';

/**
 * The parts of the world that setting up its edge and its DNS builds on, and that its pictures read: what World offers
 * them, so that they depend on this and not on World, which builds them.
 */
export interface WorldCore {
  readonly ctx: SimContext;
  readonly hosts: Host[];
  readonly services: Map<string, Service>;
  readonly tcp: Tcp;
  readonly udp: Udp;
  readonly network: Network;
  readonly workloads: Workloads;
  addService(service: Service): void;
  /** A machine outside the cluster whose sockets DNS and clients may use. */
  addExternal(host: ExternalHost): void;
  /** The sockets of a namespace: a pod, a node's host namespace, or an external machine. */
  stacksOf(ns: number): NamespaceStacks;
}
