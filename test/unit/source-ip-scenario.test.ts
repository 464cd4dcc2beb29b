/**
 * The shipped replay of the second bare-metal story (public/scenarios/source-ip.yaml): the load balancer's SNAT,
 * kube-proxy's SNAT under Cluster and Traefik's own connection each replace the source address, so the shop logs
 * the data centre unless a header carries the client through; a client that writes the header itself shows why the
 * first hop must reset it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RequestJourney, RunReport } from '../../src/sim/api';
import { atSeconds } from '../../src/sim/core/time';
import { loadScenario } from '../../src/sim/scenario/load';
import { FAULT_IDS } from '../../src/sim/sim';
import { runShipped, shippedSim } from '../fixtures/scenario-run';

const FILE = 'source-ip.yaml';
const run = (fixes: string[] = [], sets: string[] = []): RunReport => runShipped(FILE, fixes, sets);
const logged = (r: RunReport, seen: string): number => r.totals[`server.client_ip{seen=${seen}}`] ?? 0;
const MALLORY = '198.51.100.66';

function journeyOf(r: RunReport, origin: string): RequestJourney {
  const journey = r.requests.find((j) => j.origin === origin && j.logged !== undefined);
  if (!journey) throw new Error(`no sampled request from ${origin}`);
  return journey;
}

describe(FILE, () => {
  const base = run();

  it('holds every expectation it ships: the shop never sees a client, and sees what mallory wrote', () => {
    expect(base.expect.filter((e) => !e.held)).toEqual([]);
    expect(logged(base, 'client')).toBe(0);
    // alice and bob are two thirds of the traffic, mallory one third.
    const all = logged(base, 'internal') + logged(base, 'forged');
    expect(logged(base, 'forged') / all).toBeGreaterThan(0.25);
    expect(logged(base, 'forged') / all).toBeLessThan(0.42);
  });

  it('shows each hop of a request: two translations before Traefik, a new connection after it', () => {
    const j = journeyOf(run(['xff-at-f5']), MALLORY);
    const where = j.hops.map((h) => h.where.split('/')[0]);
    expect(where).toEqual(['external', 'lb', 'node', 'pod', 'pod', 'node', 'pod']);
    const [client, lb, node, proxyIn, proxyOut, , shop] = j.hops;
    expect(client!.src.startsWith(`${MALLORY}:`)).toBe(true);
    expect(client!.xff).toBe('1.2.3.4');
    expect(lb!.src.startsWith('10.0.0.250:')).toBe(true);
    expect(lb!.xff).toBe(`1.2.3.4, ${MALLORY}`);
    expect(lb!.forwarded).toBe(`for=1.2.3.4, for=${MALLORY}`);
    // Under Cluster kube-proxy puts the node's own address in as the source.
    const nodeIp = node!.src.split(':')[0]!;
    expect(nodeIp).toMatch(/^10\.0\.0\.1[123]$/);
    expect(node!.what).toContain(`source NAT to ${nodeIp}`);
    expect(proxyIn!.xff).toBe(`1.2.3.4, ${MALLORY}, ${nodeIp}`);
    expect(proxyOut!.src.startsWith('10.244.')).toBe(true);
    expect(shop!.what).toContain('logged the client as 1.2.3.4');
    expect(j.logged).toEqual({ address: '1.2.3.4', verdict: 'forged' });
  });

  it('moves each fix the way it says', () => {
    const atF5 = run(['xff-at-f5']);
    const reset = run(['xff-reset']);
    const local = run(['etp-local']);
    const both = run(['etp-local', 'xff-reset']);
    for (const [fix, report] of Object.entries({ atF5, reset, local, both }))
      expect(
        report.expect.filter((e) => !e.held),
        fix,
      ).toEqual([]);
    // Appending gives alice and bob their addresses; mallory keeps lying either way.
    expect(logged(atF5, 'forged')).toBe(logged(base, 'forged'));
    expect(logged(atF5, 'client')).toBe(logged(base, 'internal'));
    expect(logged(reset, 'forged') + logged(reset, 'internal')).toBe(0);
    expect(journeyOf(reset, MALLORY).logged).toEqual({ address: MALLORY, verdict: 'client' });
    // Local: Traefik's peer is the load balancer, and no request crosses to another node before Traefik.
    expect(local.totals['ingress.peer{kind=node}']).toBe(0);
    expect(local.totals['ingress.peer{kind=lb}']).toBeGreaterThan(0);
    expect(journeyOf(local, '203.0.113.7').hops[2]!.what).not.toContain('source NAT');
    expect(logged(both, 'client')).toBeGreaterThan(0);
  });

  it('keeps the client address without SNAT only with the load balancer on the way back', () => {
    // SNAT off alone: the node answers from its own address, the client resets the SYN-ACK, nothing connects.
    const alone = run([], ['params.lb.snat=false']);
    expect(alone.totals['requests.ok']).toBe(0);
    expect(alone.drops['no_socket_reset']).toBeGreaterThan(0);
    const routed = run(['no-snat-gateway']);
    const direct = run(['no-snat-gateway', 'etp-local']);
    for (const [fix, report] of Object.entries({ routed, direct }))
      expect(
        report.expect.filter((e) => !e.held),
        fix,
      ).toEqual([]);
    expect(routed.totals['requests.failed']).toBe(0);
    expect(routed.totals['requests.ok']).toBe(base.totals['requests.ok']);
    // Every request reaches the shop with its shopper's address, and no hop wrote a header for it.
    expect(logged(direct, 'client') / direct.totals['requests.ok']!).toBe(1);
    // Routing back only alice's and bob's network: mallory's third of the requests meets the reset again.
    const partial = run(['no-snat-gateway'], ['topology.loadBalancers.0.returnRoutes=[203.0.113.0/24]']);
    expect(partial.totals['requests.failed']).toBe(logged(base, 'forged'));
    expect(partial.totals['requests.ok']).toBe(logged(base, 'internal'));
    const lb = journeyOf(direct, '203.0.113.7').hops[1]!;
    expect(lb.what).toContain('source kept');
    expect(lb.src.startsWith('203.0.113.7:')).toBe(true);
  });

  it('shows the return path: the load balancer lists the prefixes the nodes route via it, and each node has the route', () => {
    const rows = (sim: ReturnType<typeof shippedSim>, entity: string) => sim.inspect(entity)!.sections.flatMap((section) => section.rows);
    const routed = shippedSim(FILE, ['no-snat-gateway']);
    routed.runUntil(atSeconds(1));
    expect(rows(routed, 'lb/bigip')).toContainEqual(['nodes route back via it', '203.0.113.0/24, 198.51.100.0/24']);
    expect(rows(routed, 'node/node-b').some(([, value]) => value.includes('via 10.0.0.250 dev eth0'))).toBe(true);
    const direct = shippedSim(FILE);
    direct.runUntil(atSeconds(1));
    expect(rows(direct, 'lb/bigip')).toContainEqual(['nodes route back via it', 'nothing: they answer clients directly']);
  });

  it("probes the members the same with or without clients: SNAT off, the monitor's failures do not depend on client traffic", () => {
    // Probes come from the self IP, clients from their own addresses; masquerading both to a node's address must
    // still give each flow its own reply tuple, though alice's ports and the monitor's count from the same number.
    const busy = run([], ['params.lb.snat=false']);
    const idle = run([], ['params.lb.snat=false', 'topology.externalClients=[]']);
    expect(idle.totals['requests.sent'] ?? 0).toBe(0);
    expect(busy.totals['lb.probes.sent{vs=shop}']).toBe(idle.totals['lb.probes.sent{vs=shop}']);
    expect(busy.totals['lb.probes.failed{vs=shop}']).toBe(idle.totals['lb.probes.failed{vs=shop}']);
    expect(busy.totals['lb.probes.failed{vs=shop}']).toBe(0);
  });

  it('refuses return routes it cannot install, naming the field', () => {
    const problems = (sets: string[]): string[] => {
      const text = readFileSync(new URL(`../../public/scenarios/${FILE}`, import.meta.url), 'utf8');
      const loaded = loadScenario(text, FILE, { faultIds: FAULT_IDS, sets });
      return loaded.ok ? [] : loaded.errors;
    };
    const routes = 'topology.loadBalancers.0.returnRoutes';
    expect(problems([`${routes}=[203.0.113.7/24]`]).join('\n')).toMatch(/loadBalancers\[0\]\.returnRoutes\[0\]: host bits are set/);
    expect(problems([`${routes}=[203.0.113.0/24]`, 'topology.nodes.1.platform=cloud']).join('\n')).toMatch(/returnRoutes=.*: node-b is a cloud instance/);
    expect(problems([`${routes}=[0.0.0.0/0]`]).join('\n')).toMatch(/returnRoutes\[0\]: 0\.0\.0\.0\/0 holds node-a's addresses; route only the clients' networks/);
    expect(problems([`${routes}=[10.244.2.128/25]`]).join('\n')).toMatch(/returnRoutes\[0\]: 10\.244\.2\.128\/25 holds node-b's addresses/);
    const spare = '{name: spare, ip: 10.0.0.251, virtualServers: [{name: shop, vip: 192.0.2.11, port: 80, service: traefik}], returnRoutes: [203.0.113.0/24]}';
    expect(problems([`${routes}=[203.0.113.0/24]`, `topology.loadBalancers.1=${spare}`]).join('\n')).toMatch(
      /loadBalancers\[1\]\.returnRoutes\[0\]: the nodes already route 203\.0\.113\.0\/24 via load balancer bigip/,
    );
  });

  it('needs Traefik to trust the hop before it: trusting no one, it replaces the header the load balancer wrote', () => {
    const untrusting = run(['xff-reset'], ['topology.deployments.traefik.trustedIps=[]']);
    expect(logged(untrusting, 'client')).toBe(0);
    expect(untrusting.totals['ingress.xff.replaced']).toBeGreaterThan(0);
    expect(journeyOf(untrusting, '203.0.113.7').hops[3]!.what).toContain('not a trusted peer');
  });

  it('explains a forged address from the shop back to the client that wrote it', () => {
    const chain = base.why.find((c) => c.symptom.startsWith('forged client addresses'))!;
    expect(chain.steps[0]!.text).toMatch(/^logged an address the client wrote itself as the client for \d{1,3}(,\d{3})* requests/);
    expect(chain.steps.at(-1)).toEqual({ entity: 'external/mallory', text: `sent the request from ${MALLORY} with an X-Forwarded-For of its own: "1.2.3.4"` });
    expect(chain.steps.map((s) => s.entity.split('/')[0])).toContain('lb');
  });

  it('explains an internal address on request, from a sampled request logged that way', () => {
    const sim = shippedSim(FILE);
    sim.runUntil(atSeconds(20));
    const shops = ['pod/shop-0', 'pod/shop-1', 'pod/shop-2'].flatMap((pod) => sim.inspect(pod)!.requests);
    const sampled = shops.find((r) => r.logged?.verdict === 'internal')!;
    const server = sampled.hops.at(-1)!.where;
    const why = sim.whyOf('client_ip_internal', server)!;
    expect(why.steps[0]!.entity).toBe(server);
    expect(why.steps.some((s) => s.entity === 'lb/bigip' && s.text.includes('source NAT to 10.0.0.250'))).toBe(true);
    expect(why.steps.at(-1)!.text).toContain('with no X-Forwarded-For');
  });
});
