import { Payload, Proto, TcpFlag, DEFAULT_TTL } from '../net/packet';
import type { PacketCapture } from './packet-capture';

// Classic libpcap: magic 0xa1b2c3d4 (microsecond timestamps), version 2.4, link type 1 (Ethernet).
const PCAP_MAGIC = 0xa1b2c3d4;
const LINKTYPE_ETHERNET = 1;
const SNAPLEN = 65535;
const ETHERNET = 14;
const IPV4 = 20;
const TCP = 20;
const UDP = 8;
// The simulation carries no payload bytes, so a file holds headers only and states each packet's length on the wire
// (orig_len); readers mark the payload as cut off by the capture. Model choice: sizes of a small HTTP request and
// answer, a DNS query, a gRPC control frame.
const PAYLOAD_BYTES: Record<number, number> = {
  [Payload.none]: 0,
  [Payload.request]: 120,
  [Payload.response]: 240,
  [Payload.datagram]: 48,
  [Payload.goaway]: 17,
  [Payload.ping]: 17,
  [Payload.pingAck]: 17,
};

/** TCP header flag bits (RFC 9293) for the simulation's flags. */
function tcpFlagBits(flags: number): number {
  let bits = 0;
  if (flags & TcpFlag.FIN) bits |= 0x01;
  if (flags & TcpFlag.SYN) bits |= 0x02;
  if (flags & TcpFlag.RST) bits |= 0x04;
  if (flags & TcpFlag.PSH) bits |= 0x08;
  if (flags & TcpFlag.ACK) bits |= 0x10;
  return bits;
}

/** The Internet checksum (RFC 1071) of `bytes`, starting from a partial sum. */
function checksum(bytes: Uint8Array, from: number, to: number, sum = 0): number {
  for (let i = from; i < to; i += 2) sum += (bytes[i]! << 8) | (i + 1 < to ? bytes[i + 1]! : 0);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

/** A locally administered MAC address made from an IPv4 address: 02:00:a:b:c:d. */
function writeMac(view: DataView, at: number, ip: number): void {
  view.setUint16(at, 0x0200);
  view.setUint32(at + 2, ip);
}

/**
 * The captured packets as a classic pcap file: each an Ethernet frame with an IPv4 header and a TCP or UDP header,
 * timestamped with simulated time. Checksums are correct; TCP sequence numbers are zero, as the simulation does not
 * number bytes.
 */
export function encodePcap(capture: PacketCapture): Uint8Array {
  const slots = [...capture.slots()];
  const transportOf = (slot: number) => (capture.proto[slot] === Proto.udp ? UDP : TCP);
  const size = 24 + slots.reduce((n, slot) => n + 16 + ETHERNET + IPV4 + transportOf(slot), 0);
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, PCAP_MAGIC, true);
  view.setUint16(4, 2, true);
  view.setUint16(6, 4, true);
  view.setUint32(16, SNAPLEN, true);
  view.setUint32(20, LINKTYPE_ETHERNET, true);
  let at = 24;
  let ident = 0;
  for (const slot of slots) {
    const udp = capture.proto[slot] === Proto.udp;
    const transport = transportOf(slot);
    const payload = PAYLOAD_BYTES[capture.payload[slot]!] ?? 0;
    const captured = ETHERNET + IPV4 + transport;
    const us = Math.round(capture.time[slot]!);
    view.setUint32(at, Math.floor(us / 1e6), true);
    view.setUint32(at + 4, us % 1e6, true);
    view.setUint32(at + 8, captured, true);
    view.setUint32(at + 12, captured + payload, true);
    at += 16;
    const src = capture.srcIp[slot]!;
    const dst = capture.dstIp[slot]!;
    writeMac(view, at, dst);
    writeMac(view, at + 6, src);
    view.setUint16(at + 12, 0x0800);
    const ip = at + ETHERNET;
    const total = IPV4 + transport + payload;
    view.setUint8(ip, 0x45);
    view.setUint16(ip + 2, total);
    view.setUint16(ip + 4, ident++ & 0xffff);
    view.setUint16(ip + 6, 0x4000);
    view.setUint8(ip + 8, DEFAULT_TTL);
    view.setUint8(ip + 9, udp ? Proto.udp : Proto.tcp);
    view.setUint32(ip + 12, src);
    view.setUint32(ip + 16, dst);
    view.setUint16(ip + 10, checksum(bytes, ip, ip + IPV4));
    const l4 = ip + IPV4;
    view.setUint16(l4, capture.srcPort[slot]!);
    view.setUint16(l4 + 2, capture.dstPort[slot]!);
    if (udp) view.setUint16(l4 + 4, UDP + payload);
    else {
      view.setUint8(l4 + 12, (TCP / 4) << 4);
      view.setUint8(l4 + 13, tcpFlagBits(capture.flags[slot]!));
      view.setUint16(l4 + 14, 65535);
    }
    // The transport checksum covers a pseudo-header and the whole segment; the payload bytes, not in the file, are
    // taken as zeros, which leave the sum unchanged.
    const pseudo = (src >>> 16) + (src & 0xffff) + (dst >>> 16) + (dst & 0xffff) + (udp ? Proto.udp : Proto.tcp) + transport + payload;
    const sum = checksum(bytes, l4, l4 + transport, pseudo);
    view.setUint16(l4 + (udp ? 6 : 16), udp && sum === 0 ? 0xffff : sum);
    at = l4 + transport;
  }
  return bytes;
}
