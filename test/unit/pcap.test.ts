/**
 * The pcap export: headers built from the simulated packets, checked byte by byte here and read back by an
 * independent reader, Wireshark's tshark (test/fixtures/tshark.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Payload, Proto, TcpFlag } from '../../src/sim/net/packet';
import { ipv4 } from '../../src/sim/net/ipv4';
import { PacketCapture } from '../../src/sim/report/packet-capture';
import { encodePcap } from '../../src/sim/report/pcap';
import { shippedSim } from '../fixtures/scenario-run';
import { readPcap } from '../fixtures/tshark';

/** The Internet checksum over a byte range, including its checksum field: 0 when the stored checksum is right. */
function verify(bytes: Uint8Array, from: number, to: number, start = 0): number {
  let sum = start;
  for (let i = from; i < to; i += 2) sum += (bytes[i]! << 8) | (bytes[i + 1] ?? 0);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

describe('encodePcap', () => {
  const capture = new PacketCapture(1, 4);
  capture.record(1_500_250, ipv4('10.244.1.2'), 40000, ipv4('10.96.0.10'), 80, Proto.tcp, TcpFlag.SYN, Payload.none);
  capture.record(2_000_000, ipv4('10.244.1.5'), 8080, ipv4('10.244.1.2'), 40000, Proto.tcp, TcpFlag.ACK | TcpFlag.PSH, Payload.response);
  capture.record(3_000_001, ipv4('10.244.1.2'), 53000, ipv4('10.96.0.53'), 53, Proto.udp, 0, Payload.datagram);
  const bytes = encodePcap(capture);
  const view = new DataView(bytes.buffer);

  it('writes the classic libpcap header: magic, version 2.4, Ethernet link type', () => {
    expect(view.getUint32(0, true)).toBe(0xa1b2c3d4);
    expect([view.getUint16(4, true), view.getUint16(6, true)]).toEqual([2, 4]);
    expect(view.getUint32(20, true)).toBe(1);
    expect(bytes.length).toBe(24 + 3 * 16 + 2 * (14 + 20 + 20) + (14 + 20 + 8));
  });

  it('stamps each record with simulated time and states the length on the wire beside the headers kept', () => {
    expect([view.getUint32(24, true), view.getUint32(28, true)]).toEqual([1, 500_250]);
    expect([view.getUint32(32, true), view.getUint32(36, true)]).toEqual([54, 54]);
    const second = 24 + 16 + 54;
    // A response carries 240 bytes the file leaves out.
    expect([view.getUint32(second + 8, true), view.getUint32(second + 12, true)]).toEqual([54, 54 + 240]);
  });

  it('builds IPv4 and TCP headers with the right addresses, flags and checksums', () => {
    const ip = 24 + 16 + 14;
    expect(view.getUint16(ip - 2)).toBe(0x0800);
    expect(view.getUint8(ip + 9)).toBe(6);
    expect(view.getUint32(ip + 12)).toBe(ipv4('10.244.1.2'));
    expect(view.getUint32(ip + 16)).toBe(ipv4('10.96.0.10'));
    expect(verify(bytes, ip, ip + 20)).toBe(0);
    const tcp = ip + 20;
    expect([view.getUint16(tcp), view.getUint16(tcp + 2)]).toEqual([40000, 80]);
    expect(view.getUint8(tcp + 13)).toBe(0x02);
    const src = ipv4('10.244.1.2');
    const dst = ipv4('10.96.0.10');
    const pseudo = (src >>> 16) + (src & 0xffff) + (dst >>> 16) + (dst & 0xffff) + 6 + 20;
    expect(verify(bytes, tcp, tcp + 20, pseudo)).toBe(0);
    // PSH and ACK of the second packet.
    expect(view.getUint8(24 + 16 + 54 + 16 + 14 + 20 + 13)).toBe(0x18);
  });

  it('keeps the latest packets when the ring is full, oldest first', () => {
    const ring = new PacketCapture(1, 2);
    for (let i = 1; i <= 3; i++) ring.record(i * 1e6, 1, i, 2, 80, Proto.tcp, TcpFlag.SYN, Payload.none);
    const v = new DataView(encodePcap(ring).buffer);
    expect([v.getUint32(24, true), v.getUint32(24 + 16 + 54, true)]).toEqual([2, 3]);
  });
});

describe('a run exported as pcap and read by tshark', () => {
  const dir = mkdtempSync(join(tmpdir(), 'netmortem-pcap-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('holds every packet the demo sent, with the addresses, ports and flags it sent them with', () => {
    const captured = shippedSim('demo.yaml', [], [], { capture: { every: 1, capacity: 100_000 } });
    const plain = shippedSim('demo.yaml');
    captured.runUntil(captured.durationUs);
    plain.runUntil(plain.durationUs);
    const report = captured.report(0);
    // Capturing counts packets rather than drawing at random, so the run is the same run.
    expect(report.digest).toBe(plain.report(0).digest);
    const file = join(dir, 'demo.pcap');
    writeFileSync(file, captured.pcap()!);
    const rows = readPcap(file, ['ip.src', 'ip.dst', 'tcp.srcport', 'tcp.dstport', 'tcp.flags.syn', 'tcp.flags.ack', 'ip.checksum.status']);
    expect(rows.length).toBe(report.packets.sent);
    // Every IPv4 header checks out, and the connection attempts are as many as the simulation counted.
    expect(rows.every((r) => r[6] === '1')).toBe(true);
    const isSet = (v: string | undefined) => v === '1' || v === 'True';
    expect(rows.filter((r) => isSet(r[4]) && !isSet(r[5])).length).toBe(report.totals['tcp.syn.sent']);
    expect(rows[0]!.slice(0, 4)).toEqual(['10.244.1.2', '10.96.0.10', '32768', '80']);
  });
});
