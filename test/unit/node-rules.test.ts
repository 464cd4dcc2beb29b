import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/sim/context';
import { Rng } from '../../src/sim/core/rng';
import { atSeconds } from '../../src/sim/core/time';
import { NO_ENDPOINTS, NO_LOCAL_ENDPOINT } from '../../src/sim/infra/service-proxy';
import type { PodLike } from '../../src/sim/k8s/endpoint-slice';
import { KubeProxy } from '../../src/sim/k8s/kube-proxy';
import { KubeServicesChain } from '../../src/sim/k8s/kube-services-chain';
import { Frontend, frontendOfId, serviceOfId } from '../../src/sim/k8s/node-rules';
import { Service, ServiceDirectory, type ServiceExposure } from '../../src/sim/k8s/service';
import { ipv4 } from '../../src/sim/net/ipv4';
import { Proto } from '../../src/sim/net/packet';

const NODE_IPS = ['192.168.0.10', '192.168.0.11', '192.168.0.12'].map(ipv4);
const LB_IP = ipv4('203.0.113.7');

/** Three nodes; one Service whose pods sit on the given nodes; every node programmed. */
function cluster(podNodes: number[], exposure: ServiceExposure = {}) {
  const ctx = createContext(1);
  const proxy = new KubeProxy(
    ctx,
    NODE_IPS.map((ip, i) => ({ name: `node-${i}`, ip })),
  );
  const directory = new ServiceDirectory();
  const service = new Service('web', ipv4('10.96.0.10'), 80, 'web', 8080, exposure);
  directory.add(service);
  const pods: PodLike[] = podNodes.map((node, i) => ({ index: i, ip: ipv4(`10.244.${node}.${i + 2}`), hostIndex: node, phase: 'running', ready: true }));
  service.slice.update(pods, 8080);
  const svc = proxy.addService(service);
  proxy.programAll();
  const publish = () => {
    if (service.slice.update(pods, 8080)) proxy.changed(svc);
  };
  return { ctx, proxy, rules: proxy.rules, directory, service, svc, pods, publish };
}

