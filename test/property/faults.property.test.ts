import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Sim } from '../../src/sim/api';
import { faultCatalog } from '../../src/sim/faults/catalog';
import { createSim, restoreSim, type Checkpoint } from '../../src/sim/sim';
import { faultEntry, runWithFaults, type FaultEntry } from '../fixtures/random-faults';
import { clusterDns, grpcClient, grpcServer, httpClient, httpServer, nodes, scenarioText, service } from '../fixtures/scenario-builder';
import { loadText } from '../fixtures/scenario-run';

/**
 * A cluster with a target of every kind: three cloud nodes with ENI pod networking in two racks, an HTTP Service behind MetalLB
 * (router `tor`) and an F5 pool (`bigip`), gRPC clients finding their servers through external-dns, CoreDNS and the
 * cloud resolver, and mesh clients finding their backends through ZooKeeper. Random faults from the whole catalog, at random times with random parameters, must leave the packet
 * ledger balanced at every second, and a fault either applies or is refused with a message naming a field.
 * A failure prints fast-check's seed and path; rerun just that case with FC_SEED=<seed> FC_PATH=<path>.
 */
const CLUSTER = scenarioText({
  id: 'faults-random',
  title: 'every fault kind',
  description: 'a target of every kind for random faults',
  duration: 30,
  topology: {
    nodes: nodes(3, (i) => ({ platform: 'cloud', rack: i < 2 ? 'r1' : 'r2' })),
    deployments: {
      web: httpServer(3),
      client: httpClient(2, 'web'),
      metric: grpcServer(2, { port: 9090 }),
      alerting: grpcClient(2, 'metric.example.com:9090'),
      search: { app: 'mesh-server', replicas: 4, announce: 'search' },
      shop: { app: 'mesh-client', replicas: 2, uses: ['search'] },
    },
    zookeeper: { servers: 3 },
    services: { web: service('web', '10.96.0.20', { type: 'LoadBalancer', loadBalancerIp: '192.0.2.50', nodePort: 30080, externalTrafficPolicy: 'Local' }) },
    routers: [{ name: 'tor', ip: '10.0.0.1' }],
    bgp: { router: 'tor' },
    loadBalancers: [{ name: 'bigip', ip: '10.0.0.250', virtualServers: [{ name: 'web', vip: '192.0.2.10', port: 80, service: 'web' }] }],
    externalClients: [
      { name: 'via-bgp', ip: '203.0.113.5', targetIp: '192.0.2.50', targetPort: 80 },
      { name: 'via-f5', ip: '203.0.113.6', targetIp: '192.0.2.10', targetPort: 80 },
    ],
    dns: clusterDns({ nodeLocal: true, externalDns: { hostname: 'metric.example.com', deployment: 'metric' } }),
  },
  params: { node: { podNetwork: 'eni' }, client: { requestsPerSecond: 10, connectionsPerPod: 2, reconnectMs: 300 }, externalDns: { intervalS: 10 } },
});

const NAMES: Record<string, string[]> = {
  node: ['node-a', 'node-b', 'node-c'],
  pod: ['web-0', 'web-1', 'client-0', 'metric-0', 'alerting-1', 'coredns-0', 'search-0', 'shop-1'],
  deployment: ['web', 'client', 'metric', 'alerting', 'coredns', 'search', 'shop'],
  service: ['web'],
  router: ['tor'],
  lb: ['bigip'],
  dns: ['cluster', 'provider'],
  external: ['via-bgp', 'via-f5'],
  zookeeper: ['ensemble'],
  rack: ['r1', 'r2'],
};

const BASE = loadText(CLUSTER);

function runFaults(entries: FaultEntry[]): Sim {
  const sim = createSim(BASE);
  return runWithFaults(sim, BASE.duration, entries, NAMES, (t) => {
    const { sent, delivered, dropped, inFlight } = sim.report(0).packets;
    expect(delivered + dropped + inFlight, `packets at ${t} s`).toBe(sent);
  });
}

describe('random faults from the whole catalog', () => {
  it('the cluster runs without them', () => {
    const r = runFaults([]).report(0);
    expect(r.totals['requests.ok']).toBeGreaterThan(0);
    expect(r.totals['grpc.client.ok']).toBeGreaterThan(0);
  });

  it('every packet is delivered, dropped with a reason, or in flight, whatever faults hit the cluster', () => {
    fc.assert(
      fc.property(fc.array(faultEntry(25), { minLength: 1, maxLength: 5 }), (entries) => {
        runFaults(entries);
      }),
      { numRuns: 12 },
    );
  }, 300_000);

  it('a run restored from a checkpoint at any second goes on exactly as the run it was taken from, as often as it is restored', () => {
    fc.assert(
      fc.property(fc.array(faultEntry(25), { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 29 }), (entries, atS) => {
        let checkpoint: Checkpoint | undefined;
        const straight = createSim(BASE);
        runWithFaults(straight, BASE.duration, entries, NAMES, (t) => {
          if (t === atS) checkpoint = straight.checkpoint();
        });
        const goesOn = () => runWithFaults(restoreSim(checkpoint!), BASE.duration, entries, NAMES, undefined, atS + 1).report(0);
        const once = goesOn();
        expect(once.digest).toBe(straight.report(0).digest);
        expect(once.events).toBe(straight.eventsExecuted());
        expect(goesOn().digest).toBe(once.digest);
      }),
      { numRuns: 8 },
    );
  }, 300_000);

  it('the same faults give the same digest', () => {
    const entries = faultCatalog().map((_, i) => ({ fault: i, at: 2 + i, target: i, draws: [0.3, undefined, 0.7] }));
    expect(runFaults(entries).report(0).digest).toBe(runFaults(entries).report(0).digest);
  }, 120_000);
});
