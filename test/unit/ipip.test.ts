import { describe, expect, it } from 'vitest';
import { httpServer, node, pod, scenarioText, service } from '../fixtures/scenario-builder';
import { runText } from '../fixtures/scenario-run';
import type { RunReport } from '../../src/sim/api';
import { Metrics } from '../../src/sim/core/metrics';
import { atSeconds } from '../../src/sim/core/time';
import { Hypervisor } from '../../src/sim/infra/hypervisor';
import { ipv4 } from '../../src/sim/net/ipv4';
import { PacketPool, Proto, TcpFlag } from '../../src/sim/net/packet';
import { DROP_REASON_IDS } from '../../src/sim/report/drop-reasons';
import { defaultParams } from '../../src/sim/scenario/params';

const NODE_C = ipv4('10.0.0.13');

// Pods on node-a and node-b only; the internet client's connections reach every node's NodePort, and kube-proxy on
// node-c and node-d forwards them (masqueraded) through tunl0 to a pod on another node.
const SCENARIO = scenarioText({
  id: 'ipip',
  title: 'Calico IPIP',
  description: 'NodePort traffic forwarded across nodes through tunl0',
  duration: 30,
  topology: {
    nodes: [node('a', { pods: [pod('web-0')] }), node('b', { pods: [pod('web-1')] }), node('c'), node('d')],
    deployments: { web: httpServer(2) },
    services: { web: service('web', '10.96.0.20', { type: 'NodePort', nodePort: 30080 }) },
    loadBalancers: [{ name: 'bigip', ip: '10.0.0.250', virtualServers: [{ name: 'web', vip: '192.0.2.10', port: 80, service: 'web' }] }],
    externalClients: [{ name: 'internet', ip: '203.0.113.5', targetIp: '192.0.2.10', targetPort: 80 }],
  },
  params: { node: { podNetwork: 'ipip' }, client: { connectionsPerPod: 8, reconnectMs: 200, requestsPerSecond: 50 } },
});

function run(sets: string[]): { report: RunReport; causes: string[] } {
  const { sim, report } = runText(SCENARIO, sets);
  const causes = sim
    .eventsSince(0)
    .filter((e) => e.reason === 'rp_filter_martian')
    .map((e) => e.cause ?? '');
  return { report, causes };
}

describe('Calico IPIP and the tunnel address (docs/sources/linux-routing-rp-filter.md#test-vectors, vector 1; docs/sources/calico.md#tunnel-address)', () => {
  it('with its address, tunl0 carries masqueraded traffic between nodes', () => {
    const { report } = run([]);
    expect(report.drops).toEqual({});
    expect(report.totals['requests.ok']).toBeGreaterThan(1000);
  });

  it('without an address, loose rp_filter drops what arrives on tunl0 from a node address as martians', () => {
    const { report, causes } = run(['params.node.tunnelHasIp=false']);
    expect(report.drops.rp_filter_martian).toBeGreaterThan(0);
    expect(causes[0]).toMatch(/^martian source 10\.244\.[12]\.\d+ from 10\.0\.0\.1[34], on dev tunl0: tunl0 has no IPv4 address, rp_filter 2$/);
  });

  it('with rp_filter off, the same packets pass', () => {
    const { report } = run(['params.node.tunnelHasIp=false', 'params.node.rpFilter=0']);
    expect(report.drops.rp_filter_martian ?? 0).toBe(0);
  });

  it('on a cloud instance the security group sees node-to-node IP-in-IP as one flow, whatever it carries', () => {
    const hv = new Hypervisor('node-c', { ...defaultParams().instance, conntrackAllowance: 1 }, new Metrics(), DROP_REASON_IDS.length);
    hv.attached.add(NODE_C);
    const pool = new PacketPool();
    for (let port = 40000; port < 40010; port++) {
      const id = pool.alloc();
      pool.srcIp[id] = NODE_C;
      pool.srcPort[id] = port;
      pool.dstIp[id] = ipv4('10.244.1.5');
      pool.dstPort[id] = 8080;
      pool.proto[id] = Proto.tcp;
      pool.flags[id] = TcpFlag.SYN;
      pool.outerSrc[id] = NODE_C;
      pool.outerDst[id] = ipv4('10.0.0.11');
      expect(hv.egress(pool, id, 0, atSeconds(1))).toBeNull();
    }
    expect(hv.table.size).toBe(1);
  });
});
