/** A load-balancer pool member's health as the monitor sees it (F5: blue square, green circle, red diamond). */
export type MemberHealth = 'unknown' | 'up' | 'down';

export interface MonitorSettings {
  /**
   * Seconds between probes; BIG-IP HTTP/TCP monitors default to 5 s
   * (docs/sources/load-balancers.md#big-ip-health-monitors).
   */
  intervalSeconds: number;
  /**
   * Seconds without a successful probe before the member is down; default 16 s = 3 × interval + 1
   * (docs/sources/load-balancers.md#big-ip-health-monitors).
   */
  timeoutSeconds: number;
}

export const F5_MONITOR_DEFAULTS: MonitorSettings = { intervalSeconds: 5, timeoutSeconds: 16 };

// Sim times are integer µs read as seconds; a nanosecond of slack keeps an exact deadline from reading as just before it.
const SLACK_SECONDS = 1e-9;

/**
 * One member's monitor. Health is derived from probe history: up while the last success is younger than the timeout,
 * unknown until a first success or the first timeout after the member was added, down otherwise.
 */
export class MemberMonitor {
  private lastSuccess: number | null = null;

  constructor(
    private readonly settings: MonitorSettings,
    /** Simulated seconds when the member joined the pool. */
    readonly addedAt: number,
  ) {}

  record(atSeconds: number, ok: boolean): void {
    if (ok) this.lastSuccess = atSeconds;
  }

  health(nowSeconds: number): MemberHealth {
    const timeout = this.settings.timeoutSeconds - SLACK_SECONDS;
    if (this.lastSuccess !== null) return nowSeconds - this.lastSuccess < timeout ? 'up' : 'down';
    return nowSeconds - this.addedAt < timeout ? 'unknown' : 'down';
  }

  /** When the member turns down if no probe succeeds before then. */
  get downAt(): number {
    return (this.lastSuccess ?? this.addedAt) + this.settings.timeoutSeconds;
  }

  /** Probe times from the member's addition on: addedAt + interval, + 2·interval, … */
  nextProbeAfter(nowSeconds: number): number {
    const interval = this.settings.intervalSeconds;
    return this.addedAt + (Math.floor((nowSeconds - this.addedAt) / interval) + 1) * interval;
  }
}

/** Whether a member in this state may receive new connections; only down members are skipped unless told otherwise. */
export function receivesTraffic(health: MemberHealth, unknownReceivesTraffic: boolean): boolean {
  return health === 'up' || (health === 'unknown' && unknownReceivesTraffic);
}

/** Round-robin over the members that may receive traffic; -1 when none may. */
export class RoundRobin {
  private cursor = 0;

  pick(eligible: (member: number) => boolean, members: number): number {
    for (let i = 0; i < members; i++) {
      const member = (this.cursor + i) % members;
      if (eligible(member)) {
        this.cursor = member + 1;
        return member;
      }
    }
    return -1;
  }
}
