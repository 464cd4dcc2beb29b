import type { Counter } from '../core/metrics';
import type { RngStream } from '../core/rng';
import type { SimTime } from '../core/time';
import type { SimContext } from '../context';
import { KEEP } from '../net/anonymous-flows';
import { CtState, nextTcpState } from '../net/conntrack';
import { formatCidr, formatIpv4 } from '../net/ipv4';
import { applyTrackedNat, uniqueSourcePort } from '../net/nat';
import { Payload, Proto, Stage, TcpFlag } from '../net/packet';
import { checkSource, effectiveRpFilter } from '../net/rp-filter';
import type { Host } from './host';
import type { Network } from './network';
import { NO_ENDPOINTS, NO_LOCAL_ENDPOINT, type ServiceProxy } from './service-proxy';

/**
 * What a node's kernel does with a packet: netfilter (conntrack, kube-proxy's DNAT and masquerade), policy routing,
 * reverse-path filtering, IP-in-IP decapsulation, and where the packet goes next. The Network moves packets between
 * hops and owns their fate (forward, deliver, drop); this is the node's part of it.
 */
export class NodeDatapath {
  private readonly proxyRng = new Map<number, RngStream>();
  /** Packets each node handled, one labelled series per node. */
  private readonly nodePackets: Counter[];

  constructor(
    private readonly ctx: SimContext,
    private readonly net: Network,
    private readonly proxy: ServiceProxy,
    hosts: readonly Host[],
  ) {
    this.nodePackets = hosts.map((h) => ctx.metrics.counter('node.packets', { node: h.name }));
  }

