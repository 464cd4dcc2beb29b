import { MAX_RUN_MS } from '../scenario/formats';
import { z } from '../scenario/zod';

/** How a router takes in BGP changes and how it notices a peer that has gone (`params.bgp`). */
export const bgpParams = z.strictObject({
  // Model choice: UPDATE processing plus FIB programming on a ToR, a few hundred milliseconds.
  convergenceMs: z.number().min(0).max(MAX_RUN_MS).default(500),
  // MetalLB's BGPPeer holdTime: 90 s unless set, 3 s at least; a 16-bit field of OPEN (docs/sources/load-balancers.md#bgp-timers).
  holdTimeS: z.number().int().min(3).max(65535).default(90),
  // BFD on the session, as MetalLB's FRR mode offers with a BFDProfile (docs/sources/load-balancers.md#bfd).
  bfd: z
    .strictObject({
      enabled: z.boolean().default(false),
      // MetalLB BFDProfile defaults: 300 ms each way, detectMultiplier 3, ranges 10–60000 ms and 2–255 (docs/sources/load-balancers.md#bfd).
      receiveIntervalMs: z.number().int().min(10).max(60000).default(300),
      transmitIntervalMs: z.number().int().min(10).max(60000).default(300),
      detectMultiplier: z.number().int().min(2).max(255).default(3),
    })
    .prefault({}),
  // Graceful restart (RFC 4724, with RFC 8538's hold-timer case): the router keeps a lost peer's routes as stale
  // (docs/sources/load-balancers.md#graceful-restart).
  gracefulRestart: z
    .strictObject({
      enabled: z.boolean().default(false),
      // 120 s, the usual vendor default; the capability's Restart Time field has 12 bits (docs/sources/load-balancers.md#graceful-restart).
      restartTimeS: z.number().int().min(1).max(4095).default(120),
    })
    .prefault({}),
});
export type BgpParams = z.output<typeof bgpParams>;
