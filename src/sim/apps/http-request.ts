import type { SimTime } from '../core/time';
import { formatIpv4 } from '../net/ipv4';
import { clearForwardedFor, createForwardedFor, formatForwardedFor, forwardedValue, type ForwardedFor } from '../net/forwarded';
import type { ClientAddressVerdict, RequestHop, RequestJourney } from '../api';

// HTTP request ids start far above DNS query ids (16 bits) and gRPC stream messages, so a request packet's message
// names an HTTP request only when it is one; every id stays an exact float64 integer.
const FIRST_ID = 2 ** 40;
// Model choice: the last 40 sampled requests, enough for each hop of a small topology to show a few.
const JOURNEY_CAPACITY = 40;
/** The HTTP status a proxy answers with when its upstream failed; a 2xx/4xx answer is a success to the client. */
export const HTTP_BAD_GATEWAY = 502;
export const HTTP_OK = 200;

interface Entry {
  /** The address the request really came from: ground truth the simulation knows and the servers do not. */
  origin: number;
  xff: ForwardedFor;
  status: number;
  journey: RequestJourney | null;
}

/**
 * The HTTP requests in flight and the headers they carry. Packets carry only a request's id (`message`); proxies
 * rewrite X-Forwarded-For here, once per request, as a real proxy edits the header of the request it forwards.
 * A sampled request also keeps its journey: the source address and header as each hop saw them.
 */
export class HttpRequests {
  private readonly open = new Map<number, Entry>();
  private readonly spare: ForwardedFor[] = [];
  private nextId = FIRST_ID;
  private readonly journeys: RequestJourney[] = [];
  private journeyCount = 0;
  /** Requests each deployment's servers have taken so far, for autoscalers. */
  private readonly servedBy = new Map<string, number>();

  /** A new request from `origin`, carrying the header the sender wrote (a copy is taken), sampled when `sample`. */
  create(origin: number, supplied: ForwardedFor | null, sample: boolean, summary: string): number {
    const id = this.nextId++;
    const xff = this.spare.pop() ?? createForwardedFor();
    clearForwardedFor(xff);
    if (supplied) {
      xff.ips.set(supplied.ips.subarray(0, supplied.length));
      xff.length = supplied.length;
    }
    let journey: RequestJourney | null = null;
    if (sample) {
      journey = { id: this.journeyCount, origin: formatIpv4(origin), summary, hops: [] };
      this.journeys[this.journeyCount++ % JOURNEY_CAPACITY] = journey;
    }
    this.open.set(id, { origin, xff, status: HTTP_OK, journey });
    return id;
  }

  /**
   * A request a proxy sends on for `from`: same origin, a copy of its header, the same journey. A request nobody
   * tracks (a load balancer's health probe) goes on untracked, under an id of its own.
   */
  forward(from: number): number {
    const entry = this.open.get(from);
    if (!entry) return this.nextId++;
    const id = this.create(entry.origin, entry.xff, false, '');
    this.open.get(id)!.journey = entry.journey;
    return id;
  }

  has(id: number): boolean {
    return this.open.has(id);
  }

  /** The request's X-Forwarded-For list, to read or rewrite; undefined for ids that name no open HTTP request. */
  xff(id: number): ForwardedFor | undefined {
    return this.open.get(id)?.xff;
  }

  origin(id: number): number | undefined {
    return this.open.get(id)?.origin;
  }

  status(id: number): number {
    return this.open.get(id)?.status ?? HTTP_OK;
  }

  setStatus(id: number, status: number): void {
    const entry = this.open.get(id);
    if (entry) entry.status = status;
  }

  sampled(id: number): boolean {
    return this.open.get(id)?.journey != null;
  }

  /** Records a hop of a sampled request (nothing for others): where it was, what happened, its addresses then. */
  hop(id: number, t: SimTime, where: string, what: string, src: string, dst: string): void {
    const entry = this.open.get(id);
    if (!entry?.journey) return;
    const hop: RequestHop = { t, where, what, src, dst, xff: formatForwardedFor(entry.xff) };
    if (entry.xff.length > 0) hop.forwarded = forwardedValue(entry.xff);
    entry.journey.hops.push(hop);
  }

  /** What the server that answered took for the client's address. */
  logged(id: number, address: number, verdict: ClientAddressVerdict): void {
    const journey = this.open.get(id)?.journey;
    if (journey) journey.logged = { address: formatIpv4(address), verdict };
  }

  /** The request is answered or given up on: its id is no longer valid. */
  close(id: number): void {
    const entry = this.open.get(id);
    if (!entry) return;
    this.open.delete(id);
    this.spare.push(entry.xff);
  }

  countServed(deployment: string): void {
    this.servedBy.set(deployment, (this.servedBy.get(deployment) ?? 0) + 1);
  }

  served(deployment: string): number {
    return this.servedBy.get(deployment) ?? 0;
  }

  get inFlight(): number {
    return this.open.size;
  }

  /** The sampled requests still kept, oldest first. */
  recent(): RequestJourney[] {
    return [...this.journeys].filter((j) => j !== undefined).sort((a, b) => a.id - b.id);
  }
}
