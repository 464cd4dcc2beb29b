import { describe, expect, it } from 'vitest';
import { ClientTransport } from '../../src/sim/apps/grpc/client-transport';
import { DrainPhase, GOAWAY_PING_TIMEOUT, GracefulStop, HEADS_UP_LAST_STREAM_ID, ServerConnection, type GracefulStopHost } from '../../src/sim/apps/grpc/graceful-stop';
import { createContext } from '../../src/sim/context';
import { atSeconds, seconds, toSeconds, type Duration } from '../../src/sim/core/time';

/** A server app on the scheduler that records what GracefulStop makes it do, with times in seconds. */
function server(connectionCount: number) {
  const ctx = createContext(3);
  const log: string[] = [];
  const conns = Array.from({ length: connectionCount }, (_, i) => new ServerConnection(100 + i));
  const t = () => toSeconds(ctx.sched.now);
  const pingTimer = ctx.sched.register('test.ping-timeout', (i) => stop.pingTimedOut(conns[i]!));
  const host: GracefulStopHost = {
    closeListener: () => void log.push(`${t()} listener closed`),
    sendGoaway: (conn, last) => void log.push(`${t()} goaway ${conn.id} ${last === HEADS_UP_LAST_STREAM_ID ? 'max' : last}`),
    sendPing: (conn) => void log.push(`${t()} ping ${conn.id}`),
    startPingTimer: (conn, delay: Duration) => void ctx.sched.after(delay, pingTimer, conns.indexOf(conn)),
    closeConnection: (conn) => void log.push(`${t()} close ${conn.id}`),
    abortConnection: (conn) => void log.push(`${t()} abort ${conn.id}`),
    stopped: () => void log.push(`${t()} stopped`),
  };
  const stop = new GracefulStop(host);
  const at = (s: number, fn: () => void) => {
    const h = ctx.sched.register(`test.at.${s}`, fn);
    ctx.sched.at(atSeconds(s), h);
  };
  return { ctx, log, conns, stop, at, run: (s: number) => ctx.sched.runUntil(atSeconds(s)) };
}

describe('gRPC server GracefulStop (docs/sources/grpc.md#gracefulstop, #test-vectors, vector 5)', () => {
  it('vector 5: a client that never acks the PING gets the second GOAWAY 5 s after the first', () => {
    const { log, conns, stop, at, run } = server(1);
    const conn = conns[0]!;
    expect(conn.streamOpened(1)).toBe(true);
    expect(conn.streamOpened(3)).toBe(true);
    at(10, () => stop.begin(conns));
    // Streams opened while the PING is in flight are still served: they may have left the client before the GOAWAY arrived.
    at(12, () => expect(conn.streamOpened(5)).toBe(true));
    at(20, () => [1, 3, 5].forEach(() => stop.streamClosed(conn)));
    run(30);
    expect(GOAWAY_PING_TIMEOUT).toBe(seconds(5));
    expect(log).toEqual(['10 listener closed', '10 goaway 100 max', '10 ping 100', '15 goaway 100 5', '20 close 100', '20 stopped']);
  });

  it('after the final GOAWAY, streams above its last-stream-id are refused while those below finish', () => {
    const { conns, stop, run, log } = server(1);
    const conn = conns[0]!;
    conn.streamOpened(1);
    stop.begin(conns);
    stop.pingAcked(conn);
    expect(conn.phase).toBe(DrainPhase.draining);
    expect(conn.lastStreamId).toBe(1);
    expect(conn.streamOpened(3)).toBe(false);
    expect(conn.active).toBe(1);
    run(10);
    // The late ping timer changes nothing.
    expect(log.filter((line) => line.includes('goaway'))).toEqual(['0 goaway 100 max', '0 goaway 100 1']);
    stop.streamClosed(conn);
    expect(log.at(-2)).toBe('10 close 100');
  });

  it('an idle connection closes at the PING ack; GracefulStop returns once every connection is gone', () => {
    const { conns, stop, log, at, run } = server(3);
    conns[1]!.streamOpened(1);
    at(1, () => stop.begin(conns));
    at(1.002, () => stop.pingAcked(conns[0]!));
    at(2, () => stop.connectionLost(conns[2]!));
    at(8, () => stop.streamClosed(conns[1]!));
    run(20);
    expect(log.filter((line) => !line.includes('ping') && !line.includes('max'))).toEqual([
      '1 listener closed',
      '1.002 goaway 100 0',
      '1.002 close 100',
      '6 goaway 101 1',
      '8 close 101',
      '8 stopped',
    ]);
  });

  it("the pod's grace period ends GracefulStop: what is still open is aborted", () => {
    const { conns, stop, log, at, run } = server(2);
    conns[0]!.streamOpened(1);
    at(0, () => stop.begin(conns));
    // The incident's metric pods had 10 s between SIGTERM and the kill (docs/sources/incidents.md#it-wasnt-dns).
    at(10, () => stop.hardStop());
    run(15);
    expect(log.slice(-4)).toEqual(['5 goaway 101 0', '5 close 101', '10 abort 100', '10 stopped']);
    expect(stop.stopping).toBe(false);
  });

  it('Stop() without GracefulStop closes the listener and aborts every connection at once', () => {
    const { conns, stop, log } = server(2);
    stop.hardStop(conns);
    expect(log).toEqual(['0 listener closed', '0 abort 100', '0 abort 101', '0 stopped']);
  });

  it('a server with no connections stops as soon as the listener is closed', () => {
    const { stop, log } = server(0);
    stop.begin([]);
    expect(log).toEqual(['0 listener closed', '0 stopped']);
  });
});

