import { describe, expect, it } from 'vitest';
import type { LogEvent, Sim } from '../../src/sim/api';
import { atSeconds } from '../../src/sim/core/time';
import { createSim } from '../../src/sim/sim';
import { asApp, nodes, scenarioText, webAndClients, type ScenarioSpec } from '../fixtures/scenario-builder';
import { loadText } from '../fixtures/scenario-run';

// Four client pods at 25 requests/s each against web, whose HPA aims at 20 requests/s per ready pod.
const HPA_SPEC: ScenarioSpec = {
  id: 'hpa',
  title: 'HPA',
  description: 'An autoscaled web deployment.',
  seed: 4,
  duration: 200,
  topology: { nodes: nodes(2), ...webAndClients(1, 4, { web: { autoscale: { minReplicas: 1, maxReplicas: 8, targetRequestsPerSecond: 20 } } }) },
  params: { client: { requestsPerSecond: 25, connectionsPerPod: 2 }, hpa: { downscaleStabilizationS: 60 } },
};
const HPA = scenarioText(HPA_SPEC);

const scaled = (s: Sim): LogEvent[] => s.eventsSince(0).filter((e) => e.kind === 'hpa.scaled');
const replicas = (s: Sim) => s.topology().pods.filter((p) => p.deployment === 'web' && p.phase !== 'gone').length;

describe('HorizontalPodAutoscaler on requests per pod', () => {
  it('scales up to ceil(load / target), at most doubling or adding four a period, then holds within the tolerance', () => {
    const s = createSim(loadText(HPA));
    s.runUntil(atSeconds(15.5));
    // 100 requests/s on one pod, five times the target: the policy allows 1 → max(2, 1 + 4) = 5.
    expect(scaled(s).map((e) => e.message)).toEqual([expect.stringMatching(/^HPA: (9\d|10\d)\.\d requests\/s per pod against a target of 20: 1 → 5 replicas$/)]);
    expect(scaled(s)[0]!.cause).toBeUndefined();
    s.runUntil(atSeconds(90));
    // 100 / 5 = 20 per pod: within the 10 % tolerance, so no more changes.
    expect(replicas(s)).toBe(5);
    expect(scaled(s)).toHaveLength(1);
  });

  it('scales down only after the stabilization window, to what the load needs', () => {
    const s = createSim(loadText(HPA));
    s.runUntil(atSeconds(60));
    expect(replicas(s)).toBe(5);
    // Half the clients go: 50 requests/s wants 3 pods, but not before the 60 s window has seen only lower wishes.
    s.applyFault({ fault: 'scale-deployment', target: 'deployment/client', params: { replicas: 2 } });
    s.runUntil(atSeconds(100));
    expect(replicas(s)).toBe(5);
    s.runUntil(atSeconds(150));
    expect(replicas(s)).toBe(3);
    expect(scaled(s).at(-1)!.message).toMatch(/: 5 → 3 replicas$/);
  });

  it('names a bad autoscaler in the scenario', () => {
    expect(() => loadText(scenarioText(HPA_SPEC, (s) => (asApp(s.topology.deployments.web, 'http-server').autoscale!.minReplicas = 9)))).toThrow(
      'topology.deployments.web.autoscale.minReplicas: must be at most maxReplicas (8)',
    );
    expect(() => loadText(scenarioText(HPA_SPEC, (s) => Object.assign(s.topology.deployments.client!, { autoscale: { maxReplicas: 2, targetRequestsPerSecond: 1 } })))).toThrow(
      "topology.deployments.client.autoscale: only http-server and ingress-proxy deployments have this key (this one's app is http-client)",
    );
  });
});
