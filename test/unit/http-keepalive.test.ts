import { describe, expect, it } from 'vitest';
import { nodes, scenarioText, webAndClients } from '../fixtures/scenario-builder';
import { runText } from '../fixtures/scenario-run';

const keepAlive = (requestsPerConnection: number): string =>
  scenarioText({
    id: 'keepalive',
    title: 'Keep-alive limit',
    description: 'clients that open a new connection after a number of requests',
    seed: 5,
    duration: 20,
    topology: { nodes: nodes(2, {}, { firstIp: 1 }), ...webAndClients(2, 2) },
    params: { client: { requestsPerSecond: 50, connectionsPerPod: 2, requestsPerConnection } },
  });

const run = (limit: number) => runText(keepAlive(limit)).report;

describe('a client that uses each connection for a number of requests', () => {
  it('keeps its connections for good by default', () => {
    const r = run(0);
    expect(r.totals['client.reconnects'] ?? 0).toBe(0);
    expect(r.totals['requests.ok']).toBeGreaterThan(1800);
  });

  it('dials a new connection after each batch, without failing a request', () => {
    const r = run(10);
    const ok = r.totals['requests.ok']!;
    expect(r.totals['requests.failed'] ?? 0).toBe(0);
    // Every tenth answer retires a connection; the new one is dialled at once, so the count follows the requests.
    expect(r.totals['tcp.syn.sent']).toBeGreaterThanOrEqual(Math.floor(ok / 10));
    expect(r.totals['tcp.syn.sent']).toBeLessThanOrEqual(Math.ceil(ok / 10) + 4 + 2);
  });
});
