/**
 * The client side of one HTTP/2 connection: stream ids, and what a GOAWAY does to it
 * (docs/sources/grpc.md#goaway-and-reset-on-the-client).
 */
import { HEADS_UP_LAST_STREAM_ID } from './graceful-stop';

/**
 * Streams get odd ids 1, 3, 5, … (RFC 9113 §5.1.1). The first GOAWAY kills no stream: the transport goes draining
 * (no new streams) and its subchannel goes IDLE with a ResolveNow; each GOAWAY's last-stream-id marks streams above it
 * as unprocessed, to be failed UNAVAILABLE and retried transparently. A draining transport closes once its last stream
 * ends (grpc-go http2_client.go handleGoAway).
 */
export class ClientTransport {
  nextStreamId = 1;
  active = 0;
  draining = false;
  lastStreamId = HEADS_UP_LAST_STREAM_ID;

  constructor(
    /** The subchannel's connection id (e.g. the socket id). */
    public connection: number,
  ) {}

  /** Makes the object fit for a new connection, for pooling. */
  reset(connection: number): void {
    this.connection = connection;
    this.nextStreamId = 1;
    this.active = 0;
    this.draining = false;
    this.lastStreamId = HEADS_UP_LAST_STREAM_ID;
  }

  /** A new stream's id, or -1 when the transport is draining and the RPC must be picked again. */
  openStream(): number {
    if (this.draining) return -1;
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    this.active++;
    return id;
  }

  /**
   * A GOAWAY arrived. Returns true for the first one: the app then calls `subchannel.transportClosed(connection)` so
   * the subchannel goes IDLE and asks for re-resolution, while this transport keeps serving its remaining streams.
   */
  goaway(lastStreamId: number): boolean {
    const first = !this.draining;
    this.draining = true;
    if (lastStreamId < this.lastStreamId) this.lastStreamId = lastStreamId;
    return first;
  }

  /** Whether stream `streamId` was refused by a GOAWAY: the server never processed it, so it is safe to retry. */
  refused(streamId: number): boolean {
    return this.draining && streamId > this.lastStreamId;
  }

  /** A stream ended; true when a draining transport has none left and should be closed. */
  streamClosed(): boolean {
    if (this.active > 0) this.active--;
    return this.draining && this.active === 0;
  }
}
