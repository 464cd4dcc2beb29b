/**
 * A gRPC server's GracefulStop (docs/sources/grpc.md#gracefulstop): listener closed, GOAWAY twice per connection,
 * drain, then close.
 */
import { seconds, type Duration } from '../../core/time';

// The second GOAWAY goes out on the PING ack or after 5 s (grpc-go http2_server.go, docs/sources/grpc.md#gracefulstop).
export const GOAWAY_PING_TIMEOUT: Duration = seconds(5);
// The heads-up GOAWAY names the largest stream id, 2^31 − 1, so in-flight streams still count (RFC 9113 §6.8).
export const HEADS_UP_LAST_STREAM_ID = 2 ** 31 - 1;

export const DrainPhase = { serving: 0, awaitingPingAck: 1, draining: 2, closed: 3 } as const;
export type DrainPhaseId = (typeof DrainPhase)[keyof typeof DrainPhase];

/** The server side of one HTTP/2 connection: its active streams and how far its drain has gone. */
export class ServerConnection {
  phase: DrainPhaseId = DrainPhase.serving;
  active = 0;
  /** The highest stream id the server took on. */
  highestStreamId = 0;
  /** The last-stream-id of the final GOAWAY; streams above it are not processed. */
  lastStreamId = HEADS_UP_LAST_STREAM_ID;

  constructor(
    /** The app's id for the connection, e.g. the socket id. */
    readonly id: number,
  ) {}

  /** A client opened `streamId`: true if the server processes it; false after the final GOAWAY or once closed. */
  streamOpened(streamId: number): boolean {
    if (this.phase === DrainPhase.closed || (this.phase === DrainPhase.draining && streamId > this.lastStreamId)) {
      return false;
    }
    this.active++;
    if (streamId > this.highestStreamId) this.highestStreamId = streamId;
    return true;
  }
}

/** The app side of GracefulStop; the server app on the TCP stack implements it. */
export interface GracefulStopHost {
  /** Stop listening: new connections are answered with RST. */
  closeListener(): void;
  sendGoaway(conn: ServerConnection, lastStreamId: number): void;
  sendPing(conn: ServerConnection): void;
  /** Arms a timer that calls `pingTimedOut(conn)` after `delay`. */
  startPingTimer(conn: ServerConnection, delay: Duration): void;
  /** The connection has drained: close it normally (FIN). */
  closeConnection(conn: ServerConnection): void;
  /** The hard deadline passed: close the transport now; its in-flight streams fail. */
  abortConnection(conn: ServerConnection): void;
  /** Every connection is closed: GracefulStop returns and the process may exit. */
  stopped(): void;
}

/**
 * grpc-go's GracefulStop for one server: close the listener; on each connection send GOAWAY(NO_ERROR, 2^31 − 1) and a
 * PING, still accepting streams; on the PING ack or after 5 s send the final GOAWAY with the highest stream id taken
 * on, refuse later streams, and close the connection once its streams have finished. `hardStop` is Stop(): at the
 * pod's grace-period deadline (SIGKILL, or an app calling Stop) whatever is left is closed at once.
 */
export class GracefulStop {
  private connections: ServerConnection[] = [];
  private open = 0;
  private begun = false;
  private done = false;

  constructor(private readonly host: GracefulStopHost) {}

  get stopping(): boolean {
    return this.begun && !this.done;
  }

  begin(connections: Iterable<ServerConnection>): void {
    if (this.begun) return;
    this.begun = true;
    this.host.closeListener();
    this.connections = [...connections].filter((conn) => conn.phase !== DrainPhase.closed);
    this.open = this.connections.length;
    for (const conn of this.connections) {
      conn.phase = DrainPhase.awaitingPingAck;
      this.host.sendGoaway(conn, HEADS_UP_LAST_STREAM_ID);
      this.host.sendPing(conn);
      this.host.startPingTimer(conn, GOAWAY_PING_TIMEOUT);
    }
    this.finishIfDone();
  }

  pingAcked(conn: ServerConnection): void {
    this.finalGoaway(conn);
  }

  pingTimedOut(conn: ServerConnection): void {
    this.finalGoaway(conn);
  }

  /** One of the connection's streams finished. */
  streamClosed(conn: ServerConnection): void {
    if (conn.active > 0) conn.active--;
    if (conn.phase === DrainPhase.draining && conn.active === 0) this.close(conn, false);
  }

  /** The client closed or reset the connection while it drained. */
  connectionLost(conn: ServerConnection): void {
    if (conn.phase === DrainPhase.closed) return;
    conn.phase = DrainPhase.closed;
    conn.active = 0;
    if (this.begun && this.connections.includes(conn)) this.closed();
  }

  /** Stop(): closes every transport now; `connections` is needed only if GracefulStop never began. */
  hardStop(connections: Iterable<ServerConnection> = []): void {
    if (this.done) return;
    if (!this.begun) {
      this.begun = true;
      this.host.closeListener();
      this.connections = [...connections].filter((conn) => conn.phase !== DrainPhase.closed);
      this.open = this.connections.length;
    }
    for (const conn of this.connections) if (conn.phase !== DrainPhase.closed) this.close(conn, true);
    this.finishIfDone();
  }

  private finalGoaway(conn: ServerConnection): void {
    if (conn.phase !== DrainPhase.awaitingPingAck) return;
    conn.phase = DrainPhase.draining;
    conn.lastStreamId = conn.highestStreamId;
    this.host.sendGoaway(conn, conn.lastStreamId);
    if (conn.active === 0) this.close(conn, false);
  }

  private close(conn: ServerConnection, abort: boolean): void {
    conn.phase = DrainPhase.closed;
    conn.active = 0;
    if (abort) this.host.abortConnection(conn);
    else this.host.closeConnection(conn);
    this.closed();
  }

  private closed(): void {
    this.open--;
    this.finishIfDone();
  }

  private finishIfDone(): void {
    if (this.done || this.open > 0) return;
    this.done = true;
    this.host.stopped();
  }
}
