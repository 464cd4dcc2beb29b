import { describe, expect, it } from 'vitest';
import { ConnectionBackoff, fixedBackoff, GRPC_BACKOFF, INCIDENT_RECONNECT_INTERVAL, type BackoffConfig } from '../../src/sim/apps/grpc/backoff';
import { aggregateState, type LbHost, type LbPolicy } from '../../src/sim/apps/grpc/lb-policy';
import { PICK_FIRST_DEFAULTS, PickFirstPolicy } from '../../src/sim/apps/grpc/pick-first';
import { RoundRobinPolicy } from '../../src/sim/apps/grpc/round-robin';
import { Connectivity, CONNECTIVITY_NAMES, Subchannel, type ConnectivityState, type SubchannelHost } from '../../src/sim/apps/grpc/subchannel';
import { createContext } from '../../src/sim/context';
import { Rng } from '../../src/sim/core/rng';
import { atSeconds, millis, toSeconds, type Duration } from '../../src/sim/core/time';
import { ipv4 } from '../../src/sim/net/ipv4';

const A = ipv4('10.0.0.1');
const B = ipv4('10.0.0.2');
const C = ipv4('10.0.0.3');
const D = ipv4('10.0.0.4');

/** 'accept' completes the handshake after the RTT, 'reset' answers a SYN with RST, 'silent' never answers. */
type Backend = 'accept' | 'reset' | 'silent';

interface Conn {
  sub: Subchannel;
  live: boolean;
}

/** The app side of a channel on a pretend network: dials take one RTT and end as the backend dictates. */
class FakeNetwork implements LbHost {
  policy!: LbPolicy;
  readonly backends = new Map<number, Backend>();
  readonly attempts: { t: number; address: number }[] = [];
  readonly disconnected: number[] = [];
  readonly states: string[] = [];
  resolveNows = 0;
  private readonly conns: Conn[] = [];
  private readonly backingOff: Subchannel[] = [];
  private readonly outcomeH;
  private readonly deadlineH;
  private readonly backoffH;
  private readonly delayH;

  constructor(
    readonly ctx = createContext(11),
    private readonly rtt: Duration = millis(1),
  ) {
    const s = ctx.sched;
    this.outcomeH = s.register('test.dial', (conn) => this.onOutcome(conn));
    this.deadlineH = s.register('test.connect-deadline', (conn) => {
      const c = this.conns[conn]!;
      if (c.live && c.sub.state === Connectivity.connecting) this.fail(conn);
    });
    this.backoffH = s.register('test.backoff', (conn) => this.backingOff[conn]!.backoffDone());
    this.delayH = s.register('test.happy-eyeballs', (token) => this.policy.connectionDelayExpired(token));
  }

  get now(): number {
    return toSeconds(this.ctx.sched.now);
  }

  run(until: number): void {
    this.ctx.sched.runUntil(atSeconds(until));
  }

  dialled(address: number): number[] {
    return this.attempts.filter((a) => a.address === address).map((a) => a.t);
  }

  /** The backend resets every established connection (its pod was killed). */
  reset(address: number): void {
    for (let conn = 0; conn < this.conns.length; conn++) {
      const c = this.conns[conn]!;
      if (c.live && c.sub.address === address && c.sub.state === Connectivity.ready) this.fail(conn);
    }
  }

  connect(sub: Subchannel, timeout: Duration): number {
    const conn = this.conns.push({ sub, live: true }) - 1;
    this.attempts.push({ t: this.now, address: sub.address });
    if (this.backends.get(sub.address) !== 'silent') this.ctx.sched.after(this.rtt, this.outcomeH, conn);
    this.ctx.sched.after(timeout, this.deadlineH, conn);
    return conn;
  }

  startBackoff(sub: Subchannel, wait: Duration): void {
    this.backingOff.push(sub);
    this.ctx.sched.after(wait, this.backoffH, this.backingOff.length - 1);
  }

  disconnect(sub: Subchannel, connection: number): void {
    this.conns[connection]!.live = false;
    this.disconnected.push(sub.address);
  }

  resolveNow(): void {
    this.resolveNows++;
  }

  startConnectionDelay(token: number, delay: Duration): void {
    this.ctx.sched.after(delay, this.delayH, token);
  }

  pickerChanged(policy: LbPolicy): void {
    const name = CONNECTIVITY_NAMES[policy.state];
    if (this.states[this.states.length - 1] !== name) this.states.push(name);
  }

