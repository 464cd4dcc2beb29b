import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/sim/context';
import { seconds, toSeconds, type SimTime } from '../../src/sim/core/time';
import { TcpFlag } from '../../src/sim/net/packet';
import { Tcp, TcpStack, TcpState, type CloseCause, type SocketOwner } from '../../src/sim/net/tcp';
import { paramsSchema } from '../../src/sim/scenario/params';

function harness(tcpParams: { initialRtoMs?: number; synRetries?: number } = {}) {
  const ctx = createContext(1);
  const { sched, metrics } = ctx;
  const tcp = new Tcp(ctx, paramsSchema.parse({ tcp: tcpParams }).tcp);
  const wire: { t: number; from: number; flags: number; srcPort: number; dstIp: number; dstPort: number }[] = [];
  tcp.wire = (stack, srcPort, dstIp, dstPort, flags, _payload, _message, _anon, _generation, srcIp = stack.ip) =>
    wire.push({ t: toSeconds(sched.now), from: srcIp, flags, srcPort, dstIp, dstPort });
  const closed: CloseCause[] = [];
  const owner: SocketOwner = { onConnected: () => {}, onData: () => {}, onClosed: (_s, cause) => closed.push(cause) };
  return { sched, tcp, wire, closed, owner, metrics };
}

describe('TCP endpoint', () => {
  it('retransmits an unanswered SYN with the Linux backoff: 1 s initial RTO, doubling, 6 retries, gives up at 127 s', () => {
    const { sched, tcp, wire, closed, owner } = harness();
    const client = new TcpStack(tcp, 1, 0);
    client.connect(2, 80, owner);
    sched.runUntil(seconds(200) as number as SimTime);
    expect(wire.filter((p) => p.flags === TcpFlag.SYN).map((p) => p.t)).toEqual([0, 1, 3, 7, 15, 31, 63]);
    expect(closed).toEqual(['syn_timeout']);
    expect(toSeconds(sched.now)).toBe(200);
    expect(tcp.connectFailed.total).toBe(1);
    expect(tcp.synRetransmits.total).toBe(6);
  });

  it('follows the retry limit and initial RTO parameters', () => {
    const { sched, tcp, wire, owner } = harness({ initialRtoMs: 200, synRetries: 2 });
    new TcpStack(tcp, 1, 0).connect(2, 80, owner);
    sched.runUntil(seconds(10) as number as SimTime);
    expect(wire.map((p) => p.t)).toEqual([0, 0.2, 0.6]);
  });

  it('answers a SYN with SYN-ACK when listening and with RST when not', () => {
    const { tcp, wire, owner } = harness();
    const server = new TcpStack(tcp, 2, 1);
    server.receive(1, 40000, 80, TcpFlag.SYN, 0, 0);
    expect(wire.at(-1)!.flags).toBe(TcpFlag.RST | TcpFlag.ACK);
    expect(tcp.rstSent.total).toBe(1);
    const listener = { accepting: true, accept: () => owner };
    server.listen(80, listener);
    server.receive(1, 40001, 80, TcpFlag.SYN, 0, 0);
    expect(wire.at(-1)).toMatchObject({ flags: TcpFlag.SYN | TcpFlag.ACK, dstIp: 1, dstPort: 40001 });
    server.receive(1, 40001, 80, TcpFlag.ACK, 0, 0);
    expect(server.sockets().map((s) => s.state)).toEqual([TcpState.established]);
    listener.accepting = false;
    server.receive(1, 40002, 80, TcpFlag.SYN, 0, 0);
    expect(wire.at(-1)!.flags).toBe(TcpFlag.RST | TcpFlag.ACK);
  });

  it('refuses a SYN to another of its addresses from that address, so the caller takes the reset (a tunl0 address on a node)', () => {
    const { tcp, wire } = harness();
    const node = new TcpStack(tcp, 12, -1);
    node.receive(1, 40000, 8080, TcpFlag.SYN, 0, 0, 20);
    expect(wire.at(-1)).toMatchObject({ from: 20, srcPort: 8080, dstIp: 1, dstPort: 40000, flags: TcpFlag.RST | TcpFlag.ACK });
    node.receive(1, 40001, 8080, TcpFlag.SYN, 0, 0);
    expect(wire.at(-1)).toMatchObject({ from: 12, dstPort: 40001 });
  });

  it('completes a handshake, then a reset tears the connection down and tells the owner', () => {
    const { tcp, wire, closed, owner } = harness();
    const client = new TcpStack(tcp, 1, 0);
    const socket = client.connect(2, 80, owner);
    client.receive(2, 80, socket.localPort, TcpFlag.SYN | TcpFlag.ACK, 0, 0);
    expect(socket.state).toBe(TcpState.established);
    expect(wire.at(-1)!.flags).toBe(TcpFlag.ACK);
    expect(tcp.established.value).toBe(1);
    client.receive(2, 80, socket.localPort, TcpFlag.RST, 0, 0);
    expect(closed).toEqual(['reset']);
    expect(socket.open).toBe(false);
    expect(tcp.established.value).toBe(0);
    expect(tcp.rstReceived.total).toBe(1);
  });

  it('answers segments for unknown connections with RST but never answers a RST', () => {
    const { tcp, wire } = harness();
    const stack = new TcpStack(tcp, 2, 1);
    stack.receive(1, 40000, 80, TcpFlag.ACK | TcpFlag.PSH, 1, 1);
    expect(wire).toHaveLength(1);
    stack.receive(1, 40000, 80, TcpFlag.RST, 0, 0);
    expect(wire).toHaveLength(1);
  });

  it('hands out distinct ephemeral ports from 32768', () => {
    const { tcp, owner } = harness();
    const client = new TcpStack(tcp, 1, 0);
    const ports = [client.connect(2, 80, owner), client.connect(2, 80, owner)].map((s) => s.localPort);
    expect(ports).toEqual([32768, 32769]);
  });
});
