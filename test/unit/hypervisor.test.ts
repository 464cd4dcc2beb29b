import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/sim/core/metrics';
import { atSeconds, type SimTime } from '../../src/sim/core/time';
import { Hypervisor, type HypervisorSettings } from '../../src/sim/infra/hypervisor';
import { CtState } from '../../src/sim/net/conntrack';
import { ipv4 } from '../../src/sim/net/ipv4';
import { PacketPool, Proto, TcpFlag } from '../../src/sim/net/packet';
import { DROP_REASON_IDS } from '../../src/sim/report/drop-reasons';
import { defaultParams } from '../../src/sim/scenario/params';

const NODE = ipv4('10.0.0.11');
const POD = ipv4('10.244.1.5');
const PEER = ipv4('10.0.0.12');
const AMAZON_DNS = ipv4('169.254.169.253');
const { SYN, ACK, FIN } = TcpFlag;

function hypervisor(overrides: Partial<HypervisorSettings> = {}, metrics = new Metrics()) {
  const settings: HypervisorSettings = { ...defaultParams().instance, ...overrides };
  const hv = new Hypervisor('node-a', settings, metrics, DROP_REASON_IDS.length);
  hv.attached.add(NODE);
  hv.attached.add(POD);
  return { hv, metrics, pool: new PacketPool() };
}

function packet(pool: PacketPool, src: number, sport: number, dst: number, dport: number, flags: number, proto: number = Proto.tcp): number {
  const id = pool.alloc();
  pool.srcIp[id] = src;
  pool.srcPort[id] = sport;
  pool.dstIp[id] = dst;
  pool.dstPort[id] = dport;
  pool.proto[id] = proto;
  pool.flags[id] = flags;
  return id;
}

/** A client on this instance opening a connection to PEER:80 from `port`: SYN out, SYN-ACK in, ACK out. */
function handshake(t: ReturnType<typeof hypervisor>, port: number, now: SimTime) {
  const { hv, pool } = t;
  return [
    hv.egress(pool, packet(pool, POD, port, PEER, 80, SYN), 1, now),
    hv.ingress(pool, packet(pool, PEER, 80, POD, port, SYN | ACK), now),
    hv.egress(pool, packet(pool, POD, port, PEER, 80, ACK), 1, now),
  ];
}

const exceeded = (metrics: Metrics, labels?: Record<string, string>) => metrics.counter('hypervisor.conntrack_allowance_exceeded', labels).total;

