import type { Counter, Gauge } from '../core/metrics';
import type { SimTime } from '../core/time';
import { ConntrackTable, CtState, KERNEL_TIMEOUTS, nextTcpState, nextUdpState, type ConntrackTimeouts } from '../net/conntrack';
import { cidr, cidrContains, formatIpv4 } from '../net/ipv4';
import { KEEP, type AnonymousFlows } from '../net/anonymous-flows';
import { Proto, type PacketPool } from '../net/packet';
import type { DropReason } from '../report/drop-reasons';
import type { Metrics } from '../core/metrics';
import { LINKLOCAL_PPS, PpsAllowance } from './pps-allowance';

// Link-local services (Amazon DNS at 169.254.169.253, IMDS, Time Sync) live in 169.254.0.0/16
// (docs/sources/cloud-hypervisor.md#link-local-allowance).
const LINK_LOCAL = cidr('169.254.0.0/16');

export interface HypervisorSettings {
  conntrackAllowance: number;
  ppsAllowance: number;
  untracked: boolean;
  sourceDestCheck: boolean;
  tcpEstablishedTimeoutS: number;
  tcpUnestablishedTimeoutS: number;
  udpTimeoutS: number;
  udpStreamTimeoutS: number;
}

/** Security-group tracking timeouts from the instance settings; closing states keep the kernel's values (model choice). */
function trackingTimeouts(s: HypervisorSettings): ConntrackTimeouts {
  return {
    ...KERNEL_TIMEOUTS,
    synSent: s.tcpUnestablishedTimeoutS,
    synRecv: s.tcpUnestablishedTimeoutS,
    established: s.tcpEstablishedTimeoutS,
    udpUnreplied: s.udpTimeoutS,
    udpStream: s.udpStreamTimeoutS,
  };
}

/**
 * What a cloud instance's hypervisor (the Nitro card behind an ENA interface) does to every packet before the guest
 * sees it or after it leaves: the instance's PPS allowance, the per-interface link-local allowance, security-group
 * connection tracking against the tracked-connection allowance, and the source/destination check. The counters carry
 * the ENA driver's names (docs/sources/cloud-hypervisor.md#ena-allowance-counters).
 */
export class Hypervisor {
  readonly table: ConntrackTable;
  readonly lastDropLog: Float64Array;
  private readonly pps: PpsAllowance;
  private readonly linkLocal: PpsAllowance[] = [];
  private flowExceeded = 0;
  /** Addresses attached to the instance's interfaces; it may send from these only. */
  readonly attached = new Set<number>();
  private readonly conntrackExceeded: Counter;
  private readonly conntrackExceededHere: Counter;
  private readonly ppsExceeded: Counter;
  private readonly ppsExceededHere: Counter;
  private readonly linklocalExceeded: Counter;
  private readonly linklocalExceededHere: Counter;
  private readonly available: Gauge;
  private readonly used: Gauge;
  /** Names the instance in every drop, trace and log line. */
  readonly entity: string;

  constructor(
    readonly instance: string,
    private readonly settings: HypervisorSettings,
    metrics: Metrics,
    dropReasonCount: number,
  ) {
    this.entity = `instance/${instance}`;
    this.lastDropLog = new Float64Array(dropReasonCount).fill(-Infinity);
    this.table = new ConntrackTable(settings.conntrackAllowance, trackingTimeouts(settings));
    this.pps = new PpsAllowance(settings.ppsAllowance);
    const labels = { instance };
    this.conntrackExceeded = metrics.counter('hypervisor.conntrack_allowance_exceeded');
    this.conntrackExceededHere = metrics.counter('hypervisor.conntrack_allowance_exceeded', labels);
    this.ppsExceeded = metrics.counter('hypervisor.pps_allowance_exceeded');
    this.ppsExceededHere = metrics.counter('hypervisor.pps_allowance_exceeded', labels);
    this.linklocalExceeded = metrics.counter('hypervisor.linklocal_allowance_exceeded');
    this.linklocalExceededHere = metrics.counter('hypervisor.linklocal_allowance_exceeded', labels);
    this.available = metrics.gauge('hypervisor.conntrack_allowance_available', labels);
    this.used = metrics.gauge('hypervisor.conntrack.used', labels);
    this.available.set(settings.conntrackAllowance);
  }

  /** A packet leaving the instance by interface `iface`; null when it may go on, else why it is dropped. */
  egress(p: PacketPool, id: number, iface: number, now: SimTime, flows?: AnonymousFlows): DropReason | null {
    if (this.settings.sourceDestCheck && !this.attached.has(p.outerSrc[id] || p.srcIp[id]!)) return 'source_dest_check';
    if (!this.pps.admit(now)) return this.overPps();
    if (cidrContains(LINK_LOCAL, p.dstIp[id]!) && !this.linkLocalFor(iface).admit(now)) {
      this.linklocalExceeded.inc();
      this.linklocalExceededHere.inc();
      return 'linklocal_exceeded';
    }
    return this.track(p, id, now, flows);
  }

  /** A packet arriving for the instance from the fabric. */
  ingress(p: PacketPool, id: number, now: SimTime, flows?: AnonymousFlows): DropReason | null {
    if (!this.pps.admit(now)) return this.overPps();
    return this.track(p, id, now, flows);
  }

