import type { InspectSection, PodPhase } from '../api';
import type { Ipv4 } from '../net/ipv4';
import type { TcpStack } from '../net/tcp';
import type { UdpStack } from '../net/udp';
import type { Host } from './host';

/** The behaviour running in a pod's main container. */
export interface PodApp {
  /** The container is running. */
  start(): void;
  /** The pod is being deleted and its preStop hook starts (before SIGTERM). */
  preStop?(): void;
  /** SIGTERM: begin a graceful shutdown and call `exit` when done. */
  terminate(exit: () => void): void;
  /** The process is gone (exited or SIGKILLed); its sockets are already reset. */
  killed?(): void;
  /** The app's own state for the inspector (a gRPC channel's subchannels, say). */
  inspect?(): InspectSection[];
}

export class Pod {
  phase: PodPhase = 'pending';
  ready = false;
  app: PodApp | null = null;
  /** Index of the pod this one replaced, for the "why" chain. */
  replaced = -1;
  /** A gone pod stays in the topology view for a while, so traffic still aimed at it can be seen. */
  shown = true;
  /** The host-side interface of the pod's veth pair; -1 once the network namespace is gone. */
  veth = -1;
  /** The revision of its deployment's pod template it was created from. */
  revision = 1;

  constructor(
    readonly index: number,
    readonly name: string,
    readonly deployment: string,
    readonly host: Host,
    readonly ip: Ipv4,
    readonly tcp: TcpStack,
    readonly udp: UdpStack,
  ) {}

  /** Built once: it names the entity in every drop, trace and log line. */
  get entity(): string {
    return (this.entityText ??= `pod/${this.name}`);
  }
  private entityText: string | undefined;

  /** The pod's deployment as an entity, built once: it names the origin of every connection the pod makes. */
  get deploymentEntity(): string {
    return (this.deploymentEntityText ??= `deployment/${this.deployment}`);
  }
  private deploymentEntityText: string | undefined;

  get hostIndex(): number {
    return this.host.index;
  }

  /** Still counted by its ReplicaSet: neither terminating nor gone. */
  get active(): boolean {
    return this.phase === 'pending' || this.phase === 'running';
  }
}