  private onOutcome(conn: number): void {
    const c = this.conns[conn]!;
    if (!c.live) return;
    if (this.backends.get(c.sub.address) === 'accept') c.sub.connected(conn);
    else this.fail(conn);
  }

  private fail(conn: number): void {
    this.conns[conn]!.live = false;
    this.conns[conn]!.sub.transportClosed(conn);
  }
}

function setup(kind: 'pick_first' | 'round_robin', backends: [number, Backend][], backoff: BackoffConfig = GRPC_BACKOFF, rtt: Duration = millis(1)) {
  const net = new FakeNetwork(undefined, rtt);
  for (const [address, backend] of backends) net.backends.set(address, backend);
  const rng = net.ctx.rng.stream('grpc/test');
  net.policy = kind === 'pick_first' ? new PickFirstPolicy(net, { ...PICK_FIRST_DEFAULTS, backoff }, rng) : new RoundRobinPolicy(net, { backoff }, rng);
  net.policy.updateAddresses(backends.map(([address]) => address));
  return { net, policy: net.policy };
}

/** Where `n` picks go, by backend address. */
function spread(policy: LbPolicy, n: number): Map<number, number> {
  const counts = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const pick = policy.pick();
    if (typeof pick === 'string') throw new Error(`pick gave ${pick}`);
    counts.set(pick.address, (counts.get(pick.address) ?? 0) + 1);
  }
  return counts;
}

describe('gRPC subchannel state machine (docs/sources/grpc.md#subchannel-states)', () => {
  function subchannel() {
    const calls: string[] = [];
    const changes: [ConnectivityState, ConnectivityState][] = [];
    let nextConn = 40;
    const host: SubchannelHost = {
      connect: (_sub, timeout) => (calls.push(`connect ${toSeconds(timeout)}`), nextConn++),
      startBackoff: (_sub, wait) => void calls.push(`backoff ${toSeconds(wait)}`),
      disconnect: (_sub, conn) => void calls.push(`disconnect ${conn}`),
      resolveNow: () => void calls.push('resolveNow'),
    };
    const backoff = new ConnectionBackoff(GRPC_BACKOFF, new Rng(2).stream('sub'));
    const sub = new Subchannel(0, A, backoff, host, { subchannelChanged: (s, prev) => void changes.push([prev, s.state]) });
    return { sub, calls, changes };
  }

  it('IDLE → CONNECTING → READY → IDLE on loss (with ResolveNow); it never reconnects by itself', () => {
    const { sub, calls, changes } = subchannel();
    sub.connect();
    expect(sub.state).toBe(Connectivity.connecting);
    sub.connected(40);
    sub.transportClosed(40);
    expect(changes).toEqual([
      [Connectivity.idle, Connectivity.connecting],
      [Connectivity.connecting, Connectivity.ready],
      [Connectivity.ready, Connectivity.idle],
    ]);
    expect(calls).toEqual(['connect 20', 'resolveNow']);
  });

  it('CONNECTING → TRANSIENT_FAILURE (ResolveNow, 1 s backoff) → IDLE when the backoff ends', () => {
    const { sub, calls } = subchannel();
    sub.connect();
    sub.transportClosed(40);
    expect(sub.state).toBe(Connectivity.transientFailure);
    sub.connect();
    expect(sub.state).toBe(Connectivity.transientFailure);
    sub.backoffDone();
    expect(sub.state).toBe(Connectivity.idle);
    expect(calls).toEqual(['connect 20', 'resolveNow', 'backoff 1']);
  });

  it('events of an old transport change nothing; shutdown closes the current one', () => {
    const { sub, calls } = subchannel();
    sub.connect();
    sub.connected(40);
    sub.transportClosed(40);
    sub.connect();
    sub.transportClosed(40);
    sub.connected(40);
    expect(sub.state).toBe(Connectivity.connecting);
    sub.connected(41);
    sub.shutdown();
    expect(sub.state).toBe(Connectivity.shutdown);
    expect(calls.at(-1)).toBe('disconnect 41');
  });
});

describe('channel aggregate state (docs/sources/grpc.md#subchannel-states, endpointsharding)', () => {
  const of = (...states: ConnectivityState[]) => aggregateState(states.map((state) => ({ state })));
  it('READY beats CONNECTING beats IDLE beats TRANSIENT_FAILURE; no children is TRANSIENT_FAILURE', () => {
    const { idle, connecting, ready, transientFailure: tf } = Connectivity;
    expect(of(tf, idle, connecting, ready)).toBe(ready);
    expect(of(tf, idle, connecting)).toBe(connecting);
    expect(of(tf, idle, tf)).toBe(idle);
    expect(of(tf, tf)).toBe(tf);
    expect(of()).toBe(tf);
  });
});