  /**
   * A host's netfilter and routing, in the kernel's order: conntrack and kube-proxy's DNAT (PREROUTING or OUTPUT), the
   * routing decision through ip rules, source validation for packets that came in on an interface, then the new flow's
   * conntrack entry is confirmed (and masqueraded) and the packet is delivered locally, to a pod, or sent on.
   * `ifIndex` is -1 for packets a host process sends.
   */
  process(id: number, host: Host, ifIndex: number): void {
    const p = this.net.packets;
    const now = this.ctx.sched.now;
    this.nodePackets[host.index]!.inc();
    if (this.net.traced(id)) this.net.traceHop(id, host.entity, ifIndex < 0 ? 'output' : `in on ${host.ifaces[ifIndex]!.name}`);
    const ct = host.conntrack;
    const proto = p.proto[id]!;
    const flags = p.flags[id]!;
    const srcIp = p.srcIp[id]!;
    const srcPort = p.srcPort[id]!;
    const origDst = p.dstIp[id]!;
    const origDport = p.dstPort[id]!;
    // Raw-table NOTRACK rules (node-local DNS installs them for its addresses) keep a flow out of conntrack and NAT.
    const tracked = host.notrack.size === 0 || (!host.notrack.has(origDst) && !host.notrack.has(srcIp));
    const flows = this.net.flows;
    // An anonymous flow's packets find its own entries through its trail (net/anonymous-flows.ts).
    let ref = !tracked ? -1 : p.anon[id]! >= 0 ? flows.lookup(p, id, ct, now) : ct.lookupRef(proto, srcIp, srcPort, origDst, origDport, now);
    // A new SYN on a closed entry's tuple starts a fresh connection, as conntrack reopens CLOSE/TIME_WAIT entries.
    if (ref >= 0 && (ref & 1) === 0 && proto === Proto.tcp && (flags & (TcpFlag.SYN | TcpFlag.ACK)) === TcpFlag.SYN) {
      const state = ct.stateOf(ref >> 1);
      if (state === CtState.close || state === CtState.timeWait) {
        ct.remove(ref >> 1);
        ref = -1;
      }
    }
    if (this.net.traced(id)) this.net.traceHop(id, host.entity, `conntrack: ${!tracked ? 'not tracked (NOTRACK)' : ref >= 0 ? 'part of a known flow' : 'a new flow'}`);
    let masquerade = false;
    let servicePod = -1;
    if (ref >= 0) applyTrackedNat(ct, ref, p, id, now);
    else if (tracked) {
      const service = this.proxy.lookup(host.index, origDst, origDport, proto);
      if (service >= 0) {
        const fromLocalPod = ifIndex >= 0 && host.ifaces[ifIndex]!.pod >= 0;
        const slot = this.proxy.choose(host.index, service, fromLocalPod, this.proxyStream(host).next());
        if (slot === NO_ENDPOINTS) {
          this.reject(id, host);
          return;
        }
        if (slot === NO_LOCAL_ENDPOINT) {
          this.net.drop(id, 'no_local_endpoint', host);
          return;
        }
        p.dstIp[id] = this.proxy.endpointIp(host.index, slot);
        p.dstPort[id] = this.proxy.endpointPort(host.index, slot);
        servicePod = this.proxy.endpointPod(host.index, slot);
        this.noteStaleEndpoint(host, servicePod);
        // Hairpin: a pod sent to its own Service and got itself; KUBE-SEP masquerades it so replies come back through the node.
        masquerade = this.proxy.masquerade(host.index, service, slot, fromLocalPod) || p.dstIp[id] === srcIp;
        if (this.net.traced(id)) this.net.traceHop(id, host.entity, `DNAT to ${formatIpv4(p.dstIp[id]!)}:${p.dstPort[id]}`);
      }
    }

    const dst = p.dstIp[id]!;
    const route = host.routing.lookup(dst, srcIp);
    if (!route || (route.type !== 'unicast' && route.type !== 'local')) {
      this.net.drop(id, route?.type === 'blackhole' && host.ownsPodAddress(dst) ? 'no_local_pod' : 'no_route', host);
      return;
    }
    if (ifIndex >= 0) {
      const iface = host.ifaces[ifIndex]!;
      const mode = effectiveRpFilter(host.rpFilterAll, iface.rpFilter);
      const reverse = mode === 0 ? undefined : host.routing.lookup(srcIp, dst);
      // Only rp_filter off asks whether the source is one of the host's own (checkSource).
      const srcIsLocal = mode === 0 && host.routing.local.lookup(srcIp)?.type === 'local';
      const verdict = checkSource(mode, iface.name, iface.hasAddress, reverse, srcIsLocal, false);
      if (this.net.traced(id)) {
        const how = mode === 0 ? 'off' : `${mode} on ${iface.name}${iface.hasAddress ? '' : ' (no IPv4 address)'}`;
        this.net.traceHop(id, host.entity, `rp_filter ${how}: ${verdict === 'accept' ? 'source accepted' : 'martian source'}`);
      }
      if (verdict !== 'accept') {
        this.net.drop(id, 'rp_filter_martian', host);
        return;
      }
    }
    const out = route.type === 'local' ? -1 : host.ifaceIndex(route.dev);
    if (this.net.traced(id)) {
      const via = route.via === undefined ? '' : ` via ${formatIpv4(route.via)}`;
      this.net.traceHop(id, host.entity, route.type === 'local' ? 'route: local delivery' : `route ${formatCidr(route.dst)}${via} dev ${route.dev}`);
    }
    if (tracked && ref < 0 && !(proto === Proto.tcp && flags & TcpFlag.RST)) {
      const replyDst = masquerade ? host.masqueradeAddress(out) : srcIp;
      const state = proto === Proto.tcp ? nextTcpState(CtState.synSent, flags, false) : CtState.udpUnreplied;
      const dport = p.dstPort[id]!;
      // Two clients may use the same port; masquerading both to the node's address must not give them one reply tuple.
      const replyPort = masquerade ? uniqueSourcePort(ct, proto, dst, dport, replyDst, srcPort, now) : srcPort;
      let made = p.anon[id]! >= 0 ? flows.insert(p, id, ct, origDst, origDport, dst, dport, replyDst, replyPort, state, now) : KEEP;
      if (made === KEEP) {
        if (p.anon[id]! >= 0) this.net.promote(id);
        made = ct.insertNat(proto, srcIp, srcPort, origDst, origDport, dst, dport, replyDst, replyPort, state, now);
      }
      if (made < 0) {
        this.net.drop(id, 'host_conntrack_full', host);
        return;
      }
      if (masquerade) {
        p.srcIp[id] = replyDst;
        p.srcPort[id] = replyPort;
        if (this.net.traced(id)) {
          const port = replyPort === srcPort ? '' : `, port ${replyPort} (${srcPort} was taken)`;
          this.net.traceHop(id, host.entity, `masquerade: source now ${formatIpv4(replyDst)}${port}`);
        }
      }
      if (servicePod >= 0) {
        const socket = host.pods.get(srcIp)?.tcp.clientSocket(srcPort);
        if (socket) socket.backendPod = servicePod;
      }
    }
    if (p.payload[id] === Payload.request && (p.srcIp[id] !== srcIp || p.dstIp[id] !== origDst || p.dstPort[id] !== origDport)) {
      this.noteRequestNat(id, host, srcIp, origDst, origDport);
    }
    if (out < 0) {
      this.net.toHostProcess(id, host);
      return;
    }
    const iface = host.ifaces[out]!;
    if (iface.pod >= 0) {
      this.net.forward(id, Stage.pod, iface.pod);
      return;
    }
    if (ifIndex >= 0 && --p.ttl[id]! === 0) {
      this.net.drop(id, 'ttl_expired', host);
      return;
    }
    if (iface.kind === 'tunnel') {
      // IP-in-IP: the packet travels node to node inside an outer header; the fabric only sees the outer one.
      p.outerSrc[id] = host.ip;
      p.outerDst[id] = route.via ?? dst;
      p.iface[id] = host.ifaceIndex('eth0');
    } else p.iface[id] = out;
    if (!host.uplinkUp) {
      this.net.drop(id, 'node_down', host);
      return;
    }
    if (route.via !== undefined && iface.kind !== 'tunnel' && !host.hypervisor) {
      // A gateway route: the frame goes to the gateway (a load balancer that is the nodes' way back to clients).
      this.net.forwardTo(id, route.via, host, host.index);
      return;
    }
    if (host.hypervisor) this.net.forward(id, Stage.hypervisorOut, host.index);
    else this.net.forward(id, Stage.fabric, host.index);
  }

