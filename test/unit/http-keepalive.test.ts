import { describe, expect, it } from 'vitest';
import { runText } from '../fixtures/scenario-run';

const BASE = `
version: 1
id: keepalive
title: Keep-alive limit
description: clients that open a new connection after a number of requests
seed: 5
duration: 20
topology:
  nodes:
    - { name: node-a, ip: 10.0.0.1, podCidr: 10.244.1.0/24 }
    - { name: node-b, ip: 10.0.0.2, podCidr: 10.244.2.0/24 }
  deployments:
    web: { app: http-server, replicas: 2, port: 8080 }
    client: { app: http-client, replicas: 2, target: web }
  services:
    web: { selector: web, clusterIp: 10.96.0.10, port: 80 }
params:
  client: { requestsPerSecond: 50, connectionsPerPod: 2, requestsPerConnection: LIMIT }
`;

const run = (limit: number) => runText(BASE.replace('LIMIT', String(limit))).report;

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
