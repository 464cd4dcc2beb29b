import type { SimContext } from '../context';
import type { HandlerId } from '../core/scheduler';
import { mix32, type RngStream } from '../core/rng';
import { millis, type SimTime } from '../core/time';
import type { Host } from '../infra/host';
import type { TcpParams } from '../net/tcp-params';
import { bound } from '../core/snapshot';

// Model choice: the share of each allowance the checks leave is worked out ten times a second.
const TICK = millis(100);
const TICKS_PER_SECOND = 10;

/** One node's share of the checks: how many check ends it holds, and the loss its allowance gave each tick. */
interface NodeLoad {
  readonly host: Host;
  /** Server lines its HAProxy processes check plus checkers of its backends: each end sees every check packet. */
  ends: number;
  /** Share of packets over the allowance for the latest `window` ticks, tick n at n % window; grows to that length. */
  readonly loss: number[];
  /** The latest tick with any loss; -1 while none had any. */
  lastLossy: number;
}

/**
 * HAProxy's health checks as a flow through the packet allowance of the cloud instances at both ends
 * (docs/sources/service-discovery.md#health-check-saturation). A check's packets count at the node of the checking
 * HAProxy and at the node of the backend, both ways, as the allowance is bidirectional; ten times a second each
 * instance's hypervisor admits what fits of its checks and the rest is dropped. The loss then decides, for one check
 * or one request, whether its handshake gets through: a SYN or SYN-ACK lost is sent again after TCP's initial
 * retransmission timeout, doubling each time.
 */
export class CheckTraffic {
  readonly tick: HandlerId;
  /** Per check packet sent, the share the allowances dropped in the latest tick. */
  lossShare = 0;
  /** By host index; a bare-metal node has no allowance and no entry. */
  private readonly byHost: (NodeLoad | undefined)[] = [];
  private readonly nodes: NodeLoad[] = [];
  private ticking = false;
  private readonly salt: number;
  /** Ticks recorded so far: the latest is `ticks - 1`. */
  private ticks = 0;
  /** Ticks of loss each node keeps: enough for a health counter read back over `replayChecks` checks. */
  readonly window: number;

  constructor(
    private readonly ctx: SimContext,
    private readonly checkPackets: number,
    private readonly checkInterMs: number,
    private readonly tcp: TcpParams,
    /** Books the checks up to now before the loss changes. */
    private readonly beforeTick: () => void,
    /** The most checks of one server a lookup reads back over. */
    replayChecks: number,
  ) {
    this.window = Math.ceil((replayChecks * millis(checkInterMs)) / TICK) + 1;
    this.tick = ctx.sched.register('haproxy.checks.tick', bound(this, this.onTick));
    this.salt = Math.floor(ctx.rng.stream('haproxy-checks').next() * 2 ** 32);
  }

  /** `count` check ends more (or fewer, when negative) on a node; only a node behind a hypervisor has an allowance to fill. */
  add(host: Host, count: number): void {
    if (!host.hypervisor) return;
    let node = this.byHost[host.index];
    if (!node) this.nodes.push((this.byHost[host.index] = node = { host, ends: 0, loss: [], lastLossy: -1 }));
    node.ends += count;
    if (this.ticking) return;
    this.ticking = true;
    // Ticks fall on multiples of TICK, so tick n holds the loss of [n, n + 1) × TICK.
    this.ctx.sched.at((Math.ceil(this.ctx.sched.now / TICK) * TICK) as SimTime, this.tick, 0);
  }

  /** The share of a node's packets its allowance drops at `t`, which must not be before `heldSince`. */
  lossAt(host: Host, t: number): number {
    const node = this.byHost[host.index];
    if (!node || node.loss.length === 0) return 0;
    const tick = Math.min(this.ticks - 1, Math.floor(t / TICK));
    if (tick < this.ticks - this.window) throw new RangeError(`CheckTraffic.lossAt: t ${t} µs is before the ${this.window} ticks of loss kept (heldSince ${this.heldSince} µs)`);
    return node.loss[tick % this.window]!;
  }

  /** The earliest time lossAt answers for: the start of the oldest tick kept. */
  get heldSince(): number {
    return Math.max(0, this.ticks - this.window) * TICK;
  }

  /** The most ticks of loss any node holds now: at most `window`, however long the run. */
  heldTicks(): number {
    let most = 0;
    for (const node of this.nodes) most = Math.max(most, node.loss.length);
    return most;
  }

