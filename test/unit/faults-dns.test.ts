import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/sim/api';
import { createSim } from '../../src/sim/sim';
import { dnsLookups, fault, scenarioText, type TimelineInput } from '../fixtures/scenario-builder';
import { loadText, runText } from '../fixtures/scenario-run';

/**
 * Pods resolve an external name (answered by the cloud resolver's provider, TTL 1 s so caches hold it briefly) and a
 * Service name (answered by CoreDNS itself), without node-local DNS: pods ask CoreDNS through kube-dns.
 */
const DNS = dnsLookups('faults-dns', 'DNS upstream faults', 'pods resolve a Service name and an external name through CoreDNS', 40, { nodeLocal: false, recordTtl: 1 });
const SCENARIO = scenarioText(DNS);
/** The scenario with one fault on its timeline. */
const withFault = (entry: TimelineInput): string => scenarioText({ ...DNS, timeline: [entry] });

const series = (r: RunReport, key: string): number[] => r.series[key]?.values ?? [];
const sum = (values: number[], from: number, to: number) => values.slice(from, to).reduce((a, b) => a + b, 0);

describe('break-upstream', () => {
  it('the provider loses every query for 10 s: lookups of the external name stall, then fail in that window only', () => {
    const base = runText(SCENARIO).report;
    expect(Object.keys(base.totals).filter((k) => k.startsWith('dns.client.failures'))).toEqual([]);
    const { sim, report } = runText(withFault(fault(10, 'break-upstream', 'dns/provider', { durationSeconds: 10 })));
    expect(sim.eventsSince(0).filter((e) => e.kind === 'fault.failed')).toEqual([]);
    const impaired = sim.eventsSince(0).find((e) => e.kind === 'dns.upstream.impaired')!;
    expect(impaired).toMatchObject({ entity: 'external/dns-resolver', cause: 'timeline[0]', message: '100 % of queries lost for 10 s' });
    expect(report.totals['dns.provider.impaired.dropped']).toBeGreaterThan(0);
    // CoreDNS's forward gives up on the silent upstream and answers SERVFAIL; nothing fails before the fault or after it.
    const failures = series(report, 'dns.client.failures{reason=servfail}');
    expect(sum(failures, 0, 10)).toBe(0);
    expect(sum(failures, 10, 23)).toBeGreaterThan(50);
    expect(sum(failures, 23, 40)).toBe(0);
    // Lookups that waited on the silent provider took seconds; without the fault every one took under 10 ms.
    expect(base.totals['dns.client.lookup_ms.le_10']).toBe(base.totals['dns.client.lookup_ms.count']);
    expect(report.totals['dns.client.lookup_ms.count']! - report.totals['dns.client.lookup_ms.le_2000']!).toBeGreaterThan(50);
    // The cluster's health checks of the provider failed too.
    expect(report.totals['dns.cluster.forward.healthcheck_failures']).toBeGreaterThan(0);
    expect(base.totals['dns.cluster.forward.healthcheck_failures'] ?? 0).toBe(0);
    expect(report.packets.delivered + report.packets.dropped + report.packets.inFlight).toBe(report.packets.sent);
  });

  it('a drop probability loses about that share of the queries, drawn from the run’s seeded stream', () => {
    const yaml = withFault(fault(5, 'break-upstream', 'dns/provider', { durationSeconds: 30, dropProbability: 0.3 }));
    const a = runText(yaml).report;
    const dropped = a.totals['dns.provider.impaired.dropped']!;
    const queries = a.totals['dns.provider.queries']!;
    expect(dropped / (dropped + queries)).toBeGreaterThan(0.2);
    expect(dropped / (dropped + queries)).toBeLessThan(0.4);
    expect(runText(yaml).report.digest).toBe(a.digest);
  });
});

describe('slow-upstream', () => {
  it('CoreDNS answering 300 ms late slows lookups while it lasts, and fails none', () => {
    const yaml = withFault(fault(10, 'slow-upstream', 'dns/cluster', { durationSeconds: 10, addedLatencyMs: 300 }));
    const { sim, report } = runText(yaml);
    expect(sim.eventsSince(0).find((e) => e.kind === 'dns.upstream.impaired')).toMatchObject({ entity: 'deployment/coredns', message: 'answers 300 ms late for 10 s' });
    expect(report.totals['dns.cluster.impaired.delayed']).toBeGreaterThan(0);
    expect(report.totals['dns.cluster.impaired.dropped'] ?? 0).toBe(0);
    expect(report.totals['dns.client.failures'] ?? 0).toBe(0);
    // Every query a lookup sends (the search list first, then the name) waits 300 ms more: for those 10 s lookups
    // take hundreds of milliseconds instead of a few, some over a second.
    const base = runText(SCENARIO).report;
    expect(report.totals['dns.client.lookup_ms.le_10']).toBeLessThan(base.totals['dns.client.lookup_ms.le_10']! - 200);
    expect(report.totals['dns.client.lookup_ms.count']! - report.totals['dns.client.lookup_ms.le_1000']!).toBeGreaterThan(0);
    expect(base.totals['dns.client.lookup_ms.le_10']).toBe(base.totals['dns.client.lookup_ms.count']);
  });

  it('rejects targets that are not DNS servers, and scenarios without DNS', () => {
    const sim = createSim(loadText(SCENARIO));
    expect(() => sim.applyFault({ fault: 'slow-upstream', target: 'dns/route53' })).toThrow('target: no dns named "route53"');
    expect(() => sim.applyFault({ fault: 'slow-upstream', target: 'dns/cluster', params: { addedLatencyMs: -1 } })).toThrow('params.addedLatencyMs: must be at least 0');
    expect(() => sim.applyFault({ fault: 'break-upstream', target: 'dns/cluster', params: { dropProbability: 2 } })).toThrow('params.dropProbability: must be at most 1');
    const plain = createSim(
      loadText(
        scenarioText(DNS, (s) => {
          delete s.topology.deployments.external;
          delete s.topology.deployments.internal;
          delete s.topology.dns;
        }),
      ),
    );
    expect(() => plain.applyFault({ fault: 'break-upstream', target: 'dns/cluster' })).toThrow('target: the scenario has no DNS (topology.dns)');
  });
});
