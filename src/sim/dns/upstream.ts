/** One upstream of a CoreDNS forward plugin: its health counter, its dial-time average and its idle connections. */
import type { EventHandle } from '../core/scheduler';
import type { DnsQuery } from './message';
import type { DnsProto } from './transport';

/** The forward plugin's adaptive dial timeout (plugin/pkg/proxy, docs/sources/dns.md#dial-timeout). */
export class AdaptiveDialTimeout {
  // The average starts at 15 s (maxDialTimeout / 2) and moves a quarter of the way to each observed dial.
  private averageMs = 15_000;

  observe(dialMs: number): void {
    this.averageMs += (dialMs - this.averageMs) / 4;
  }

  /** Twice the average, clamped to [1 s, 30 s]: "30s, can decrease down to 1s". */
  get timeoutMs(): number {
    return Math.min(30_000, Math.max(1_000, 2 * this.averageMs));
  }
}

export class Upstream {
  /** Consecutive failed health checks; reset by the first success. */
  fails = 0;
  /** A health-check loop is running (at most one per upstream). */
  probing = false;
  /** Bumped to invalidate a scheduled probe. */
  probeGen = 0;
  readonly dial = new AdaptiveDialTimeout();
  /** Idle sockets per protocol, oldest use first. */
  readonly idleUdp: number[] = [];
  readonly idleTcp: number[] = [];

  constructor(
    /** The forward instance this upstream belongs to. */
    readonly instance: number,
    readonly ip: number,
  ) {}

  /** Down when failed checks exceed max_fails (the 3rd failure with the default 2); max_fails 0 never marks down. */
  down(maxFails: number): boolean {
    return maxFails > 0 && this.fails > maxFails;
  }

  idle(proto: DnsProto): number[] {
    return proto === 'udp' ? this.idleUdp : this.idleTcp;
  }
}

export const SocketState = { free: 0, dialing: 1, busy: 2, idle: 3 } as const;
export type SocketStateId = (typeof SocketState)[keyof typeof SocketState];

/** A socket from the forwarder to an upstream, kept in a pool and reused by slot. */
export class UpstreamSocket {
  upstream = -1;
  proto: DnsProto = 'udp';
  /** The transport's socket id. */
  id = -1;
  state: SocketStateId = SocketState.free;
  /** The health checker's own socket, never cached. */
  probe = false;
  /** Taken from the idle cache rather than freshly dialed. */
  cached = false;
  /** Request slot using the socket, or -1. */
  request = -1;
  /** The query awaited on it; answers with another id are dropped as out of order. */
  query: DnsQuery | null = null;
  openedAt = 0;
  lastUsed = 0;
  timer: EventHandle = -1;
  /** Bumped whenever a scheduled timeout for the socket becomes stale. */
  gen = 0;

  constructor(readonly slot: number) {}
}