  /** Whether either node dropped anything from `from` until now. */
  lossSince(a: Host, b: Host, from: number): boolean {
    return this.lossySince(a, from) || this.lossySince(b, from);
  }

  /** The chance that one SYN and its SYN-ACK both cross the allowances of the two nodes at `t`. */
  handshakeAt(a: Host, b: Host, t: number): number {
    const pass = (1 - this.lossAt(a, t)) * (1 - this.lossAt(b, t));
    return pass * pass;
  }

  /**
   * The chance that a check made at `t` fails: every SYN it sends before its timeout (`inter`, as no `timeout check` is
   * set) is lost on its way or its SYN-ACK is (docs/sources/service-discovery.md#haproxy-health-checks).
   */
  checkFailsAt(a: Host, b: Host, t: number): number {
    const lost = 1 - this.handshakeAt(a, b, t);
    if (lost === 0) return 0;
    let sends = 0;
    for (let at = 0, rto = this.tcp.initialRtoMs; at < this.checkInterMs && sends <= this.tcp.synRetries; at += rto, rto *= 2) sends++;
    return lost ** sends;
  }

  /** A uniform draw in [0, 1) fixed by the run's seed, one checking process, one server and one check. */
  draw(process: number, pod: number, check: number): number {
    const h = mix32(mix32(mix32(this.salt ^ process) ^ Math.imul(pod, 0x9e3779b1)) ^ Math.imul(check, 0x85ebca77));
    return h / 2 ** 32;
  }

  /** Milliseconds a new connection from `a` to `b` waits for its handshake: each lost attempt costs a timeout. */
  connectDelayMs(a: Host, b: Host, rng: RngStream): number {
    const pass = this.handshakeAt(a, b, this.ctx.sched.now);
    if (pass === 1) return 0;
    let delay = 0;
    for (let tries = 0, rto = this.tcp.initialRtoMs; tries < this.tcp.synRetries && rng.next() >= pass; tries++, rto *= 2) delay += rto;
    return delay;
  }

  private lossySince(host: Host, from: number): boolean {
    const node = this.byHost[host.index];
    return node !== undefined && node.lastLossy >= 0 && node.lastLossy >= Math.min(this.ticks - 1, Math.floor(from / TICK));
  }

  /** Each instance admits the check packets of the next tick that fit its allowance; the rest is its loss. */
  private onTick(): void {
    this.beforeTick();
    const now = this.ctx.sched.now;
    const perEnd = (this.checkPackets * (TICK / 1_000_000)) / (this.checkInterMs / 1000);
    const tick = Math.floor(now / TICK);
    let offered = 0;
    let dropped = 0;
    for (const node of this.nodes) {
      const packets = node.ends * perEnd;
      const admitted = packets > 0 ? node.host.hypervisor!.admitFlow(now as SimTime, packets) : 0;
      const loss = packets > 0 ? 1 - admitted / packets : 0;
      if (loss > 0) this.recordLoss(node, tick, loss);
      offered += packets;
      dropped += packets - admitted;
      this.record(node, tick, loss);
    }
    this.ticks = tick + 1;
    // Each packet was offered at two nodes; one drop at either loses it.
    this.lossShare = offered > 0 ? Math.min(1, dropped / (offered / 2)) : 0;
    this.ctx.sched.after(TICK, this.tick, 0);
  }

  /** For the "why" chains: a tick of loss at an instance, with the detail of its latest second. */
  private recordLoss(node: NodeLoad, tick: number, loss: number): void {
    const hypervisor = node.host.hypervisor!;
    const checks = node.ends / (this.checkInterMs / 1000);
    const detail =
      tick % TICKS_PER_SECOND === 0
        ? { checkPps: Math.round(checks * this.checkPackets), allowance: hypervisor.ppsAllowance, lossPct: Math.round(loss * 100), checks: Math.round(checks), packets: this.checkPackets }
        : undefined;
    this.ctx.causes.record('hypervisor_pps_exceeded', hypervisor.entity, this.ctx.sched.now, detail);
  }

  private record(node: NodeLoad, tick: number, loss: number): void {
    // Ticks the node missed before it first had checks lost nothing.
    while (node.loss.length <= Math.min(tick, this.window - 1)) node.loss.push(0);
    node.loss[tick % this.window] = loss;
    if (loss > 0) node.lastLossy = tick;
  }
}
