import { z } from '../scenario/zod';

/** The TCP settings a scenario may change (`params.tcp`), with the kernel's defaults. */
export const tcpParams = z.strictObject({
  // TCP_TIMEOUT_INIT = 1 s in Linux include/net/tcp.h, as RFC 6298 section 2.1 recommends; at least 1 ms and at most
  // TCP_RTO_MAX, 120 s (docs/limits.md#times).
  initialRtoMs: z.number().min(1).max(120_000).default(1000),
  // net.ipv4.tcp_syn_retries default 6, at most 127 (kernel Documentation/networking/ip-sysctl.rst).
  synRetries: z.number().int().min(1).max(127).default(6),
});
export type TcpParams = z.output<typeof tcpParams>;