describe('round_robin vs pick_first when one of three backends resets (docs/sources/grpc.md#load-balancing-policies, #test-vectors, vector 4)', () => {
  const three: [number, Backend][] = [
    [A, 'accept'],
    [B, 'accept'],
    [C, 'accept'],
  ];

  it('round_robin: picks spread over the 2 READY backends and the lost one is redialled at once', () => {
    const { net, policy } = setup('round_robin', three);
    expect(net.attempts).toEqual([A, B, C].map((address) => ({ t: 0, address })));
    net.run(1);
    expect(policy.state).toBe(Connectivity.ready);
    expect(spread(policy, 300)).toEqual(
      new Map([
        [A, 100],
        [B, 100],
        [C, 100],
      ]),
    );

    net.reset(B);
    expect(net.resolveNows).toBe(1);
    expect(net.dialled(B)).toEqual([0, 1]);
    expect(policy.state).toBe(Connectivity.ready);
    const during = spread(policy, 200);
    expect(during.get(B)).toBeUndefined();
    expect(during.get(A)).toBe(100);
    expect(during.get(C)).toBe(100);

    net.run(1.01);
    expect(spread(policy, 300)).toEqual(
      new Map([
        [A, 100],
        [B, 100],
        [C, 100],
      ]),
    );
  });

  it('pick_first: one connection; after the reset the channel sits IDLE until an RPC picks, then redials the first address', () => {
    const { net, policy } = setup('pick_first', three);
    net.run(1);
    expect(net.attempts).toEqual([{ t: 0, address: A }]);
    expect(spread(policy, 10)).toEqual(new Map([[A, 10]]));

    net.reset(A);
    expect(policy.state).toBe(Connectivity.idle);
    expect(net.resolveNows).toBe(1);
    net.run(30);
    expect(net.attempts).toHaveLength(1);

    expect(policy.pick()).toBe('queue');
    expect(net.attempts.at(-1)).toEqual({ t: 30, address: A });
    expect(policy.state).toBe(Connectivity.connecting);
    net.run(30.01);
    expect(spread(policy, 5)).toEqual(new Map([[A, 5]]));
    expect(net.states).toEqual(['CONNECTING', 'READY', 'IDLE', 'CONNECTING', 'READY']);
  });

  it('pick_first tries the next address 250 ms into a silent dial, keeps the first to connect, and restarts from the first address', () => {
    const { net, policy } = setup('pick_first', [
      [A, 'silent'],
      [B, 'accept'],
      [C, 'accept'],
    ]);
    net.run(1);
    expect(net.attempts).toEqual([
      { t: 0, address: A },
      { t: 0.25, address: B },
    ]);
    expect(net.disconnected).toEqual([A]);
    expect(spread(policy, 3)).toEqual(new Map([[B, 3]]));

    net.reset(B);
    policy.pick();
    net.run(2);
    expect(net.attempts.slice(2)).toEqual([
      { t: 1, address: A },
      { t: 1.25, address: B },
    ]);
    expect(policy.state).toBe(Connectivity.ready);
  });
});

describe('sticky TRANSIENT_FAILURE and reconnect pacing (docs/sources/grpc.md#connection-backoff, #load-balancing-policies; docs/sources/incidents.md#it-wasnt-dns)', () => {
  it('pick_first fails RPCs fast once every address failed, stays in TRANSIENT_FAILURE and redials each after its backoff', () => {
    const { net, policy } = setup('pick_first', [
      [A, 'reset'],
      [B, 'reset'],
    ]);
    net.run(0.5);
    expect(net.dialled(A)).toEqual([0]);
    expect(net.dialled(B)).toEqual([0.001]);
    expect(policy.state).toBe(Connectivity.transientFailure);
    expect(policy.pick()).toBe('fail');
    net.run(3);
    // First wait exactly 1 s after the failure at 1 ms; the second 1.6 s ± 20 %.
    const redials = net.dialled(A);
    expect(redials[1]).toBeCloseTo(1.001, 6);
    expect(redials[2]! - redials[1]! - 0.001).toBeGreaterThanOrEqual(1.28);
    expect(net.states).toEqual(['CONNECTING', 'TRANSIENT_FAILURE']);

    net.backends.set(A, 'accept');
    net.run(10);
    expect(policy.state).toBe(Connectivity.ready);
  });

  it("the incident's fixed 300 ms setting redials a refusing backend every 300 ms; the default backoff grows from 1 s", () => {
    const fixed = setup('round_robin', [[A, 'reset']], fixedBackoff(INCIDENT_RECONNECT_INTERVAL), 0 as Duration);
    fixed.net.run(3);
    const times = fixed.net.dialled(A);
    expect(times).toHaveLength(11);
    times.slice(1).forEach((t, i) => expect(t - times[i]!).toBeCloseTo(0.3, 9));
    expect(fixed.policy.state).toBe(Connectivity.transientFailure);

    const standard = setup('round_robin', [[A, 'reset']], GRPC_BACKOFF, 0 as Duration);
    standard.net.run(60);
    const waits = standard.net
      .dialled(A)
      .map((t, i, all) => t - (all[i - 1] ?? t))
      .slice(1);
    expect(waits[0]).toBe(1);
    waits.slice(1).forEach((wait, i) => expect(wait).toBeGreaterThan(waits[i]! * 1.6 * 0.6));
    expect(waits.length).toBeLessThan(10);
    fixed.net.run(60);
    expect(fixed.net.dialled(A)).toHaveLength(201);
  });

  it('a silent backend holds each attempt for the 20 s minimum connect timeout before the backoff starts', () => {
    const { net } = setup('round_robin', [[A, 'silent']], fixedBackoff(INCIDENT_RECONNECT_INTERVAL));
    net.run(60);
    expect(net.dialled(A)).toEqual([0, 20.3, 40.6]);
  });
});

