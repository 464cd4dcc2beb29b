import { MAX_RUN_MS, MAX_RUN_S } from '../scenario/formats';
import { z } from '../scenario/zod';

/** The HAProxy each client pod runs under synapse (docs/sources/service-discovery.md#synapse, #haproxy-reloads). */
export const haproxyParams = z.strictObject({
  // Server options `check inter 2000 rise 3 fall 2` (synapse's example, docs/sources/service-discovery.md#synapse;
  // HAProxy's own defaults are inter 2000, rise 2 and fall 3, #haproxy-health-checks).
  // At least 100 ms: every client pod checks every server line (docs/limits.md#periods).
  checkInterMs: z.number().min(100).max(MAX_RUN_MS).default(2000),
  rise: z.number().int().min(1).max(100).default(3),
  fall: z.number().int().min(1).max(100).default(2),
  // `retries 3` is HAProxy's default; with `option redispatch` only the last retry may go to another server.
  retries: z.number().int().min(0).max(10).default(3),
  // `timeout connect 5s`, as common SmartStack and HAProxy configurations set it (HAProxy itself has no default).
  connectTimeoutMs: z.number().min(1).max(MAX_RUN_MS).default(5000),
  // Model choice fitted to the talk: a reload takes 0.3 s plus 2 ms per server line, so 1,000–2,350 lines take its
  // 2–5 s (docs/sources/service-discovery.md#reload-time).
  reloadBaseMs: z.number().min(0).max(MAX_RUN_MS).default(300),
  // At most a second per server line (docs/limits.md#counts).
  reloadPerServerMs: z.number().min(0).max(1000).default(2),
  // Model choice: a TCP check is the three-way handshake and one packet closing it, four packets
  // (docs/sources/service-discovery.md#health-check-traffic).
  checkPackets: z.number().int().min(1).max(100).default(4),
  // Model choice: a process holds 20 MB plus 40 kB per server line (its health checks and connection slots).
  // Memory figures go up to a million of their unit (docs/limits.md#counts).
  memoryBaseMb: z.number().min(0).max(1_000_000).default(20),
  memoryPerServerKb: z.number().min(0).max(1_000_000).default(40),
  // Model choice: the app keeps 8 connections to its local HAProxy and recycles each after about a minute; an old
  // process lives until the last of its connections closes (docs/sources/service-discovery.md#haproxy-reloads).
  clientConnections: z.number().int().min(1).max(1000).default(8),
  connectionLifetimeS: z.number().min(1).max(MAX_RUN_S).default(60),
  // hard-stop-after: an old process is stopped this long after a reload at the latest; 0 leaves it unset
  // (docs/sources/service-discovery.md#haproxy-reloads).
  hardStopAfterS: z.number().min(0).max(MAX_RUN_S).default(0),
});
export type HaproxyParams = z.output<typeof haproxyParams>;
