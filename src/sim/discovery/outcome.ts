import type { ProxyKind } from './proxy-choice';
import type { MeshServer, MeshServers } from './mesh-server';
import type { Registration } from './zookeeper';

// Model choice: a connection refused by a live host (a TCP reset) comes back within a millisecond.
export const REFUSED_MS = 0.5;

/** Why a request through a local proxy failed. */
export type MeshFailure = 'timeout' | 'no_server' | 'connect_failed';

/** What a local proxy made of one request: the backend that took it, or why none did, and the time spent. */
export interface Outcome {
  /** The backend that accepted the request; null when none did. */
  backend: MeshServer | null;
  failure: MeshFailure | null;
  /** Time spent connecting before the request reached a backend, or before the proxy gave up. */
  connectMs: number;
  /** Attempts at a backend whose pod was gone: its address no longer answers, so each waits out a connect timeout. */
  goneAttempts: number;
  /** The first gone backend tried, for the "why" chain. */
  gone: Registration | null;
}

/** The outcome of one connection attempt at a registered backend: accepted, refused at once, or timed out. */
export function tryBackend(servers: MeshServers, registration: Registration, connectTimeoutMs: number): { server: MeshServer | null; costMs: number; gone: boolean } {
  const server = servers.of(registration.pod);
  const state = server?.state ?? 'gone';
  if (state === 'serving') return { server: server!, costMs: 0, gone: false };
  if (state === 'refusing') return { server: null, costMs: REFUSED_MS, gone: false };
  return { server: null, costMs: connectTimeoutMs, gone: true };
}

/** A local proxy in a client pod: HAProxy kept by synapse, or Envoy fed over xDS. */
export interface MeshProxy {
  readonly kind: ProxyKind;
  /** The first lists, one per service, before the pod sends anything. */
  startWith(lists: ReadonlyMap<string, readonly Registration[]>): void;
  /** The watcher read a new list of a service's backends. */
  update(service: string, list: readonly Registration[]): void;
  /** Picks backends for one request until one accepts it or the proxy gives up. */
  forward(service: string): Outcome;
  /** Rows for the inspector about the proxy's own state. */
  describe(): [string, string][];
  /** Memory the proxy's processes hold now, in MB. */
  memoryMb(): number;
  /** The pod is going away: no more reloads, and its processes with it. */
  stop(): void;
}
