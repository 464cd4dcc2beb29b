import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSim } from '../../src/sim/sim';
import { differences } from '../fixtures/cohort-compare';
import { faultEntry, runWithFaults, type FaultEntry } from '../fixtures/random-faults';
import { clusterDns, fault, grpcClient, grpcServer, node, pod, scenarioText } from '../fixtures/scenario-builder';
import { loadText } from '../fixtures/scenario-run';

/**
 * Cohorts (docs/cohorts.md) against the per-packet model, on small random replays of the first incident: round_robin
 * gRPC clients redialling on a fixed loop (sometimes given less time than the first SYN retransmission, so their
 * attempts run in the cohort, sometimes more), cloud instances with small tracked-connection allowances, rp_filter
 * and the pod interface's address drawn at random, and random faults from the whole catalog on top. Both runs must
 * give the same report digest. A failure prints fast-check's seed and path; rerun that case with FC_SEED and FC_PATH.
 */
interface Knobs {
  clients: number;
  reconnectMs: number;
  connectTimeoutMs: number;
  allowance: number;
  rpFilter: 0 | 1 | 2;
  podInterfaceHasIp: boolean;
  hopLatencyUs: number;
  rollAt: number;
  resolutionS: number;
  releaseS: number;
}

const DURATION = 30;

function cluster(k: Knobs): string {
  return scenarioText({
    id: 'cohorts-random',
    title: 'random redial storm',
    description: 'gRPC clients redialling old addresses of a rolling service',
    seed: 3,
    duration: DURATION,
    topology: {
      nodes: [
        node('a', { platform: 'cloud', pods: [pod('metric-0', { ip: '10.244.1.10' })] }),
        node('b', { platform: 'cloud', pods: [pod('metric-1', { ip: '10.244.2.10' })] }),
        node('c', { platform: 'cloud' }),
        node('d', { platform: 'cloud' }),
      ],
      deployments: {
        metric: grpcServer(2, { port: 9090, terminationGracePeriodSeconds: 2, maxSurge: 1, maxUnavailable: 0, readySeconds: 2 }),
        alerting: grpcClient(k.clients, 'metric.example.com:9090'),
      },
      dns: clusterDns({ nodeLocal: true, externalDns: { hostname: 'metric.example.com', deployment: 'metric' } }),
    },
    params: {
      network: { hopLatencyUs: k.hopLatencyUs },
      node: { podNetwork: 'eni', rpFilter: k.rpFilter, podInterfaceHasIp: k.podInterfaceHasIp },
      instance: { conntrackAllowance: k.allowance, ipReleaseDelayS: k.releaseS },
      externalDns: { intervalS: 5 },
      alerting: { lbPolicy: 'round_robin', reconnect: 'fixed', reconnectIntervalMs: k.reconnectMs, minConnectTimeoutMs: k.connectTimeoutMs, resolutionIntervalS: k.resolutionS },
    },
    timeline: [fault(k.rollAt, 'rolling-update', 'deployment/metric')],
  });
}

const NAMES: Record<string, string[]> = {
  node: ['node-a', 'node-b', 'node-c', 'node-d'],
  pod: ['metric-0', 'metric-1', 'alerting-0', 'alerting-3', 'coredns-0'],
  deployment: ['metric', 'alerting', 'coredns'],
  service: ['none'],
  router: ['none'],
  lb: ['none'],
  dns: ['cluster', 'provider'],
  external: ['none'],
  zookeeper: ['none'],
  rack: ['none'],
};

const knobs: fc.Arbitrary<Knobs> = fc.record({
  clients: fc.integer({ min: 4, max: 40 }),
  reconnectMs: fc.integer({ min: 50, max: 600 }),
  connectTimeoutMs: fc.integer({ min: 50, max: 1500 }),
  allowance: fc.integer({ min: 100, max: 2000 }),
  rpFilter: fc.constantFrom(0, 1, 2),
  podInterfaceHasIp: fc.boolean(),
  hopLatencyUs: fc.integer({ min: 0, max: 3000 }),
  rollAt: fc.integer({ min: 1, max: 10 }),
  resolutionS: fc.integer({ min: 5, max: 30 }),
  releaseS: fc.integer({ min: 0, max: 30 }),
});

function run(k: Knobs, entries: FaultEntry[], cohorts: boolean) {
  const scenario = loadText(cluster(k), [`params.engine.cohorts=${cohorts}`]);
  return runWithFaults(createSim(scenario), DURATION, entries, NAMES).report(0);
}

describe('cohorts on random redial storms', () => {
  it('give the per-packet model’s report, digest and all, with and without faults', () => {
    let saved = 0;
    let full = 0;
    fc.assert(
      fc.property(knobs, fc.array(faultEntry(DURATION - 2), { maxLength: 3 }), (k, entries) => {
        const cohorts = run(k, entries, true);
        const perPacket = run(k, entries, false);
        expect(differences(cohorts, perPacket)).toEqual([]);
        expect(cohorts.digest).toBe(perPacket.digest);
        if (cohorts.events < perPacket.events) saved++;
        if ((cohorts.drops['hypervisor_conntrack_exceeded'] ?? 0) > 0) full++;
      }),
      { numRuns: 16 },
    );
    // The draws do reach what the comparison is about: attempts in the cohort, and tables that fill.
    expect(saved).toBeGreaterThan(4);
    expect(full).toBeGreaterThan(2);
  }, 600_000);
});
