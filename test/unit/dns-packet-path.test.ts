import { describe, expect, it } from 'vitest';
import { clusterDns, dnsLookups, dnsClient, httpClient, httpServer, node, pod, scenarioText, service, type ScenarioSpec } from '../fixtures/scenario-builder';
import { runText } from '../fixtures/scenario-run';
import type { RunReport } from '../../src/sim/api';
import { loadScenario } from '../../src/sim/scenario/load';
import { FAULT_IDS } from '../../src/sim/sim';

const dnsPath = (nodeLocal: boolean): ScenarioSpec =>
  dnsLookups('dns-path', 'DNS over the packet path', 'pods resolve a Service name and an external name through node-local DNS', 30, { nodeLocal });

function run(nodeLocal: boolean, sets: string[] = []): RunReport {
  return runText(scenarioText(dnsPath(nodeLocal)), sets).report;
}

describe('the DNS chain on the packet path', () => {
  it('resolves Service and external names through node-local DNS, cluster DNS and the provider', () => {
    const r = run(true);
    const t = r.totals;
    expect(t['dns.client.lookups']).toBeGreaterThan(800);
    expect(t['dns.client.failures'] ?? 0).toBe(0);
    // ndots:5 sends `metric.example.com` through the three search suffixes first (docs/sources/dns.md#pod-resolver).
    expect(t['dns.client.queries']).toBeGreaterThan(2 * t['dns.client.lookups']!);
    expect(t['dns.nodelocal.queries']).toBe(t['dns.client.queries']);
    expect(t['dns.nodelocal.cache.hits']).toBeGreaterThan(t['dns.nodelocal.cache.misses']!);
    expect(t['dns.cluster.queries']).toBeGreaterThan(0);
    expect(t['dns.provider.queries']).toBeGreaterThan(0);
    expect(t['udp.datagrams.received']).toBeGreaterThan(0);
    expect(r.packets.delivered + r.packets.dropped + r.packets.inFlight).toBe(r.packets.sent);
  });

  it('without node-local DNS, pods ask CoreDNS through the kube-dns Service directly', () => {
    const t = run(false).totals;
    expect(t['dns.nodelocal.queries'] ?? 0).toBe(0);
    expect(t['dns.cluster.queries']).toBe(t['dns.client.queries']);
    expect(t['dns.client.failures'] ?? 0).toBe(0);
  });

  it('a dns-client needs a name and topology.dns', () => {
    const errorsOf = (edit: (s: ScenarioSpec) => void): string[] => {
      const loaded = loadScenario(scenarioText(dnsPath(true), edit), 'x.yaml', { faultIds: FAULT_IDS });
      return loaded.ok ? [] : loaded.errors;
    };
    expect(errorsOf((s) => delete s.topology.dns)).toContain('topology.deployments.external.app: dns-client needs topology.dns');
    const errors = errorsOf((s) => Reflect.deleteProperty(s.topology.deployments.internal!, 'lookup'));
    expect(errors).toEqual(['topology.deployments.internal.lookup: required for a dns-client deployment (a name to resolve)']);
  });
});

describe('a full hypervisor table breaks DNS on that instance', () => {
  // Long-lived connections from node-a take its whole tracked-connection allowance; node-local DNS on node-a then
  // cannot open new flows to the cloud resolver, so lookups that miss its cache fail there.
  const full = (conntrackAllowance: number): string =>
    scenarioText({
      id: 'dns-allowance',
      title: 'DNS behind a full allowance',
      description: "long-lived connections fill node-a's allowance; DNS on node-a needs new flows",
      seed: 2,
      duration: 40,
      topology: {
        nodes: [node('a', { platform: 'cloud', pods: [pod('hog-0'), pod('lookup-0')] }), node('b', { platform: 'cloud', pods: [pod('web-0')] })],
        deployments: { web: httpServer(1), hog: httpClient(1, 'web'), lookup: dnsClient(1, 'metric.example.com.') },
        services: { web: service('web', '10.96.0.20') },
        dns: clusterDns({ nodeLocal: true, recordTtl: 5, records: { 'metric.example.com': ['10.1.2.3'] } }),
      },
      params: {
        node: { podNetwork: 'eni' },
        client: { connectionsPerPod: 20, requestsPerSecond: 20 },
        dnsClient: { lookupsPerSecond: 2 },
        instance: { conntrackAllowance },
      },
    });

  const failures = (allowance: number) => {
    const r = runText(full(allowance)).report;
    return {
      lookups: r.totals['dns.client.lookups'] ?? 0,
      failed: Object.entries(r.totals)
        .filter(([k]) => k.startsWith('dns.client.failures{'))
        .reduce((n, [, v]) => n + v, 0),
      exceeded: r.totals['hypervisor.conntrack_allowance_exceeded{instance=node-a}'] ?? 0,
    };
  };

  it('with room in the allowance every lookup succeeds', () => {
    const roomy = failures(1000);
    expect(roomy.lookups).toBeGreaterThan(50);
    expect(roomy.failed).toBe(0);
    expect(roomy.exceeded).toBe(0);
  });

  it('with the allowance taken by the connections, lookups on node-a fail and the ENA counter rises', () => {
    const full = failures(20);
    expect(full.exceeded).toBeGreaterThan(0);
    expect(full.failed).toBeGreaterThan(0);
  });
});
