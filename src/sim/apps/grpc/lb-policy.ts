/**
 * What a gRPC channel asks of its load-balancing policy, and the channel state built from children
 * (docs/sources/grpc.md#subchannel-states, #load-balancing-policies).
 */
import type { Duration } from '../../core/time';
import { Connectivity, type ConnectivityState, type Subchannel, type SubchannelHost } from './subchannel';

/** The app side of a policy: the subchannel host plus the policy's own timer and state reports. */
export interface LbHost extends SubchannelHost {
  /** Whom the policy's subchannels ask for transports and timers: a parent policy hands down its channel, so a redial does not pass through it. */
  readonly transport?: SubchannelHost;
  /** Arms pick_first's Happy Eyeballs timer: call `policy.connectionDelayExpired(token)` after `delay`. */
  startConnectionDelay(token: number, delay: Duration): void;
  /** The policy's state or picker changed: RPCs waiting for a connection should pick again. */
  pickerChanged(policy: LbPolicy): void;
}

/**
 * A pick: the READY subchannel to send on; 'queue' to wait for the next picker (CONNECTING, IDLE); 'fail' to fail the
 * RPC with UNAVAILABLE at once (TRANSIENT_FAILURE, for RPCs that are not wait-for-ready).
 */
export type Pick = Subchannel | 'queue' | 'fail';

export interface LbPolicy {
  /** The state the policy reports to the channel. */
  readonly state: ConnectivityState;
  /** A new address list from the resolver. */
  updateAddresses(addresses: readonly number[]): void;
  pick(): Pick;
  /** Leave IDLE: start connecting (the channel's ExitIdle). */
  exitIdle(): void;
  connectionDelayExpired(token: number): void;
  shutdown(): void;
  /** Each address the policy holds a subchannel for, with the subchannel's state, for the inspector. */
  subchannelStates(): { address: number; state: ConnectivityState }[];
}

/**
 * The channel-level aggregate of endpointsharding (round_robin): READY if any child is READY, else CONNECTING if any
 * is, else IDLE if any is, else TRANSIENT_FAILURE (also when there are no children).
 */
export function aggregateState(children: readonly { readonly state: ConnectivityState }[]): ConnectivityState {
  let connecting = false;
  let idle = false;
  for (const child of children) {
    if (child.state === Connectivity.ready) return Connectivity.ready;
    if (child.state === Connectivity.connecting) connecting = true;
    else if (child.state === Connectivity.idle) idle = true;
  }
  if (connecting) return Connectivity.connecting;
  return idle ? Connectivity.idle : Connectivity.transientFailure;
}
