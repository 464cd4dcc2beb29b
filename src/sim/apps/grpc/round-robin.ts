/**
 * gRPC's round_robin policy as grpc-go builds it (docs/sources/grpc.md#load-balancing-policies): endpointsharding over
 * one pick_first child per address.
 */
import type { RngStream } from '../../core/rng';
import type { Duration } from '../../core/time';
import { RoundRobin } from '../../infra/health-monitor';
import { GRPC_BACKOFF, type BackoffConfig } from './backoff';
import { aggregateState, type LbHost, type LbPolicy, type Pick } from './lb-policy';
import { PickFirstPolicy, type PickFirstSettings } from './pick-first';
import { Connectivity, SubchannelIds, type ConnectivityState, type Subchannel, type SubchannelHost } from './subchannel';
import { bound } from '../../core/snapshot';

export interface RoundRobinSettings {
  backoff: BackoffConfig;
}

export const ROUND_ROBIN_DEFAULTS: RoundRobinSettings = { backoff: GRPC_BACKOFF };

/**
 * One pick_first child per address. A child that goes IDLE is told to reconnect at once (endpointsharding's eager
 * ExitIdle), so a lost connection is redialled in the background; a child that keeps failing stays in sticky
 * TRANSIENT_FAILURE and redials after each backoff. RPCs go round-robin over the READY children, from a random start
 * each time the picker is rebuilt. The policy's state is the children's aggregate.
 */
export class RoundRobinPolicy implements LbPolicy, LbHost {
  state: ConnectivityState = Connectivity.idle;
  private children: PickFirstPolicy[] = [];
  private readonly ids = new SubchannelIds();
  private readonly rotation = new RoundRobin();
  private readonly childSettings: PickFirstSettings;
  /** Rotates the children so that a rebuilt picker starts at a random one. */
  private offset = 0;
  private updating = false;
  private readonly isReady = bound(this, this.readyAt);

  constructor(
    private readonly host: LbHost,
    settings: RoundRobinSettings,
    private readonly rng: RngStream,
  ) {
    // A child has one address, so Happy Eyeballs never applies.
    this.childSettings = { backoff: settings.backoff, connectionDelay: 0 as Duration };
  }

  get transport(): SubchannelHost {
    return this.host.transport ?? this.host;
  }

  get addresses(): number[] {
    return this.children.map((child) => child.addresses[0]!);
  }

  subchannelStates(): { address: number; state: ConnectivityState }[] {
    return this.children.map((child) => ({ address: child.addresses[0]!, state: child.state }));
  }

  updateAddresses(addresses: readonly number[]): void {
    const next: PickFirstPolicy[] = [];
    this.updating = true;
    for (const address of addresses) {
      if (next.some((child) => child.addresses[0] === address)) continue;
      let child = this.children.find((c) => c.addresses[0] === address);
      if (!child) {
        child = new PickFirstPolicy(this, this.childSettings, this.rng, this.ids);
        child.updateAddresses([address]);
      }
      next.push(child);
    }
    for (const child of this.children) if (!next.includes(child)) child.shutdown();
    this.children = next;
    this.updating = false;
    this.rebuild();
  }

  /** Whether the `m`-th child in the rotated order is ready. */
  private readyAt(m: number): boolean {
    return this.children[(m + this.offset) % this.children.length]!.state === Connectivity.ready;
  }

  pick(): Pick {
    if (this.state === Connectivity.ready) {
      const n = this.children.length;
      const m = this.rotation.pick(this.isReady, n);
      if (m >= 0) return this.children[(m + this.offset) % n]!.pick();
    }
    return this.state === Connectivity.transientFailure ? 'fail' : 'queue';
  }

  exitIdle(): void {
    for (const child of this.children) child.exitIdle();
  }

  connectionDelayExpired(_token: number): void {}

  shutdown(): void {
    for (const child of this.children) child.shutdown();
    this.children = [];
    this.state = Connectivity.shutdown;
  }

  /** A child's state changed. */
  pickerChanged(policy: LbPolicy): void {
    if (policy.state === Connectivity.idle) policy.exitIdle();
    if (!this.updating) this.rebuild();
  }

  connect(sub: Subchannel, timeout: Duration): number {
    return this.host.connect(sub, timeout);
  }

  startBackoff(sub: Subchannel, wait: Duration): void {
    this.host.startBackoff(sub, wait);
  }

  disconnect(sub: Subchannel, connection: number): void {
    this.host.disconnect(sub, connection);
  }

  resolveNow(): void {
    this.host.resolveNow();
  }

  startConnectionDelay(_token: number, _delay: Duration): void {}

  private rebuild(): void {
    this.state = aggregateState(this.children);
    // grpc-go's round_robin picker starts at a random READY child each time it is rebuilt.
    if (this.children.length > 0) this.offset = this.rng.int(this.children.length);
    this.host.pickerChanged(this);
  }
}
