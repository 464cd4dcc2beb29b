/**
 * A gRPC subchannel: one connection to one address and its connectivity state machine
 * (docs/sources/grpc.md#subchannel-states).
 */
import type { Duration } from '../../core/time';
import type { ConnectionBackoff } from './backoff';

export const Connectivity = { idle: 0, connecting: 1, ready: 2, transientFailure: 3, shutdown: 4 } as const;
export type ConnectivityState = (typeof Connectivity)[keyof typeof Connectivity];
export const CONNECTIVITY_NAMES = ['IDLE', 'CONNECTING', 'READY', 'TRANSIENT_FAILURE', 'SHUTDOWN'] as const;

/** What a subchannel asks of the transport side; the app on the TCP stack implements it. */
export interface SubchannelHost {
  /**
   * Opens a transport to `sub.address` and returns its connection id (e.g. the socket id). The attempt fails if it is
   * not READY within `timeout`. Must not call back into the subchannel synchronously.
   */
  connect(sub: Subchannel, timeout: Duration): number;
  /** Arms a timer that calls `sub.backoffDone()` after `wait`. */
  startBackoff(sub: Subchannel, wait: Duration): void;
  /** Closes the transport of a subchannel being shut down (grpc-go lets its streams drain). */
  disconnect(sub: Subchannel, connection: number): void;
  /** Asks the name resolver to re-resolve, through the channel's ResolutionLimiter. */
  resolveNow(): void;
}

/** Gets every state change the subchannel makes by itself (not its shutdown, which the owner orders). */
export interface SubchannelListener {
  subchannelChanged(sub: Subchannel, previous: ConnectivityState): void;
}

/** Hands out subchannel ids unique within a channel, so a timer's (client, id) pair finds the right one. */
export class SubchannelIds {
  private nextId = 0;

  next(): number {
    return this.nextId++;
  }
}

/**
 * IDLE → CONNECTING on connect(); CONNECTING → READY when the transport is up; CONNECTING → TRANSIENT_FAILURE on
 * failure (ResolveNow, backoff timer), then → IDLE when the backoff ends; READY → IDLE when the transport is lost
 * (GOAWAY, RST, EOF; ResolveNow). Nothing reconnects by itself: the LB policy calls connect() (grpc-go clientconn.go).
 * Transport events carry the connection id so that events of an old, draining transport change nothing.
 */
export class Subchannel {
  state: ConnectivityState = Connectivity.idle;
  /** The transport being dialled or in use; -1 when none. */
  connection = -1;
  /** Its member number in the dial cohort once it has dialled without a socket (dial-cohort.ts); -1 before. */
  cohort = -1;
  /** Its policy ignores its redial loop (pick_first in sticky TRANSIENT_FAILURE), set by the policy. */
  inert = false;

  constructor(
    readonly id: number,
    /** The backend's IPv4 address. */
    readonly address: number,
    readonly backoff: ConnectionBackoff,
    private readonly host: SubchannelHost,
    private readonly listener: SubchannelListener,
  ) {}

  connect(): void {
    if (this.state !== Connectivity.idle) return;
    const timeout = this.backoff.startAttempt();
    this.connection = this.host.connect(this, timeout);
    this.change(Connectivity.connecting);
  }

  /** The transport `connection` is established (HTTP/2 handshake done). */
  connected(connection: number): void {
    if (this.state !== Connectivity.connecting || connection !== this.connection) return;
    this.backoff.succeeded();
    this.change(Connectivity.ready);
  }

  /**
   * The transport `connection` failed or closed: while dialling it is a failed attempt (RST, SYN timeout, connect
   * deadline); once READY it is a lost connection (GOAWAY, RST, EOF), and the old transport may still drain its streams.
   */
  transportClosed(connection: number): void {
    if (connection !== this.connection) return;
    if (this.state === Connectivity.connecting) {
      this.connection = -1;
      // grpc-go re-resolves on every failed attempt (clientconn.go), then backs off.
      this.host.resolveNow();
      this.host.startBackoff(this, this.backoff.failed());
      this.change(Connectivity.transientFailure);
    } else if (this.state === Connectivity.ready) {
      this.connection = -1;
      // "Refresh the name resolver on any connection loss", then go idle (grpc-go clientconn.go).
      this.host.resolveNow();
      this.change(Connectivity.idle);
    }
  }

  /** The backoff timer fired. */
  backoffDone(): void {
    if (this.state === Connectivity.transientFailure) this.change(Connectivity.idle);
  }

  shutdown(): void {
    if (this.state === Connectivity.shutdown) return;
    if (this.connection !== -1) this.host.disconnect(this, this.connection);
    this.connection = -1;
    this.state = Connectivity.shutdown;
  }

  private change(state: ConnectivityState): void {
    const previous = this.state;
    this.state = state;
    this.listener.subchannelChanged(this, previous);
  }
}
