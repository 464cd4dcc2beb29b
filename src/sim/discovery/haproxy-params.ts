import { MAX_RUN_MS, MAX_RUN_S } from '../scenario/formats';
import { z } from '../scenario/zod';

/** The HAProxy each client pod runs under synapse (docs/sources/service-discovery.md#synapse, #haproxy-reloads). */
export const haproxyParams = z.strictObject({
  // Server options `check inter 2000 fall 2` (synapse's example, docs/sources/service-discovery.md#synapse);
  // its `rise 3` matters only to a server coming back, which the model does not follow.
  // At least 100 ms: every client pod checks every server line (docs/limits.md#periods).
  checkInterMs: z.number().min(100).max(MAX_RUN_MS).default(2000),
  fall: z.number().int().min(1).max(100).default(2),
  // `retries 3` is HAProxy's default; with `option redispatch` only the last retry may go to another server.
  retries: z.number().int().min(0).max(10).default(3),
  // `timeout connect 5s`, as common SmartStack and HAProxy configurations set it (HAProxy itself has no default).
  connectTimeoutMs: z.number().min(1).max(MAX_RUN_MS).default(5000),
  // Model choice: parsing a configuration and starting a process takes 0.3 s plus 1 ms per server line, so a few
  // thousand lines take the 2–5 s the talk reports.
  reloadBaseMs: z.number().min(0).max(MAX_RUN_MS).default(300),
  // At most a second per server line (docs/limits.md#counts).
  reloadPerServerMs: z.number().min(0).max(1000).default(1),
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