describe('address updates from the resolver (docs/sources/grpc.md#load-balancing-policies)', () => {
  it('round_robin shuts down subchannels of vanished addresses and connects new ones', () => {
    const { net, policy } = setup('round_robin', [
      [A, 'accept'],
      [B, 'accept'],
      [C, 'accept'],
      [D, 'accept'],
    ]);
    net.policy.updateAddresses([A, B, C]);
    net.run(1);
    net.policy.updateAddresses([B, C, D]);
    expect(net.disconnected).toEqual([D, A]);
    expect(net.dialled(D)).toEqual([0, 1]);
    expect(net.dialled(B)).toEqual([0]);
    net.run(2);
    expect(spread(policy, 30)).toEqual(
      new Map([
        [B, 10],
        [C, 10],
        [D, 10],
      ]),
    );
  });

  it('pick_first keeps its READY connection if the address stays, and reconnects if it vanished', () => {
    const { net, policy } = setup('pick_first', [
      [A, 'accept'],
      [B, 'accept'],
    ]);
    net.run(1);
    policy.updateAddresses([C, A]);
    expect(policy.state).toBe(Connectivity.ready);
    expect(net.attempts).toHaveLength(1);
    net.backends.set(C, 'accept');
    policy.updateAddresses([C, B]);
    expect(net.disconnected).toEqual([A]);
    expect(net.attempts.at(-1)).toEqual({ t: 1, address: C });
    net.run(2);
    expect(spread(policy, 2)).toEqual(new Map([[C, 2]]));
  });

  it('an idle pick_first channel learns new addresses without connecting, and dials the first on the next RPC', () => {
    const { net, policy } = setup('pick_first', [[A, 'accept']]);
    net.run(1);
    net.reset(A);
    net.backends.set(B, 'accept');
    policy.updateAddresses([B]);
    expect(net.attempts).toHaveLength(1);
    expect(policy.state).toBe(Connectivity.idle);
    policy.pick();
    expect(net.attempts.at(-1)).toEqual({ t: 1, address: B });
  });

  it('an empty address list fails RPCs', () => {
    const { net, policy } = setup('round_robin', [[A, 'accept']]);
    net.run(1);
    policy.updateAddresses([]);
    expect(policy.state).toBe(Connectivity.transientFailure);
    expect(policy.pick()).toBe('fail');
    const pf = setup('pick_first', [[A, 'accept']]).policy;
    pf.updateAddresses([]);
    expect(pf.pick()).toBe('fail');
  });

  it('round_robin starts each rebuilt picker at a random READY child', () => {
    const firsts = new Set<number>();
    for (let seed = 0; seed < 12; seed++) {
      const net = new FakeNetwork(createContext(seed));
      for (const address of [A, B, C]) net.backends.set(address, 'accept');
      net.policy = new RoundRobinPolicy(net, { backoff: GRPC_BACKOFF }, net.ctx.rng.stream('grpc/test'));
      net.policy.updateAddresses([A, B, C]);
      net.run(1);
      const pick = net.policy.pick();
      if (typeof pick !== 'string') firsts.add(pick.address);
    }
    expect(firsts.size).toBe(3);
  });
});
