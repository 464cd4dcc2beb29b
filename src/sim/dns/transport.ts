/**
 * What the DNS components need from the network. The simulation implements it on the packet path (UDP datagrams and
 * TCP connections through conntrack, allowances and rp_filter, any of which may drop them); tests use an in-memory
 * fake. Nothing here promises delivery: every caller keeps its own timer for every wait.
 */
import type { DnsAnswer, DnsQuery, MessageIds } from './message';

export type DnsProto = 'udp' | 'tcp';

export const DNS_PORT = 53;

/** Receives what happens to a socket opened with `open`; `token` is the number the opener passed. */
export interface DnsSocketReceiver {
  /** TCP only: the handshake completed. A UDP socket is usable at once and never gets this. */
  onOpen(token: number): void;
  /** An answer arrived on the socket. It may answer an earlier query than the one awaited; match `queryId`. */
  onAnswer(token: number, answer: DnsAnswer): void;
  /** The network refused or cut the socket: ICMP unreachable for UDP, RST on a TCP dial or connection. */
  onError(token: number): void;
}

/** A DNS server process bound to (ip, 53). */
export interface DnsServer {
  /** A query arrived; answer it with `respond(exchange, …)`, later, or never. */
  onQuery(exchange: number, query: DnsQuery, proto: DnsProto): void;
}

/**
 * Contract:
 * - `from` and `host` are opaque ids the lead maps to a network namespace (a pod, or a node's host namespace) and
 *   from there to source addresses; a socket's source port stays the same for its life, so reusing a socket reuses
 *   its conntrack entries.
 * - No callback runs synchronously inside open/send/close/respond; all arrive as scheduled events.
 * - After `close(socket)` the transport makes no more calls for that socket.
 * - Socket ids and exchanges are reused: a socket id means nothing after `close`, nor an exchange after `respond`.
 */
export interface DnsTransport {
  /** Ids for the messages of this run; the packet path keeps a map from id to message object. */
  readonly ids: MessageIds;
  /** A socket from `from` to (serverIp, 53). UDP: usable at once. TCP: starts a handshake (onOpen, onError, or silence). */
  open(from: number, serverIp: number, proto: DnsProto, receiver: DnsSocketReceiver, token: number): number;
  /** Sends one query on an open socket (a datagram, or one length-prefixed message on the connection). */
  send(socket: number, query: DnsQuery): void;
  /** Closes the socket (FIN for TCP); answers still in flight to it are dropped. */
  close(socket: number): void;
  /** Binds a server to (ip, 53) inside network namespace `host`; node-local DNS binds the same IPs on every node. */
  listen(host: number, ip: number, server: DnsServer): void;
  unlisten(host: number, ip: number): void;
  /** Sends an answer back along the path its query came (same socket or connection). */
  respond(exchange: number, answer: DnsAnswer): void;
}
