/**
 * The call graph an import reads from manifests (src/state/manifest-calls.ts, manifest-import.ts): environment values
 * and ConfigMap entries that name Services, the protocol from the Service port, load only at the entry points.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { serviceReferences, type NamedService } from '../../src/state/manifest-calls';
import { importManifests } from '../../src/state/manifest-import';
import { loadText, runText } from '../fixtures/scenario-run';

const BOOKSHOP = readFileSync(new URL('../fixtures/manifests/bookshop.yaml', import.meta.url), 'utf8');
/** The fixture's line holding `needle`, counted from 1. */
const lineOf = (needle: string) => BOOKSHOP.split('\n').findIndex((l) => l.includes(needle)) + 1;

const SERVICES: NamedService[] = [
  { name: 'cart', original: 'cart', namespace: 'shop', ports: [{ port: 7070, name: 'http' }] },
  {
    name: 'catalog',
    original: 'catalog',
    namespace: 'shop',
    ports: [
      { port: 3550, name: 'grpc' },
      { port: 8080, name: 'metrics' },
    ],
  },
  { name: 'pricing-2', original: 'pricing', namespace: 'billing', ports: [{ port: 7000, appProtocol: 'kubernetes.io/grpc', name: 'http' }] },
];
const refs = (value: string, namespace = 'shop') => serviceReferences(value, namespace, SERVICES).map((r) => [r.service.name, r.port ?? null, r.protocol, r.unknownPort]);

describe('serviceReferences', () => {
  it('reads a Service from a name, name:port, a namespaced or full name, and a URL', () => {
    expect(refs('cart')).toEqual([['cart', null, 'http', false]]);
    expect(refs('catalog:3550')).toEqual([['catalog', 3550, 'grpc', false]]);
    expect(refs('catalog:8080')).toEqual([['catalog', 8080, 'http', false]]);
    expect(refs('http://cart.shop.svc.cluster.local:7070/api?x=1')).toEqual([['cart', 7070, 'http', false]]);
    expect(refs('pricing.billing:7000')).toEqual([['pricing-2', 7000, 'grpc', false]]);
    expect(refs('grpc://user@cart:7070')).toEqual([['cart', 7070, 'grpc', false]]);
    // Lists of addresses, each read.
    expect(refs('cart:7070, catalog:3550')).toEqual([
      ['cart', 7070, 'http', false],
      ['catalog', 3550, 'grpc', false],
    ]);
  });

  it('names no Service in another namespace, an unknown host, or prose; flags a port the Service lacks', () => {
    expect(refs('pricing:7000')).toEqual([]);
    expect(refs('cart.other:7070')).toEqual([]);
    expect(refs('cart.shop.example.com:7070')).toEqual([]);
    expect(refs('debug')).toEqual([]);
    expect(refs('catalog:9999')).toEqual([['catalog', 9999, 'http', true]]);
  });
});

describe('importing an application that calls itself', () => {
  const result = importManifests(BOOKSHOP);
  const edges = result.calls.map((line) => line.slice(0, line.indexOf(':')));

  it('lists each call read from the manifests, with its protocol, its port and the line it came from', () => {
    expect(edges).toEqual([
      'storefront → catalog (gRPC, run as HTTP requests, port 3550)',
      'storefront → basket (HTTP, port 7070)',
      'storefront → pricing (gRPC, run as HTTP requests, port 7000)',
      'storefront → reviews (HTTP, port 9090)',
      'basket → basket-store (HTTP, port 6379)',
      'checkout → payments (gRPC, run as HTTP requests, port 50051)',
      'checkout → basket (HTTP, port 7070)',
      'traffic → storefront (HTTP, port 80)',
    ]);
    expect(result.calls[0]).toBe(`storefront → catalog (gRPC, run as HTTP requests, port 3550): env CATALOG_ADDR=catalog:3550, document 1, line ${lineOf("'catalog:3550'")}`);
    expect(result.calls[3]).toBe(`storefront → reviews (HTTP, port 9090): envFrom ConfigMap storefront-config REVIEWS_ADDR=reviews:9090, document 2, line ${lineOf('REVIEWS_ADDR')}`);
  });

  it('leaves out a call that would loop and one to a port the Service lacks, saying so', () => {
    expect(
      result.notUnderstood.some(
        (n) =>
          n.startsWith('Deployment catalog: env STOREFRONT_ADDR=storefront:80') &&
          n.endsWith('names Service storefront, which already calls catalog: requests would loop, so this call is left out'),
      ),
    ).toBe(true);
    expect(
      result.notUnderstood.some(
        (n) => n.startsWith('Deployment checkout: env SHIPPING_ADDR=shipping:9999') && n.endsWith('names Service shipping on port 9999, which it does not have; no call read'),
      ),
    ).toBe(true);
    // The ConfigMap was read through envFrom.
    expect(result.notUnderstood.some((n) => n.startsWith('ConfigMap'))).toBe(false);
  });

  it('writes the calls into the scenario, runs the load generator as a client, and sends load only into the entry points', () => {
    const scenario = loadText(result.scenarioText);
    const deps = scenario.topology.deployments;
    const calls = (name: string) => (deps[name]!.app === 'http-server' ? deps[name]!.calls : null);
    expect(calls('storefront')).toEqual(['catalog', 'basket', 'pricing', 'reviews']);
    expect(calls('checkout')).toEqual(['payments', 'basket']);
    expect(calls('catalog')).toEqual([]);
    expect(deps['traffic']).toMatchObject({ app: 'http-client', target: 'storefront' });
    const clients = Object.entries(deps).flatMap(([name, d]) => (d.app === 'http-client' ? [`${name} → ${d.target}`] : []));
    // The LoadBalancer Service, and checkout and shipping, which nothing calls; the rest get their load through calls.
    expect(clients.sort()).toEqual(['checkout-client → checkout', 'shipping-client → shipping', 'storefront-public-client → storefront-public', 'traffic → storefront']);
    expect(scenario.params.client.requestsPerSecond).toBe(10);
    // In the editor each call says where it was read, so deleting its line removes it.
    expect(result.scenarioText).toContain(`        - catalog # env CATALOG_ADDR=catalog:3550 (document 1, line ${lineOf("'catalog:3550'")})\n`);
    expect(result.scenarioText).toMatch(/\n {6}target: storefront # env FRONTEND_ADDR=storefront:80 \(document 21, line \d+\)\n/);
  });

  it('runs: the entry points’ requests reach the Services they call', () => {
    const { report } = runText(result.scenarioText);
    expect(report.totals['requests.ok']).toBeGreaterThan(500);
    expect(report.totals['requests.failed'] ?? 0).toBe(0);
    // Each storefront request makes four calls, each checkout request two, each basket request one.
    expect(report.totals['calls.requests.ok']).toBeGreaterThan(4 * 0.5 * report.totals['requests.ok']!);
  });

  it('reads the same calls from kubectl get -o yaml output (a kind: List)', () => {
    const items = parseAllDocuments(BOOKSHOP).map((d) => d.toJS());
    const list = importManifests(stringify({ apiVersion: 'v1', kind: 'List', items }));
    expect(list.calls.map((line) => line.slice(0, line.indexOf(':')))).toEqual(edges);
    expect(list.calls[0]).toMatch(/env CATALOG_ADDR=catalog:3550, document 1, line \d+$/);
  });
});
