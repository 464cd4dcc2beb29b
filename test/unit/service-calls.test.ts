/**
 * HTTP servers that call other Services while they serve (`calls` on an http-server): each request fans out to every
 * called Service, waits for them all, and is answered with the worst status; a loop of calls is refused at load.
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/sim/api';
import { fault, httpClient, httpServer, nodes, scenarioText, service, type ScenarioSpec } from '../fixtures/scenario-builder';
import { runText } from '../fixtures/scenario-run';
import { loadScenario } from '../../src/sim/scenario/load';

/** client → front, which calls cart and stock for every request. */
const shop = (timeline: ScenarioSpec['timeline'] = []): string =>
  scenarioText({
    id: 'calls',
    duration: 20,
    topology: {
      nodes: nodes(3),
      deployments: {
        front: httpServer(2, { calls: ['cart', 'stock'] }),
        cart: httpServer(2),
        stock: httpServer(1),
        client: httpClient(2, 'front'),
      },
      services: { front: service('front', '10.96.0.10'), cart: service('cart', '10.96.0.11'), stock: service('stock', '10.96.0.12') },
    },
    timeline,
  });

const total = (r: RunReport, metric: string, from = 0, to = Infinity): number => r.series[metric]!.values.slice(from, to).reduce((a, b) => a + b, 0);

describe('calls between Services', () => {
  it('every request the front serves calls both Services once, and all succeed', () => {
    const { report } = runText(shop());
    const t = report.totals;
    expect(t['requests.ok']).toBeGreaterThan(200);
    expect(t['requests.failed'] ?? 0).toBe(0);
    expect(t['calls.requests.failed'] ?? 0).toBe(0);
    // Each answered request had both its calls answered; no request made more than its two.
    expect(t['calls.requests.ok']).toBeGreaterThanOrEqual(2 * t['requests.ok']!);
    expect(t['calls.requests.sent']).toBeLessThanOrEqual(2 * t['requests.sent']!);
  });

  it("a called Service with no pods fails the callers' requests, and only while it has none", () => {
    const { report } = runText(shop([fault(5, 'scale-deployment', 'deployment/stock', { replicas: 0 }), fault(12, 'scale-deployment', 'deployment/stock', { replicas: 1 })]));
    expect(total(report, 'requests.failed', 0, 5)).toBe(0);
    // The front still answers, with the 502 its call got: the client sees a failed request, not a timeout.
    expect(total(report, 'requests.failed', 6, 12)).toBeGreaterThan(50);
    expect(total(report, 'requests.ok', 6, 12)).toBe(0);
    expect(report.totals['calls.requests.failed']).toBeGreaterThan(50);
    expect(total(report, 'requests.ok', 16, 20)).toBeGreaterThan(20);
  });
});

describe('the loader', () => {
  const withCalls = (calls: Record<string, string[]>) =>
    scenarioText({
      id: 'loop',
      duration: 1,
      topology: {
        nodes: nodes(1),
        deployments: { a: httpServer(1, { calls: calls['a'] ?? [] }), b: httpServer(1, { calls: calls['b'] ?? [] }), c: httpServer(1, { calls: calls['c'] ?? [] }) },
        services: { a: service('a', '10.96.0.10'), b: service('b', '10.96.0.11'), c: service('c', '10.96.0.12') },
      },
    });
  const errors = (text: string): string[] => {
    const result = loadScenario(text, 'loop.yaml');
    return result.ok ? [] : result.errors;
  };

  it('refuses calls that loop, naming the call that closes the loop and the loop itself', () => {
    expect(errors(withCalls({ a: ['b'], b: ['c'], c: ['a'] }))).toEqual(['topology.deployments.c.calls[0]: requests would loop: a → b → c → a, each waiting on the next']);
    expect(errors(withCalls({ a: ['a'] }))).toEqual(['topology.deployments.a.calls[0]: the service "a" selects this deployment itself: requests would loop']);
    // A diamond is no loop.
    expect(errors(withCalls({ a: ['b', 'c'], b: ['c'] }))).toEqual([]);
  });

  it('refuses a call to a Service that does not exist', () => {
    expect(errors(withCalls({ a: ['bb'] }))).toEqual(['topology.deployments.a.calls[0]: unknown service "bb" (did you mean "b"?)']);
  });
});