/** How often each pod gets picked over `draws` new connections at `node`. */
function share(rules: KubeProxy['rules'], node: number, id: number, fromLocalPod: boolean, draws: number, seed = 7) {
  const rng = new Rng(seed).stream('choose');
  const counts = new Map<number, number>();
  for (let i = 0; i < draws; i++) {
    const slot = rules.choose(node, id, fromLocalPod, rng.next());
    const key = slot < 0 ? slot : rules.endpointPod(node, slot);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return new Map([...counts].map(([k, v]) => [k, v / draws]));
}

describe('KUBE-SERVICES / KUBE-NODEPORTS matching', () => {
  it('matches the ClusterIP on every node, a node port on its own node IP only, and the LB IP', () => {
    const { rules, service, svc } = cluster([0, 1], { type: 'LoadBalancer', loadBalancerIp: LB_IP });
    expect(service.nodePort).toBe(30000);
    for (let node = 0; node < 3; node++) {
      const id = rules.lookup(node, service.clusterIp, 80, Proto.tcp);
      expect([serviceOfId(id), frontendOfId(id)]).toEqual([svc, Frontend.clusterIp]);
      expect(frontendOfId(rules.lookup(node, NODE_IPS[node]!, 30000, Proto.tcp))).toBe(Frontend.nodePort);
      expect(frontendOfId(rules.lookup(node, LB_IP, 80, Proto.tcp))).toBe(Frontend.loadBalancer);
    }
    expect(rules.lookup(0, NODE_IPS[1]!, 30000, Proto.tcp)).toBe(-1);
    expect(rules.lookup(0, service.clusterIp, 81, Proto.tcp)).toBe(-1);
    expect(rules.lookup(0, service.clusterIp, 80, Proto.udp)).toBe(-1);
    expect(rules.lookup(0, NODE_IPS[0]!, 80, Proto.tcp)).toBe(-1);
  });

  it('a changed node port keeps matching the old port until the node syncs', () => {
    const { ctx, proxy, rules, directory, service, svc } = cluster([0], { type: 'NodePort' });
    ctx.sched.runUntil(atSeconds(10));
    directory.expose(service, { nodePort: 31500 });
    proxy.changed(svc);
    expect(rules.lookup(0, NODE_IPS[0]!, 30000, Proto.tcp)).toBeGreaterThanOrEqual(0);
    expect(proxy.syncing(0)).toBe(true);
    ctx.sched.runUntil(atSeconds(11));
    expect(rules.lookup(0, NODE_IPS[0]!, 30000, Proto.tcp)).toBe(-1);
    expect(frontendOfId(rules.lookup(0, NODE_IPS[0]!, 31500, Proto.tcp))).toBe(Frontend.nodePort);
  });
});

describe('endpoint choice under externalTrafficPolicy (docs/sources/kube-proxy.md#externaltrafficpolicy)', () => {
  it('Local: external traffic on a node without a local endpoint is dropped; a local pod still reaches every endpoint', () => {
    const { rules, service } = cluster([0, 0, 1], { type: 'LoadBalancer', loadBalancerIp: LB_IP, externalTrafficPolicy: 'Local' });
    const lb = rules.lookup(2, LB_IP, 80, Proto.tcp);
    expect(rules.choose(2, lb, false, 0.5)).toBe(NO_LOCAL_ENDPOINT);
    const np = rules.lookup(2, NODE_IPS[2]!, service.nodePort!, Proto.tcp);
    expect(rules.choose(2, np, false, 0.5)).toBe(NO_LOCAL_ENDPOINT);
    expect([...share(rules, 2, lb, true, 3000).keys()].sort()).toEqual([0, 1, 2]);
    expect(rules.masquerade(2, lb, 0, true)).toBe(false);
    const slot = rules.choose(1, rules.lookup(1, LB_IP, 80, Proto.tcp), false, 0.5);
    expect(rules.endpointPod(1, slot)).toBe(2);
    expect(rules.masquerade(1, lb, slot, false)).toBe(false);
  });

  it('Cluster: external traffic goes to any endpoint and is masqueraded; pod traffic to the ClusterIP is not', () => {
    const { rules, service } = cluster([0, 1], { type: 'NodePort' });
    const np = rules.lookup(2, NODE_IPS[2]!, service.nodePort!, Proto.tcp);
    const slot = rules.choose(2, np, false, 0.9);
    expect(slot).toBeGreaterThanOrEqual(0);
    expect(rules.endpointIp(2, slot)).toBe(ipv4('10.244.1.3'));
    expect(rules.endpointPort(2, slot)).toBe(8080);
    expect(rules.masquerade(2, np, slot, false)).toBe(true);
    const cip = rules.lookup(2, service.clusterIp, 80, Proto.tcp);
    expect(rules.masquerade(2, cip, rules.choose(2, cip, true, 0.1), true)).toBe(false);
    expect(rules.masquerade(2, cip, rules.choose(2, cip, false, 0.1), false)).toBe(true);
  });

  it('the ClusterIP ignores the policy: a pod on a node without endpoints reaches all of them', () => {
    const { rules, service } = cluster([0, 0, 1], { type: 'LoadBalancer', loadBalancerIp: LB_IP, externalTrafficPolicy: 'Local' });
    const cip = rules.lookup(2, service.clusterIp, 80, Proto.tcp);
    expect([...share(rules, 2, cip, false, 3000).keys()].sort()).toEqual([0, 1, 2]);
  });

  it('Local balances over the node’s own endpoints only, each equally likely', () => {
    const { rules } = cluster([0, 0, 0, 1, 2, 2], { type: 'LoadBalancer', loadBalancerIp: LB_IP, externalTrafficPolicy: 'Local' });
    const lb = rules.lookup(0, LB_IP, 80, Proto.tcp);
    const onNode0 = share(rules, 0, lb, false, 30000);
    expect([...onNode0.keys()].sort()).toEqual([0, 1, 2]);
    for (const p of [0, 1, 2]) expect(onNode0.get(p)!).toBeCloseTo(1 / 3, 1);
    const onNode2 = share(rules, 2, lb, false, 30000);
    expect([...onNode2.keys()].sort()).toEqual([4, 5]);
    for (const p of [4, 5]) expect(Math.abs(onNode2.get(p)! - 0.5)).toBeLessThan(0.02);
    expect(share(rules, 1, lb, false, 100).get(3)).toBe(1);
  });

  it('no endpoints at all ⇒ NO_ENDPOINTS (REJECT), whatever the policy', () => {
    const { rules, service, pods, publish, ctx } = cluster([0], { type: 'LoadBalancer', loadBalancerIp: LB_IP, externalTrafficPolicy: 'Local' });
    pods[0]!.ready = false;
    publish();
    ctx.sched.runUntil(atSeconds(5));
    expect(rules.choose(0, rules.lookup(0, service.clusterIp, 80, Proto.tcp), true, 0.5)).toBe(NO_ENDPOINTS);
    expect(rules.choose(0, rules.lookup(0, LB_IP, 80, Proto.tcp), false, 0.5)).toBe(NO_ENDPOINTS);
  });
});

describe('terminating endpoints (ProxyTerminatingEndpoints, docs/sources/kube-proxy.md#terminating-endpoints)', () => {
  it('ready endpoints win; with none ready, serving terminating ones are used; not-serving ones never', () => {
    const { rules, service, pods, publish, ctx } = cluster([0, 1, 2]);
    const cip = rules.lookup(0, service.clusterIp, 80, Proto.tcp);
    pods[0]!.phase = 'terminating';
    publish();
    ctx.sched.runUntil(atSeconds(2));
    expect([...share(rules, 0, cip, true, 2000).keys()].sort()).toEqual([1, 2]);

    pods[1]!.phase = 'terminating';
    pods[2]!.phase = 'terminating';
    pods[2]!.ready = false;
    publish();
    ctx.sched.runUntil(atSeconds(4));
    expect([...share(rules, 0, cip, true, 2000).keys()].sort()).toEqual([0, 1]);

    pods[0]!.ready = false;
    pods[1]!.ready = false;
    publish();
    ctx.sched.runUntil(atSeconds(6));
    expect(rules.choose(0, cip, true, 0.5)).toBe(NO_ENDPOINTS);
  });

  it('under Local a node whose only local endpoints terminate keeps draining to them', () => {
    const { rules, pods, publish, ctx } = cluster([0, 1], { type: 'LoadBalancer', loadBalancerIp: LB_IP, externalTrafficPolicy: 'Local' });
    pods[0]!.phase = 'terminating';
    publish();
    ctx.sched.runUntil(atSeconds(2));
    const lb = rules.lookup(0, LB_IP, 80, Proto.tcp);
    expect(share(rules, 0, lb, false, 100).get(0)).toBe(1);
    expect(share(rules, 0, lb, true, 100).get(1)).toBe(1);
  });
});

describe('KubeServicesChain', () => {
  it('agrees with a Map through inserts, overwrites, deletes and growth', () => {
    const rng = new Rng(3).stream('table');
    const table = new KubeServicesChain();
    const oracle = new Map<string, number>();
    const keys: [number, number, number][] = [];
    for (let i = 0; i < 400; i++) keys.push([rng.int(2 ** 32), rng.int(65536), rng.pick([Proto.tcp, Proto.udp])]);
    for (let step = 0; step < 20000; step++) {
      const [ip, port, proto] = rng.pick(keys);
      const key = `${ip}/${port}/${proto}`;
      if (rng.chance(0.6)) {
        const id = rng.int(1000);
        table.set(ip, port, proto, id);
        oracle.set(key, id);
      } else {
        const id = oracle.get(key) ?? 0;
        table.delete(ip, port, proto, id);
        oracle.delete(key);
      }
    }
    expect(table.size).toBe(oracle.size);
    for (const [ip, port, proto] of keys) expect(table.find(ip, port, proto)).toBe(oracle.get(`${ip}/${port}/${proto}`) ?? -1);
  });

  it('a delete for another id leaves the address alone', () => {
    const table = new KubeServicesChain();
    table.set(1, 80, Proto.tcp, 4);
    table.delete(1, 80, Proto.tcp, 8);
    expect(table.find(1, 80, Proto.tcp)).toBe(4);
  });
});