  /** An IP-in-IP packet reached its node: the tunnel device strips the outer header and it comes in on tunl0. */
  decapsulate(id: number, host: Host): void {
    const p = this.net.packets;
    const tunnel = host.ifaceIndex('tunl0');
    if (tunnel < 0 || p.outerDst[id] !== host.ip) {
      this.net.drop(id, 'no_route', host);
      return;
    }
    p.outerSrc[id] = 0;
    p.outerDst[id] = 0;
    p.iface[id] = tunnel;
    this.process(id, host, tunnel);
  }

  /** A new flow sent to a pod that has left the Service's ready endpoints: this node's rules are behind the API. */
  private noteStaleEndpoint(host: Host, podIndex: number): void {
    const pod = this.net.pods[podIndex];
    if (!pod || (pod.phase === 'running' && pod.ready)) return;
    this.ctx.causes.record('stale_endpoint', host.entity, this.ctx.sched.now, { pod: pod.entity, phase: pod.phase });
  }

  /** A sampled HTTP request's addresses as kube-proxy's rules (through their conntrack entry) left them at this node. */
  private noteRequestNat(id: number, host: Host, srcIp: number, origDst: number, origDport: number): void {
    const p = this.net.packets;
    const requests = this.ctx.requests;
    const message = p.message[id]!;
    if (!requests.sampled(message)) return;
    const changes: string[] = [];
    if (p.dstIp[id] !== origDst || p.dstPort[id] !== origDport) changes.push(`destination NAT to ${formatIpv4(p.dstIp[id]!)}:${p.dstPort[id]}`);
    if (p.srcIp[id] !== srcIp) changes.push(`source NAT to ${formatIpv4(p.srcIp[id]!)}`);
    const src = `${formatIpv4(p.srcIp[id]!)}:${p.srcPort[id]}`;
    requests.hop(message, p.time[id] as SimTime, host.entity, `kube-proxy: ${changes.join(', ')}`, src, `${formatIpv4(p.dstIp[id]!)}:${p.dstPort[id]}`);
  }

  /** With no endpoints kube-proxy installs a REJECT rule; a local client's connect fails at once. */
  private reject(id: number, host: Host): void {
    const p = this.net.packets;
    const client = host.pods.get(p.srcIp[id]!);
    const dstIp = p.dstIp[id]!;
    const dstPort = p.dstPort[id]!;
    const srcPort = p.srcPort[id]!;
    const tcp = p.proto[id] === Proto.tcp;
    this.net.drop(id, 'service_no_endpoints', host);
    if (!client || !tcp) return;
    const reply = this.net.emit(dstIp, dstPort, client.ip, srcPort, Proto.tcp, Payload.none, 0);
    p.flags[reply] = TcpFlag.RST | TcpFlag.ACK;
    this.net.forward(reply, Stage.pod, client.index);
  }

  private proxyStream(host: Host): RngStream {
    let stream = this.proxyRng.get(host.index);
    if (!stream) this.proxyRng.set(host.index, (stream = this.ctx.rng.stream(`kube-proxy/${host.name}`)));
    return stream;
  }
}
