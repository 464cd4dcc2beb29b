import type { Bgp } from '../infra/bgp';
import type { Host } from '../infra/host';
import type { Router } from '../infra/router';
import type { Cidr, Ipv4 } from '../net/ipv4';
import type { Service } from './service';

/**
 * MetalLB in BGP mode (REFERENCE F.4): a speaker on each chosen node peers with the router and announces every
 * LoadBalancer IP as a /32 with its node as next hop. Under externalTrafficPolicy Cluster every speaker announces;
 * under Local only the nodes that run a ready endpoint do, so scaling a deployment adds and withdraws next hops.
 */
export class MetalLb {
  private readonly speakers: { host: Host; id: number }[];

  constructor(
    private readonly bgp: Bgp,
    router: Router,
    speakerHosts: readonly Host[],
    private readonly services: readonly Service[],
  ) {
    this.speakers = speakerHosts.map((host) => {
      const id = bgp.addSpeaker(host.ip, host.entity);
      bgp.connect(id, router);
      return { host, id };
    });
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
      const wants = this.wants(service, s.host);
      if (wants && !this.bgp.isAnnouncing(s.id, prefix)) this.bgp.announce(s.id, prefix);
      else if (!wants && this.bgp.isAnnouncing(s.id, prefix)) this.bgp.withdraw(s.id, prefix);
    }
  }

  private wants(service: Service, host: Host): boolean {
    if (service.externalTrafficPolicy === 'Cluster') return true;
    return service.slice.endpoints.some((e) => e.node === host.index && e.ready);
  }
}

function prefixOf(service: Service): Cidr {
  return { base: service.loadBalancerIp! as Ipv4, prefix: 32 };
}
