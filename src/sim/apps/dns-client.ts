import type { HandlerId } from '../core/scheduler';
import type { RngStream } from '../core/rng';
import { millis } from '../core/time';
import type { SimContext } from '../context';
import type { DnsSystem } from '../dns/dns-system';
import type { LookupError, LookupReceiver } from '../dns/stub-resolver';
import type { Pod, PodApp } from '../infra/pod';
import { bound } from '../core/snapshot';

/** One pod's app: it looks names up while it runs. */
export class DnsClient implements PodApp {
  running = false;

  constructor(
    private readonly fleet: DnsClients,
    readonly pod: Pod,
    readonly name: string,
    readonly rng: RngStream,
  ) {}

  start(): void {
    this.running = true;
    this.fleet.schedule(this.pod.index);
  }

  terminate(exit: () => void): void {
    this.running = false;
    exit();
  }

  killed(): void {
    this.running = false;
  }
}

/**
 * Pods that look a name up at a Poisson rate through their stub resolver, as a service resolving its dependencies
 * before each batch of work would; outcomes land in the stub resolver's `dns.client.*` metrics.
 */
export class DnsClients implements LookupReceiver {
  private readonly tick: HandlerId;
  private readonly clients: (DnsClient | undefined)[] = [];

  constructor(
    private readonly ctx: SimContext,
    private readonly dns: DnsSystem,
    /** Each pod's lookups per second (`params.dnsClient`). */
    private readonly lookupsPerSecond: number,
  ) {
    this.tick = ctx.sched.register('dns-client.tick', bound(this, this.onTick));
  }

  create(pod: Pod, name: string): PodApp {
    const client = new DnsClient(this, pod, name, this.ctx.rng.stream(`dns-client/${pod.name}`));
    this.clients[pod.index] = client;
    return client;
  }

  // Outcomes are counted by the stub resolver (dns.client.lookups, dns.client.failures{reason}); nothing more to do here.
  onResolved(): void {}

  onLookupFailed(_token: number, _error: LookupError): void {}

  /** Plans the pod's next lookup (from its DnsClient). */
  schedule(pod: number): void {
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