  /**
   * A flow of packets booked in bulk rather than one by one (HAProxy's health checks): the share the PPS allowance
   * admits, the rest counted as `pps_allowance_exceeded` in whole packets, the fraction carried to the next call.
   */
  admitFlow(now: SimTime, packets: number): number {
    const admitted = this.pps.admitFlow(now, packets);
    this.flowExceeded += packets - admitted;
    const whole = Math.floor(this.flowExceeded);
    this.flowExceeded -= whole;
    this.ppsExceeded.inc(whole);
    this.ppsExceededHere.inc(whole);
    return admitted;
  }

  /** IP-in-IP between two nodes is one flow of protocol 4 to the security group, whatever it carries. */
  private trackTunnel(p: PacketPool, id: number, now: SimTime): DropReason | null {
    const t = this.table;
    const ref = t.lookupRef(Proto.ipip, p.outerSrc[id]!, 0, p.outerDst[id]!, 0, now);
    if (ref >= 0) {
      t.update(ref >> 1, nextUdpState(t.stateOf(ref >> 1), (ref & 1) === 1), now);
      return null;
    }
    if (t.insert(Proto.ipip, p.outerSrc[id]!, 0, p.outerDst[id]!, 0, CtState.udpUnreplied, now) >= 0) return null;
    return this.overAllowance();
  }

  private overAllowance(): DropReason {
    this.conntrackExceeded.inc();
    this.conntrackExceededHere.inc();
    return 'hypervisor_conntrack_exceeded';
  }

  /** Packets a second the instance may send and receive together. */
  get ppsAllowance(): number {
    return this.settings.ppsAllowance;
  }

  /** A new tracked-connection allowance, as moving to another instance size gives (without the restart). */
  setConntrackAllowance(allowance: number): void {
    this.table.setMax(allowance);
    this.available.set(Math.max(0, allowance - this.table.size));
  }

  /** Samples the gauges; called once a metrics step, with a bounded sweep of expired entries. */
  sample(now: SimTime): void {
    this.table.sweep(now, 4096);
    this.used.set(this.table.size);
    this.available.set(Math.max(0, this.table.max - this.table.size));
  }

  private overPps(): DropReason {
    this.ppsExceeded.inc();
    this.ppsExceededHere.inc();
    return 'hypervisor_pps_exceeded';
  }

  private linkLocalFor(iface: number): PpsAllowance {
    let bucket = this.linkLocal[iface];
    if (!bucket) this.linkLocal[iface] = bucket = new PpsAllowance(LINKLOCAL_PPS);
    return bucket;
  }

  /** Security-group tracking: a known flow moves on; a new one needs room in the allowance, whichever way it goes. */
  private track(p: PacketPool, id: number, now: SimTime, flows?: AnonymousFlows): DropReason | null {
    if (this.settings.untracked) return null;
    if (p.outerDst[id] !== 0) return this.trackTunnel(p, id, now);
    const proto = p.proto[id]!;
    const t = this.table;
    // An anonymous flow's packets find its own entries through its trail (net/anonymous-flows.ts).
    const anonymous = flows !== undefined && p.anon[id]! >= 0;
    const src = p.srcIp[id]!;
    const sport = p.srcPort[id]!;
    const dst = p.dstIp[id]!;
    const dport = p.dstPort[id]!;
    const ref = anonymous ? flows.lookup(p, id, t, now) : t.lookupRef(proto, src, sport, dst, dport, now);
    if (ref >= 0) {
      const entry = ref >> 1;
      const reply = (ref & 1) === 1;
      if (proto === Proto.tcp) t.update(entry, nextTcpState(t.stateOf(entry), p.flags[id]!, reply), now);
      else t.update(entry, nextUdpState(t.stateOf(entry), reply), now);
      return null;
    }
    const state = proto === Proto.tcp ? nextTcpState(CtState.synSent, p.flags[id]!, false) : CtState.udpUnreplied;
    let made = anonymous ? flows.insert(p, id, t, dst, dport, dst, dport, src, sport, state, now) : KEEP;
    if (made === KEEP) {
      if (anonymous) flows.promote(p, id);
      made = t.insert(proto, src, sport, dst, dport, state, now);
    }
    return made >= 0 ? null : this.overAllowance();
  }

  /** The tracked-connection allowance: how many flows the instance can track at once. */
  get allowance(): number {
    return this.table.max;
  }

  describeDrop(reason: DropReason): string | undefined {
    switch (reason) {
      case 'hypervisor_conntrack_exceeded':
        return this.describeFullness();
      case 'source_dest_check':
        return 'source/destination check is on and the source is not an address of this instance';
      default:
        return undefined;
    }
  }

  dropDetail(reason: DropReason): Record<string, number | string> | undefined {
    if (reason !== 'hypervisor_conntrack_exceeded') return undefined;
    const top = this.table.busiestDestination();
    const detail: Record<string, number | string> = { used: this.table.size, allowance: this.table.max };
    if (top) {
      detail['busiestDst'] = top.ip;
      detail['busiestShare'] = top.entries / top.sampled;
    }
    return detail;
  }

  /** The destination most tracked entries point at, for the explanation of a full table; scans the table, so call rarely. */
  describeFullness(): string {
    const used = `${this.table.size} of ${this.table.max} tracked connections in use`;
    const top = this.table.busiestDestination();
    if (!top) return used;
    const share = Math.round((100 * top.entries) / top.sampled);
    return `${used}; ${share} % of those sampled are flows to ${formatIpv4(top.ip)}`;
  }
}