describe('hypervisor connection tracking (docs/sources/cloud-hypervisor.md#security-group-connection-tracking, #test-vectors)', () => {
  it('vector 1: with the allowance used up, every packet of a new tracked flow is dropped and counted; tracked flows pass both ways', () => {
    const t = hypervisor({ conntrackAllowance: 5 });
    const { hv, pool, metrics } = t;
    const now = atSeconds(1);
    for (let port = 40000; port < 40005; port++) expect(handshake(t, port, now)).toEqual([null, null, null]);
    expect(hv.table.size).toBe(5);
    expect(hv.table.full).toBe(true);

    // A new outgoing connection: the SYN and each retransmission are dropped.
    for (let i = 0; i < 3; i++) {
      expect(hv.egress(pool, packet(pool, POD, 40100, PEER, 80, SYN), 1, atSeconds(1 + i))).toBe('hypervisor_conntrack_exceeded');
    }
    // A new incoming connection too, and a new UDP flow.
    expect(hv.ingress(pool, packet(pool, PEER, 50000, NODE, 22, SYN), atSeconds(4))).toBe('hypervisor_conntrack_exceeded');
    expect(hv.egress(pool, packet(pool, POD, 53000, PEER, 53, 0, Proto.udp), 1, atSeconds(4))).toBe('hypervisor_conntrack_exceeded');
    expect(exceeded(metrics)).toBe(5);
    expect(exceeded(metrics, { instance: 'node-a' })).toBe(5);
    expect(hv.table.size).toBe(5);

    // Every tracked connection still carries data in both directions.
    for (let port = 40000; port < 40005; port++) {
      expect(hv.egress(pool, packet(pool, POD, port, PEER, 80, ACK | TcpFlag.PSH), 1, atSeconds(5))).toBeNull();
      expect(hv.ingress(pool, packet(pool, PEER, 80, POD, port, ACK | TcpFlag.PSH), atSeconds(5))).toBeNull();
    }
    expect(exceeded(metrics)).toBe(5);
    expect(hv.describeDrop('hypervisor_conntrack_exceeded')).toBe('5 of 5 tracked connections in use; 100 % of those sampled are flows to 10.0.0.12');
  });

  it('vector 1: untracked flows (allow-all security groups) are neither tracked nor dropped', () => {
    const t = hypervisor({ conntrackAllowance: 1, untracked: true });
    const { hv, pool, metrics } = t;
    for (let port = 40000; port < 41000; port++) expect(handshake(t, port, atSeconds(1))).toEqual([null, null, null]);
    expect(hv.ingress(pool, packet(pool, PEER, 50000, NODE, 22, SYN), atSeconds(2))).toBeNull();
    expect(hv.table.size).toBe(0);
    expect(exceeded(metrics)).toBe(0);
  });

  it('a flow leaves the allowance when its entry times out, and a new flow may take its place', () => {
    const t = hypervisor({ conntrackAllowance: 1, tcpUnestablishedTimeoutS: 5 });
    const { hv, pool } = t;
    expect(hv.egress(pool, packet(pool, POD, 40000, PEER, 80, SYN), 1, atSeconds(0))).toBeNull();
    expect(hv.egress(pool, packet(pool, POD, 40001, PEER, 80, SYN), 1, atSeconds(4.9))).toBe('hypervisor_conntrack_exceeded');
    expect(hv.egress(pool, packet(pool, POD, 40001, PEER, 80, SYN), 1, atSeconds(5))).toBeNull();
    expect(hv.table.size).toBe(1);
  });

  it('vector 3: an idle established flow expires after its timeout and its next packet is treated as new', () => {
    const t = hypervisor({ conntrackAllowance: 1, tcpEstablishedTimeoutS: 60 });
    const { hv, pool } = t;
    expect(handshake(t, 40000, atSeconds(0))).toEqual([null, null, null]);
    const id = hv.table.lookup(Proto.tcp, POD, 40000, PEER, 80, atSeconds(0));
    expect(hv.table.stateOf(id)).toBe(CtState.established);
    expect(hv.table.expiresAt(id)).toBe(atSeconds(60));

    // Silent for 59 s: still tracked; the packet restarts the 60 s.
    expect(hv.egress(pool, packet(pool, POD, 40000, PEER, 80, ACK), 1, atSeconds(59))).toBeNull();
    expect(hv.table.expiresAt(id)).toBe(atSeconds(119));
    expect(hv.egress(pool, packet(pool, POD, 40001, PEER, 80, SYN), 1, atSeconds(100))).toBe('hypervisor_conntrack_exceeded');

    // Silent for 60 s more: the entry is gone, the allowance has room, and another flow takes it.
    expect(hv.egress(pool, packet(pool, POD, 40001, PEER, 80, SYN), 1, atSeconds(119))).toBeNull();
    // The old connection's next segment is now a new flow, and the allowance is full.
    expect(hv.ingress(pool, packet(pool, PEER, 80, POD, 40000, ACK), atSeconds(120))).toBe('hypervisor_conntrack_exceeded');
  });

  it('vector 3: a packet of an expired flow re-creates its entry as a new, unestablished one', () => {
    const t = hypervisor({ tcpEstablishedTimeoutS: 60, tcpUnestablishedTimeoutS: 30 });
    const { hv, pool } = t;
    handshake(t, 40000, atSeconds(0));
    expect(hv.egress(pool, packet(pool, POD, 40000, PEER, 80, ACK), 1, atSeconds(61))).toBeNull();
    const id = hv.table.lookup(Proto.tcp, POD, 40000, PEER, 80, atSeconds(61));
    expect(id).toBeGreaterThanOrEqual(0);
    expect(hv.table.stateOf(id)).toBe(CtState.synSent);
    expect(hv.table.expiresAt(id)).toBe(atSeconds(91));
  });

  it('TCP state follows the flow: a FIN from each side ends in TIME_WAIT', () => {
    const t = hypervisor();
    const { hv, pool } = t;
    handshake(t, 40000, atSeconds(0));
    hv.egress(pool, packet(pool, POD, 40000, PEER, 80, FIN | ACK), 1, atSeconds(1));
    const id = hv.table.lookup(Proto.tcp, POD, 40000, PEER, 80, atSeconds(1));
    expect(hv.table.stateOf(id)).toBe(CtState.finWait);
    hv.ingress(pool, packet(pool, PEER, 80, POD, 40000, FIN | ACK), atSeconds(1));
    expect(hv.table.stateOf(id)).toBe(CtState.timeWait);
  });

  it('UDP: a reply makes the flow a stream, with the longer stream timeout', () => {
    const t = hypervisor({ udpTimeoutS: 30, udpStreamTimeoutS: 180 });
    const { hv, pool } = t;
    expect(hv.egress(pool, packet(pool, POD, 53000, PEER, 53, 0, Proto.udp), 1, atSeconds(0))).toBeNull();
    const id = hv.table.lookup(Proto.udp, POD, 53000, PEER, 53, atSeconds(0));
    expect(hv.table.stateOf(id)).toBe(CtState.udpUnreplied);
    expect(hv.table.expiresAt(id)).toBe(atSeconds(30));
    expect(hv.ingress(pool, packet(pool, PEER, 53, POD, 53000, 0, Proto.udp), atSeconds(1))).toBeNull();
    expect(hv.table.stateOf(id)).toBe(CtState.udpStream);
    expect(hv.table.expiresAt(id)).toBe(atSeconds(181));
    // Further datagrams the original way keep it a stream.
    hv.egress(pool, packet(pool, POD, 53000, PEER, 53, 0, Proto.udp), 1, atSeconds(2));
    expect(hv.table.stateOf(id)).toBe(CtState.udpStream);
  });

  it('never tracks more flows than the allowance, and drops only when it is full, under a random mix of packets', () => {
    const op = fc.record({
      inbound: fc.boolean(),
      flow: fc.integer({ min: 0, max: 40 }),
      flags: fc.constantFrom(SYN, SYN | ACK, ACK, FIN | ACK, TcpFlag.RST, ACK | TcpFlag.PSH),
      udp: fc.boolean(),
      advanceMs: fc.integer({ min: 0, max: 20_000 }),
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.array(op, { minLength: 1, maxLength: 300 }), (allowance, ops) => {
        const t = hypervisor({ conntrackAllowance: allowance, tcpUnestablishedTimeoutS: 10, tcpEstablishedTimeoutS: 60 });
        const { hv, pool, metrics } = t;
        let now = 0;
        let drops = 0;
        for (const o of ops) {
          now += o.advanceMs * 1000;
          const proto = o.udp ? Proto.udp : Proto.tcp;
          const flags = o.udp ? 0 : o.flags;
          const port = 40000 + o.flow;
          const sizeBefore = hv.table.size;
          const id = o.inbound ? packet(pool, PEER, 80, POD, port, flags, proto) : packet(pool, POD, port, PEER, 80, flags, proto);
          const tracked = hv.table.lookup(proto, pool.srcIp[id]!, pool.srcPort[id]!, pool.dstIp[id]!, pool.dstPort[id]!, now as SimTime) >= 0;
          const verdict = o.inbound ? hv.ingress(pool, id, now as SimTime) : hv.egress(pool, id, 1, now as SimTime);
          pool.release(id);
          expect(hv.table.size).toBeLessThanOrEqual(allowance);
          if (verdict !== null) {
            expect(verdict).toBe('hypervisor_conntrack_exceeded');
            expect(tracked).toBe(false);
            expect(sizeBefore).toBe(allowance);
            drops++;
          }
          if (tracked) expect(verdict).toBeNull();
        }
        expect(exceeded(metrics)).toBe(drops);
        hv.sample(now as SimTime);
        expect(metrics.gauge('hypervisor.conntrack_allowance_available', { instance: 'node-a' }).value).toBe(allowance - hv.table.size);
      }),
      { numRuns: 200 },
    );
  });

  it('sample() sets conntrack_allowance_available = allowance − used and sweeps expired entries', () => {
    const t = hypervisor({ conntrackAllowance: 10, tcpUnestablishedTimeoutS: 5 });
    const { hv, pool, metrics } = t;
    const available = metrics.gauge('hypervisor.conntrack_allowance_available', { instance: 'node-a' });
    const used = metrics.gauge('hypervisor.conntrack.used', { instance: 'node-a' });
    expect(available.value).toBe(10);
    for (let port = 40000; port < 40003; port++) handshake(t, port, atSeconds(0));
    for (let port = 41000; port < 41004; port++) hv.egress(pool, packet(pool, POD, port, PEER, 80, SYN), 1, atSeconds(0));
    hv.sample(atSeconds(1));
    expect(used.value).toBe(7);
    expect(available.value).toBe(3);
    // The four unanswered SYNs time out after 5 s; the sweep in sample() finds them without any lookup.
    hv.sample(atSeconds(6));
    expect(used.value).toBe(3);
    expect(available.value).toBe(7);
  });
});

