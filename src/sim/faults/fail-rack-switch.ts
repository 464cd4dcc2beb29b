import { defineFault } from './fault';
import { hostsInRack } from './targets';

export const failRackSwitch = defineFault({
  id: 'fail-rack-switch',
  label: 'Fail rack switch',
  icon: '⛓',
  description:
    'The top-of-rack switch of a rack dies: its machines keep running and reach each other’s pods on the same machine, but nothing gets on or off the wire. Their MetalLB speakers go silent, so the router keeps them as next hops until the BGP hold timer fires, and kube-proxy keeps sending to their pods until Kubernetes notices.',
  targets: ['rack'],
  params: [],
  apply(world, _kind, name, _params, cause) {
    const hosts = hostsInRack(world, name);
    if (hosts.every((h) => !h.uplinkUp)) throw new Error(`target: the switch of rack "${name}" has already failed`);
    const now = world.ctx.sched.now;
    for (const host of hosts) {
      host.uplinkUp = false;
      world.ctx.causes.record('rack_switch_failed', host.entity, now, { at: now, rack: name });
      // Its speaker's KEEPALIVEs no longer reach the router: the session goes the way of a dark node's.
      if (host.powered) world.edge.metallb?.nodeDark(host);
    }
    const names = hosts.map((h) => h.name).join(', ');
    world.ctx.note('warn', `rack/${name}`, 'rack.switch_failed', `top-of-rack switch failed: ${names} cut off from the network`, { cause });
    world.ctx.touchTopology();
  },
});
