/**
 * gRPC's pick_first policy as grpc-go's pickfirstleaf runs it (docs/sources/grpc.md#load-balancing-policies): one
 * connection, lazy after a loss.
 */
import type { RngStream } from '../../core/rng';
import { millis, type Duration } from '../../core/time';
import { ConnectionBackoff, GRPC_BACKOFF, type BackoffConfig } from './backoff';
import type { LbHost, LbPolicy, Pick } from './lb-policy';
import { Connectivity, Subchannel, SubchannelIds, type ConnectivityState, type SubchannelListener } from './subchannel';

export interface PickFirstSettings {
  backoff: BackoffConfig;
  /** Happy Eyeballs: while an attempt is pending, the next address is tried after this; 0 waits for the failure. */
  connectionDelay: Duration;
}

export const PICK_FIRST_DEFAULTS: PickFirstSettings = {
  backoff: GRPC_BACKOFF,
  // connectionDelayInterval 250 ms (grpc-go pickfirstleaf, docs/sources/grpc.md#load-balancing-policies).
  connectionDelay: millis(250),
};

/**
 * A first pass tries the addresses in order (the next one on failure or after the Happy Eyeballs delay) and keeps
 * the first subchannel to become READY, shutting down the others. When that connection is lost the policy goes IDLE
 * and reconnects only when an RPC picks (lazy), starting again from the first address. If every address fails in the
 * first pass, the policy stays in TRANSIENT_FAILURE until something is READY ("sticky TF") and reconnects each
 * subchannel as soon as its backoff ends.
 */
export class PickFirstPolicy implements LbPolicy, SubchannelListener {
  state: ConnectivityState = Connectivity.idle;
  private list: number[] = [];
  /** Subchannels by address index; null until the pass reaches the address, or after it was shut down. */
  private subs: (Subchannel | null)[] = [];
  private failedInPass: boolean[] = [];
  private index = 0;
  private firstPass = false;
  private selected: Subchannel | null = null;
  private delayToken = 0;

  constructor(
    private readonly host: LbHost,
    private readonly settings: PickFirstSettings,
    private readonly rng: RngStream,
    private readonly ids: SubchannelIds = new SubchannelIds(),
  ) {}

  get addresses(): readonly number[] {
    return this.list;
  }

  subchannelStates(): { address: number; state: ConnectivityState }[] {
    return this.subs.flatMap((sub, i) => (sub ? [{ address: this.list[i]!, state: sub.state }] : []));
  }

  updateAddresses(addresses: readonly number[]): void {
    this.cancelDelay();
    const previousCount = this.list.length;
    const previousReady = this.selected;
    const list = addresses.filter((address, i) => addresses.indexOf(address) === i);
    const subs = list.map((address) => this.subs.find((sub) => sub?.address === address) ?? null);
    for (const sub of this.subs) if (sub && !list.includes(sub.address)) sub.shutdown();
    this.list = list;
    this.subs = subs;
    this.failedInPass = list.map(() => false);
    this.index = 0;
    if (list.length === 0) {
      // An empty list counts as a resolver error; with no previous addresses the policy fails RPCs.
      this.selected = null;
      this.setState(Connectivity.transientFailure);
      return;
    }
    if (previousReady && list.includes(previousReady.address)) {
      this.index = list.indexOf(previousReady.address);
      return;
    }
    this.selected = null;
    if (previousReady || this.state === Connectivity.connecting || previousCount === 0) {
      this.setState(Connectivity.connecting);
      this.startFirstPass();
    } else if (this.state === Connectivity.transientFailure) {
      this.startFirstPass();
    }
  }

  pick(): Pick {
    switch (this.state) {
      case Connectivity.ready:
        return this.selected ?? 'queue';
      case Connectivity.idle:
        this.exitIdle();
        return 'queue';
      case Connectivity.connecting:
        return 'queue';
      default:
        return 'fail';
    }
  }

  exitIdle(): void {
    if (this.state === Connectivity.idle) this.startFirstPass();
  }

  connectionDelayExpired(token: number): void {
    if (token !== this.delayToken || this.index >= this.list.length) return;
    this.index++;
    if (this.index < this.list.length) this.requestConnection();
  }

