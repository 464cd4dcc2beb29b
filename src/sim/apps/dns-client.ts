import type { HandlerId } from '../core/scheduler';
import type { RngStream } from '../core/rng';
import { millis } from '../core/time';
import type { SimContext } from '../context';
import type { DnsSystem } from '../dns/dns-system';
import type { LookupError, LookupReceiver } from '../dns/stub-resolver';
import type { Pod, PodApp } from '../infra/pod';

/**
 * Pods that look a name up at a Poisson rate through their stub resolver, as a service resolving its dependencies
 * before each batch of work would; outcomes land in the stub resolver's `dns.client.*` metrics.
 */
export class DnsClients implements LookupReceiver {
  private readonly tick: HandlerId;
  private readonly clients: ({ pod: Pod; name: string; rng: RngStream; running: boolean } | undefined)[] = [];

  constructor(
    private readonly ctx: SimContext,
    private readonly dns: DnsSystem,
    /** Each pod's lookups per second (`params.dnsClient`). */
    private readonly lookupsPerSecond: number,
  ) {
    this.tick = ctx.sched.register('dns-client.tick', (pod) => this.onTick(pod));
  }

  create(pod: Pod, name: string): PodApp {
    const client = { pod, name, rng: this.ctx.rng.stream(`dns-client/${pod.name}`), running: false };
    this.clients[pod.index] = client;
    return {
      start: () => {
        client.running = true;
        this.schedule(pod.index);
      },
      terminate: (exit) => {
        client.running = false;
        exit();
      },
      killed: () => {
        client.running = false;
      },
    };
  }

  // Outcomes are counted by the stub resolver (dns.client.lookups, dns.client.failures{reason}); nothing more to do here.
  onResolved(): void {}

  onLookupFailed(_token: number, _error: LookupError): void {}

  private schedule(pod: number): void {
    const client = this.clients[pod]!;
    const meanMs = 1000 / this.lookupsPerSecond;
    this.ctx.sched.after(millis(client.rng.exponential(meanMs)), this.tick, pod);
  }

  private onTick(pod: number): void {
    const client = this.clients[pod];
    if (!client?.running) return;
    this.dns.stub.lookup(pod, this.dns.conf, client.name, this, pod);
    this.schedule(pod);
  }
}
