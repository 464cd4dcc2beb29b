import type { SimContext } from '../context';
import type { Counter } from '../core/metrics';
import type { HandlerId } from '../core/scheduler';
import type { RngStream } from '../core/rng';
import { millis, seconds, type SimTime } from '../core/time';
import type { DnsQuery } from './message';
import type { DnsProto, DnsServer } from './transport';
import { bound } from '../core/snapshot';

interface Held {
  server: DnsServer;
  exchange: number;
  query: DnsQuery;
  proto: DnsProto;
}

/**
 * A DNS server made unreliable for a while, as an overloaded or partitioned upstream is: for the window, each query is
 * lost with some probability (the asker hears nothing and times out) and the rest are answered only after an added
 * delay. Outside the window queries pass straight through, so an unimpaired server behaves exactly as before.
 */
export class ServerImpairment {
  private until = 0;
  private dropProbability = 0;
  private latency = 0;
  private readonly held = new Map<number, Held>();
  private nextToken = 0;
  private readonly release: HandlerId;
  private rng: RngStream | null = null;
  // Made on the first impairment, so unimpaired runs report exactly the metrics they did before.
  private dropped: Counter | null = null;
  private delayed: Counter | null = null;

  constructor(
    private readonly ctx: SimContext,
    /** Metric and stream name part: `cluster` or `provider`. */
    readonly name: string,
    /** Who the log says is impaired, e.g. `deployment/coredns`. */
    readonly entity: string,
  ) {
    this.release = ctx.sched.register(`dns.impairment.${name}`, bound(this, this.releaseHeld));
  }

  /** A delayed query reaches its server. */
  private releaseHeld(token: number): void {
    const h = this.held.get(token);
    if (!h) return;
    this.held.delete(token);
    h.server.onQuery(h.exchange, h.query, h.proto);
  }

  /** From now for `durationSeconds`: lose each query with `dropProbability`, delay the others by `addedLatencyMs`. */
  impair(durationSeconds: number, dropProbability: number, addedLatencyMs: number, cause: string): void {
    const m = this.ctx.metrics;
    this.dropped ??= m.counter(`dns.${this.name}.impaired.dropped`);
    this.delayed ??= m.counter(`dns.${this.name}.impaired.delayed`);
    if (dropProbability > 0 && dropProbability < 1) this.rng ??= this.ctx.rng.stream(`dns-impairment/${this.name}`);
    this.until = this.ctx.sched.now + seconds(durationSeconds);
    this.dropProbability = dropProbability;
    this.latency = millis(addedLatencyMs);
    const what = [dropProbability > 0 ? `${Math.round(dropProbability * 100)} % of queries lost` : '', addedLatencyMs > 0 ? `answers ${addedLatencyMs} ms late` : '']
      .filter(Boolean)
      .join(', ');
    this.ctx.note('warn', this.entity, 'dns.upstream.impaired', `${what || 'no change'} for ${durationSeconds} s`, { cause });
  }

  get active(): boolean {
    return this.ctx.sched.now < this.until;
  }

  /** The server as the transport should see it: queries go through the impairment first. */
  wrap(server: DnsServer): DnsServer {
    return { onQuery: bound(this, this.onQuery, server) };
  }

  private onQuery(server: DnsServer, exchange: number, query: DnsQuery, proto: DnsProto): void {
    if (this.ctx.sched.now >= this.until) {
      server.onQuery(exchange, query, proto);
      return;
    }
    const p = this.dropProbability;
    if (p >= 1 || (p > 0 && this.rng!.chance(p))) {
      this.dropped!.inc();
      this.ctx.causes.record('dns.upstream.impaired', this.entity, this.ctx.sched.now);
      return;
    }
    if (this.latency <= 0) {
      server.onQuery(exchange, query, proto);
      return;
    }
    this.delayed!.inc();
    const token = this.nextToken++;
    this.held.set(token, { server, exchange, query, proto });
    this.ctx.sched.at((this.ctx.sched.now + this.latency) as SimTime, this.release, token);
  }
}