describe('hypervisor egress checks', () => {
  it('source/destination check drops a packet whose source is not attached to the instance; off, it passes', () => {
    const on = hypervisor();
    const stranger = ipv4('10.244.2.9');
    expect(on.hv.egress(on.pool, packet(on.pool, stranger, 40000, PEER, 80, SYN), 1, atSeconds(0))).toBe('source_dest_check');
    expect(on.hv.egress(on.pool, packet(on.pool, POD, 40000, PEER, 80, SYN), 1, atSeconds(0))).toBeNull();
    expect(on.hv.table.size).toBe(1);
    expect(on.hv.describeDrop('source_dest_check')).toMatch(/source is not an address of this instance/);
    // Arriving packets are not source-checked.
    expect(on.hv.ingress(on.pool, packet(on.pool, stranger, 40000, POD, 80, SYN), atSeconds(0))).toBeNull();

    const off = hypervisor({ sourceDestCheck: false });
    expect(off.hv.egress(off.pool, packet(off.pool, stranger, 40000, PEER, 80, SYN), 1, atSeconds(0))).toBeNull();
  });

  it('a released address fails the source/destination check', () => {
    const { hv, pool } = hypervisor();
    hv.attached.delete(POD);
    expect(hv.egress(pool, packet(pool, POD, 40000, PEER, 80, SYN), 1, atSeconds(0))).toBe('source_dest_check');
  });

  it('vector 2: 1500 datagrams/s from one interface to the Amazon DNS resolver ⇒ ≈476/s dropped as linklocal_exceeded', () => {
    const { hv, pool, metrics } = hypervisor();
    const perSecond: number[] = [];
    let before = 0;
    for (let s = 0; s < 6; s++) {
      let dropped = 0;
      for (let i = 0; i < 1500; i++) {
        const now = Math.round((s + i / 1500) * 1_000_000) as SimTime;
        // Each query from its own source port, as a resolver without connection reuse sends them.
        const id = packet(pool, POD, 32768 + ((s * 1500 + i) % 28000), AMAZON_DNS, 53, 0, Proto.udp);
        const verdict = hv.egress(pool, id, 1, now);
        pool.release(id);
        if (verdict === 'linklocal_exceeded') dropped++;
        else expect(verdict).toBeNull();
      }
      perSecond.push(dropped);
      const total = metrics.counter('hypervisor.linklocal_allowance_exceeded').total;
      expect(total - before).toBe(dropped);
      before = total;
    }
    // The bucket starts full (1024 saved up), so the first two seconds lose less; from then on the excess goes.
    expect(perSecond[0]).toBe(0);
    for (const dropped of perSecond.slice(3)) expect(Math.abs(dropped - 476) / 476).toBeLessThan(0.03);
    expect(metrics.counter('hypervisor.linklocal_allowance_exceeded', { instance: 'node-a' }).total).toBe(before);
  });

  it('the link-local allowance is per interface, and other destinations are not limited by it', () => {
    const { hv, pool } = hypervisor();
    let droppedEth0 = 0;
    let droppedEth1 = 0;
    let droppedElsewhere = 0;
    for (let i = 0; i < 3000; i++) {
      const now = Math.round((i / 3000) * 1_000_000) as SimTime;
      const a = packet(pool, NODE, 40000, AMAZON_DNS, 53, 0, Proto.udp);
      if (hv.egress(pool, a, 0, now) === 'linklocal_exceeded') droppedEth0++;
      const b = packet(pool, POD, 40000, AMAZON_DNS, 53, 0, Proto.udp);
      if (hv.egress(pool, b, 1, now) === 'linklocal_exceeded') droppedEth1++;
      const c = packet(pool, POD, 40001, PEER, 53, 0, Proto.udp);
      if (hv.egress(pool, c, 1, now) !== null) droppedElsewhere++;
      pool.release(a);
      pool.release(b);
      pool.release(c);
    }
    // 3000 in one second against 1024 a second plus a 1024 burst: about 950 over, on each interface on its own.
    expect(Math.abs(droppedEth0 - 952)).toBeLessThan(10);
    expect(droppedEth1).toBe(droppedEth0);
    expect(droppedElsewhere).toBe(0);
  });

  it('over the PPS allowance the excess is dropped both ways and counted', () => {
    const { hv, pool, metrics } = hypervisor({ ppsAllowance: 100 });
    let dropped = 0;
    for (let i = 0; i < 400; i++) {
      const now = Math.round((1 + i / 200) * 1_000_000) as SimTime;
      const out = packet(pool, POD, 40000, PEER, 80, ACK);
      const verdict = i % 2 === 0 ? hv.egress(pool, out, 1, now) : hv.ingress(pool, packet(pool, PEER, 80, POD, 40000, ACK), now);
      if (verdict === 'hypervisor_pps_exceeded') dropped++;
    }
    expect(dropped).toBeGreaterThan(0);
    expect(metrics.counter('hypervisor.pps_allowance_exceeded').total).toBe(dropped);
    expect(metrics.counter('hypervisor.pps_allowance_exceeded', { instance: 'node-a' }).total).toBe(dropped);
  });
});
