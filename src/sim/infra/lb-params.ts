import { MAX_RUN_S } from '../scenario/formats';
import { z } from '../scenario/zod';

/** The hardware load balancer's monitors, SNAT and headers (`params.lb`). */
export const lbParams = z.strictObject({
  // BIG-IP HTTP/TCP monitor interval 5 s (docs/sources/load-balancers.md#big-ip-health-monitors).
  // At least a second, the shortest interval BIG-IP offers (docs/limits.md#periods).
  monitorIntervalS: z.number().min(1).max(MAX_RUN_S).default(5),
  // BIG-IP monitor timeout 16 s = 3 × interval + 1 (docs/sources/load-balancers.md#big-ip-health-monitors).
  monitorTimeoutS: z.number().min(1).max(MAX_RUN_S).default(16),
  // Whether members whose health is still unknown get new connections; unconfirmed, the bare-metal talk says yes
  // (docs/sources/load-balancers.md#members-with-unknown-health).
  unknownReceivesTraffic: z.boolean().default(true),
  // `after-healthy` is the operator patch: a new member gets traffic only after its first good probe.
  activation: z.enum(['immediate', 'after-healthy']).default('immediate'),
  // F5 CIS configures SNAT automap by default; unconfirmed (docs/sources/load-balancers.md#snat-automap).
  snat: z.boolean().default(true),
  // The HTTP profile's Insert X-Forwarded-For is off in the parent profile, unconfirmed
  // (docs/sources/load-balancers.md#forwarded-headers): `preserve` leaves the header as the client sent it; `append`
  // adds the client's address; `replace` drops what the client sent first.
  xff: z.enum(['preserve', 'append', 'replace']).default('preserve'),
});
export type LbParams = z.output<typeof lbParams>;
