import type { RngStream } from '../core/rng';
import type { SimTime } from '../core/time';
import type { PacketTrace } from '../api';

/** Keeps the hop-by-hop story of a sampled fraction of packets; unsampled packets cost one branch. */
export class PacketTracer {
  private readonly traces: PacketTrace[] = [];
  private started = 0;

  constructor(
    private readonly rng: RngStream,
    private readonly sampleRate: number,
    private readonly capacity: number,
  ) {}

  /** Returns a trace slot for a new packet, or -1 when it is not sampled. */
  begin(): number {
    if (this.sampleRate <= 0 || !this.rng.chance(this.sampleRate)) return -1;
    const id = this.started++;
    const slot = id % this.capacity;
    this.traces[slot] = { id, summary: '', hops: [] };
    return slot;
  }

  describe(slot: number, summary: string): void {
    const trace = this.traces[slot];
    if (trace) trace.summary = summary;
  }

  hop(slot: number, t: SimTime, where: string, what: string): void {
    this.traces[slot]?.hops.push({ t, where, what });
  }

  recent(): PacketTrace[] {
    return [...this.traces].filter((x) => x !== undefined).sort((a, b) => a.id - b.id);
  }
}
