import { bound } from '../core/snapshot';
import type { SimContext } from '../context';
import type { HandlerId } from '../core/scheduler';
import { seconds } from '../core/time';
import type { Bgp } from '../infra/bgp';
import type { Host } from '../infra/host';
import type { Router } from '../infra/router';
import type { Cidr, Ipv4 } from '../net/ipv4';
import type { Service } from './service';

interface Speaker {
  host: Host;
  id: number;
  /** The speaker pod runs; a stopped one has closed its sessions and announces nothing. */
  running: boolean;
  /** Its BGP has stopped talking (a hung daemon): it neither announces nor withdraws, and sends no KEEPALIVE. */
  hung: boolean;
}

/**
 * MetalLB in BGP mode (docs/sources/load-balancers.md#metallb-bgp-mode): a speaker on each chosen node peers with the
 * router and announces every LoadBalancer IP as a /32 with its node as next hop. Under externalTrafficPolicy Cluster
 * every speaker announces; under Local only the nodes that run a ready endpoint do, so scaling a deployment adds and
 * withdraws next hops.
 */
export class MetalLb {
  private readonly speakers: Speaker[];
  private readonly restartDone: HandlerId;

  constructor(
    private readonly ctx: SimContext,
    private readonly bgp: Bgp,
    private readonly router: Router,
    speakerHosts: readonly Host[],
    private readonly services: readonly Service[],
  ) {
    this.speakers = speakerHosts.map((host) => {
      const id = bgp.addSpeaker(host.ip, host.entity);
      bgp.connect(id, router);
      return { host, id, running: true, hung: false };
    });
    this.restartDone = ctx.sched.register('metallb.speaker-restarted', bound(this, this.restarted));
  }

  private restarted(host: number): void {
    const s = this.speakers.find((x) => x.host.index === host)!;
    if (!s.host.powered) return;
    this.startSpeaker(s.host, `restart of ${s.host.entity}'s speaker`);
  }

  /** The starting state: every announcement already converged at the router. */
  start(): void {
    for (const service of this.services) {
      const prefix = prefixOf(service);
      for (const s of this.speakers) if (this.wants(service, s.host)) this.bgp.announceConverged(s.id, prefix);
    }
  }

  /** A Service's endpoints changed: speakers start or stop announcing its address. */
  refresh(service: Service): void {
    if (!this.services.includes(service)) return;
    const prefix = prefixOf(service);
    for (const s of this.speakers) {
      // A hung speaker does not even notice the change: it neither withdraws nor claims to.
      if (!s.running || s.hung) continue;
      const wants = this.wants(service, s.host);
      const announcing = this.bgp.isAnnouncing(s.id, prefix);
      if (wants === announcing) continue;
      if (wants) this.bgp.announce(s.id, prefix);
      else this.bgp.withdraw(s.id, prefix);
      const ready = service.slice.endpoints.filter((e) => e.node === s.host.index && e.ready).length;
      const detail = { service: service.name, deployment: service.selector, policy: service.externalTrafficPolicy, ready };
      this.ctx.causes.record(wants ? 'bgp_announced' : 'bgp_withdrawn', s.host.entity, this.ctx.sched.now, detail);
    }
  }

  /** The BGP sessions of every speaker ever started, up or down. */
  sessions(): { speaker: string; router: string; up: boolean; routes: number }[] {
    return this.bgp.sessionStates();
  }

  /** Whether a speaker runs on the node (hung or not). */
  runsOn(host: Host): boolean {
    return this.speakers.some((s) => s.host === host && s.running);
  }

  /** Whether the node's speaker runs and talks. */
  talksOn(host: Host): boolean {
    return this.speakers.some((s) => s.host === host && s.running && !s.hung);
  }

  /**
   * The node's speaker pod starts (a new one if the node never had one): it opens its session to the router and
   * announces what it should, which the router learns after the convergence delay.
   */
  startSpeaker(host: Host, cause: string): void {
    let s = this.speakers.find((x) => x.host === host);
    if (s?.running) return;
    if (s) s.hung = false;
    if (!s) {
      s = { host, id: this.bgp.addSpeaker(host.ip, host.entity), running: true, hung: false };
      this.speakers.push(s);
      this.note(host.entity, 'metallb.speaker.started', 'MetalLB speaker started', cause);
      this.bgp.connect(s.id, this.router);
    } else {
      s.running = true;
      this.note(host.entity, 'metallb.speaker.started', 'MetalLB speaker started', cause);
      this.bgp.speakerUp(s.id);
    }
    for (const service of this.services) this.refresh(service);
  }

  /** The node's speaker pod stops cleanly: it withdraws its routes and closes its session (NOTIFICATION Cease). */
  stopSpeaker(host: Host, cause: string): void {
    const s = this.speakers.find((x) => x.host === host && x.running);
    if (!s) return;
    s.running = false;
    this.note(host.entity, 'metallb.speaker.stopped', 'MetalLB speaker stopped', cause);
    for (const service of this.services) this.bgp.withdraw(s.id, prefixOf(service));
    this.bgp.speakerDown(s.id, 'cease');
  }

  /**
   * The node's speaker pod is restarted on purpose (a MetalLB upgrade rolls the speaker DaemonSet): its session goes
   * down for `downSeconds` with what it announces unchanged, and comes back. Without graceful restart the router
   * withdraws the node's routes meanwhile.
   */
  restartSpeaker(host: Host, downSeconds: number, cause: string): void {
    const s = this.speakers.find((x) => x.host === host && x.running);
    if (!s) return;
    s.running = false;
    s.hung = false;
    this.note(host.entity, 'metallb.speaker.restarting', `MetalLB speaker restarting; back in ${downSeconds} s`, cause);
    this.bgp.speakerDown(s.id, 'restart');
    this.ctx.sched.after(seconds(downSeconds), this.restartDone, host.index);
  }

  /** The node's speaker hangs: it keeps its sessions open but sends nothing, so the router hears from it no more. */
  hangSpeaker(host: Host, cause: string): void {
    const s = this.speakers.find((x) => x.host === host && x.running && !x.hung);
    if (!s) return;
    s.hung = true;
    this.ctx.note('warn', host.entity, 'metallb.speaker.hung', 'MetalLB speaker hung: no more KEEPALIVEs, announcements or withdrawals', { cause });
    this.bgp.speakerDown(s.id, 'silent');
  }

  /** The node lost power: its speaker dies with it, withdrawing nothing. */
  nodeDark(host: Host): void {
    const s = this.speakers.find((x) => x.host === host && x.running);
    if (!s) return;
    s.running = false;
    this.bgp.speakerDown(s.id, 'dark');
  }

  private note(entity: string, kind: string, message: string, cause: string): void {
    this.ctx.note('info', entity, kind, message, { cause });
  }

  private wants(service: Service, host: Host): boolean {
    if (service.externalTrafficPolicy === 'Cluster') return true;
    return service.slice.endpoints.some((e) => e.node === host.index && e.ready);
  }
}

function prefixOf(service: Service): Cidr {
  return { base: service.loadBalancerIp! as Ipv4, prefix: 32 };
}