  shutdown(): void {
    this.cancelDelay();
    for (const sub of this.subs) sub?.shutdown();
    this.subs = [];
    this.list = [];
    this.selected = null;
    this.state = Connectivity.shutdown;
  }

  /**
   * Tells each subchannel whether this policy ignores its redial loop: in sticky TRANSIENT_FAILURE after the first pass
   * it only reconnects a subchannel that goes IDLE and notes a failure it has noted already, so the dial cohort may
   * run the loop without calling in (dial-cohort.ts).
   */
  private markInert(): void {
    const inert = !this.firstPass && this.state === Connectivity.transientFailure;
    for (const sub of this.subs) if (sub) sub.inert = inert;
  }

  subchannelChanged(sub: Subchannel, previous: ConnectivityState): void {
    const i = this.subs.indexOf(sub);
    if (i < 0) return;
    const state = sub.state;
    if (state === Connectivity.transientFailure) this.failedInPass[i] = true;
    if (state === Connectivity.ready) {
      this.shutdownRemaining(sub);
      this.index = i;
      this.selected = sub;
      this.setState(Connectivity.ready);
      return;
    }
    if (previous === Connectivity.ready) {
      this.shutdownRemaining(sub);
      this.selected = null;
      this.index = 0;
      this.setState(Connectivity.idle);
      return;
    }
    if (this.firstPass) {
      if (state === Connectivity.connecting) {
        if (this.state !== Connectivity.transientFailure) this.setState(Connectivity.connecting);
      } else if (state === Connectivity.transientFailure) {
        if (i === this.index) {
          this.cancelDelay();
          this.index++;
          if (this.index < this.list.length) {
            this.requestConnection();
            return;
          }
        }
        this.endFirstPassIfPossible();
      }
      return;
    }
    if (state === Connectivity.transientFailure) this.setState(Connectivity.transientFailure);
    else if (state === Connectivity.idle) sub.connect();
  }

  private startFirstPass(): void {
    this.firstPass = true;
    this.markInert();
    this.index = 0;
    this.failedInPass.fill(false);
    this.requestConnection();
  }

  /** Connects the subchannel at the current index, skipping addresses still backing off from an earlier pass. */
  private requestConnection(): void {
    for (; this.index < this.list.length; this.index++) {
      const sub = this.subAt(this.index);
      if (sub.state === Connectivity.idle) {
        sub.connect();
        this.scheduleNext();
        return;
      }
      if (sub.state === Connectivity.connecting) {
        this.scheduleNext();
        return;
      }
      if (sub.state !== Connectivity.transientFailure) return;
      this.failedInPass[this.index] = true;
    }
    this.endFirstPassIfPossible();
  }

  private endFirstPassIfPossible(): void {
    if (this.index < this.list.length) return;
    for (let i = 0; i < this.subs.length; i++) if (this.subs[i] && !this.failedInPass[i]) return;
    this.firstPass = false;
    this.setState(Connectivity.transientFailure);
    this.markInert();
    for (const sub of this.subs) if (sub && sub.state === Connectivity.idle) sub.connect();
  }

  private scheduleNext(): void {
    this.cancelDelay();
    if (this.settings.connectionDelay > 0 && this.index + 1 < this.list.length) {
      this.host.startConnectionDelay(this.delayToken, this.settings.connectionDelay);
    }
  }

  private cancelDelay(): void {
    this.delayToken++;
  }

  private shutdownRemaining(keep: Subchannel): void {
    this.cancelDelay();
    for (let i = 0; i < this.subs.length; i++) {
      const sub = this.subs[i];
      if (sub && sub !== keep) {
        sub.shutdown();
        this.subs[i] = null;
      }
    }
  }

  private subAt(i: number): Subchannel {
    let sub = this.subs[i];
    if (!sub) {
      const backoff = new ConnectionBackoff(this.settings.backoff, this.rng);
      sub = new Subchannel(this.ids.next(), this.list[i]!, backoff, this.host.transport ?? this.host, this);
      sub.inert = !this.firstPass && this.state === Connectivity.transientFailure;
      this.subs[i] = sub;
    }
    return sub;
  }

  private setState(state: ConnectivityState): void {
    if (state === this.state) return;
    this.state = state;
    this.markInert();
    this.host.pickerChanged(this);
  }
}