describe('gRPC client transport on GOAWAY (docs/sources/grpc.md#goaway-and-reset-on-the-client)', () => {
  it('the first GOAWAY drains the transport: no new streams, running ones go on; the subchannel is told once', () => {
    const transport = new ClientTransport(7);
    expect([transport.openStream(), transport.openStream(), transport.openStream()]).toEqual([1, 3, 5]);
    expect(transport.goaway(HEADS_UP_LAST_STREAM_ID)).toBe(true);
    expect(transport.openStream()).toBe(-1);
    expect(transport.refused(5)).toBe(false);
    // The final GOAWAY names stream 3 as the last processed: stream 5 was not, and may be retried transparently.
    expect(transport.goaway(3)).toBe(false);
    expect(transport.refused(5)).toBe(true);
    expect(transport.refused(3)).toBe(false);
    expect(transport.streamClosed()).toBe(false);
    expect(transport.streamClosed()).toBe(false);
    expect(transport.streamClosed()).toBe(true);
  });

  it('a pooled transport starts over on reset', () => {
    const transport = new ClientTransport(7);
    transport.openStream();
    transport.goaway(1);
    transport.reset(8);
    expect(transport.connection).toBe(8);
    expect(transport.openStream()).toBe(1);
    expect(transport.refused(3)).toBe(false);
  });

  it('server and client together: a stream sent before the GOAWAY arrives is served; one the server never saw is refused', () => {
    const conn = new ServerConnection(1);
    const client = new ClientTransport(1);
    const closed: string[] = [];
    const stop = new GracefulStop(stopHostFor(client, closed));
    conn.streamOpened(client.openStream());
    const inFlight = client.openStream();
    stop.begin([conn]);
    expect(conn.streamOpened(inFlight)).toBe(true);
    stop.pingAcked(conn);
    expect(client.refused(inFlight)).toBe(false);
    stop.streamClosed(conn);
    stop.streamClosed(conn);
    expect(closed).toEqual(['close', 'stopped']);

    const late = new ServerConnection(2);
    const lateClient = new ClientTransport(2);
    const lateStop = new GracefulStop(stopHostFor(lateClient, []));
    late.streamOpened(lateClient.openStream());
    const unseen = lateClient.openStream();
    lateStop.begin([late]);
    lateStop.pingAcked(late);
    expect(late.streamOpened(unseen)).toBe(false);
    expect(lateClient.refused(unseen)).toBe(true);
  });
});

/** A server whose GOAWAYs reach `client` at once; closes are logged to `closed`. */
function stopHostFor(client: ClientTransport, closed: string[]): GracefulStopHost {
  return {
    closeListener: () => {},
    sendGoaway: (_conn, last) => void client.goaway(last),
    sendPing: () => {},
    startPingTimer: () => {},
    closeConnection: () => void closed.push('close'),
    abortConnection: () => void closed.push('abort'),
    stopped: () => void closed.push('stopped'),
  };
}
