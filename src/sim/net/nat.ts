import type { SimTime } from '../core/time';
import { nextTcpState, nextUdpState, type ConntrackTable } from './conntrack';
import { Proto, type PacketPool } from './packet';

/**
 * Rewrites a packet of a tracked flow as its entry says and moves the entry's state on: a packet the original way
 * goes to where replies come from (DNAT) and leaves as where replies go to (SNAT); a reply is turned back into what
 * the flow's opener expects. `ref` is a lookupRef result: entry × 2 + direction.
 */
export function applyTrackedNat(table: ConntrackTable, ref: number, p: PacketPool, id: number, now: SimTime): void {
  const entry = ref >> 1;
  const reply = (ref & 1) === 1;
  if (reply) {
    p.srcIp[id] = table.originalDestination(entry);
    p.srcPort[id] = table.originalDestinationPort(entry);
    p.dstIp[id] = table.originalSource(entry);
    p.dstPort[id] = table.originalSourcePort(entry);
  } else {
    p.srcIp[id] = table.replyDestination(entry);
    p.srcPort[id] = table.replyDestinationPort(entry);
    p.dstIp[id] = table.replySource(entry);
    p.dstPort[id] = table.replySourcePort(entry);
  }
  const state = table.stateOf(entry);
  table.update(entry, p.proto[id] === Proto.tcp ? nextTcpState(state, p.flags[id]!, reply) : nextUdpState(state, reply), now);
}

/**
 * The source port a source NAT gives a new flow so its reply tuple (replySrc:replySport → replyDst:port) is not one a
 * tracked flow already owns: the flow's own port when free, else the next free one in its class (below 1024 or not),
 * as nf_nat's get_unique_tuple() keeps tuples unique (docs/sources/linux-conntrack.md#source-nat-ports). When every
 * port clashes it keeps its own, as the kernel only finds out when it confirms the entry.
 */
export function uniqueSourcePort(table: ConntrackTable, proto: number, replySrc: number, replySport: number, replyDst: number, port: number, now: SimTime): number {
  const low = port < 1024 ? 1 : 1024;
  const size = (port < 1024 ? 1023 : 65535) - low + 1;
  for (let i = 0; i < size; i++) {
    const candidate = low + ((port - low + i) % size);
    if (table.lookupRef(proto, replySrc, replySport, replyDst, candidate, now) < 0) return candidate;
  }
  return port;
}
