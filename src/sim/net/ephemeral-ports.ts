// Linux ip_local_port_range default 32768-60999 (Documentation/networking/ip-sysctl.rst).
export const EPHEMERAL_FIRST = 32768;
export const EPHEMERAL_LAST = 60999;
export const EPHEMERAL_PORTS = EPHEMERAL_LAST - EPHEMERAL_FIRST + 1;

/** Hands out local ports from the ephemeral range in order, wrapping around and skipping ports still in use. */
export class EphemeralPorts {
  private nextPort = EPHEMERAL_FIRST;
  /** The cursor has gone round once: ports ahead of it may be in use again. */
  wrapped = false;

  /** The next port `inUse` does not hold, or -1 when the whole range is taken. */
  next(inUse: { has(port: number): boolean }): number {
    for (let tries = 0; tries < EPHEMERAL_PORTS; tries++) {
      const port = this.take();
      if (!inUse.has(port)) return port;
    }
    return -1;
  }

  /** The port under the cursor, which moves on: the caller knows it is free, or checks (next() does). */
  take(): number {
    const port = this.nextPort;
    if (port === EPHEMERAL_LAST) {
      this.nextPort = EPHEMERAL_FIRST;
      this.wrapped = true;
    } else this.nextPort = port + 1;
    return port;
  }
}
