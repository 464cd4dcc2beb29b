/**
 * The scheduler's node choice (src/sim/k8s/scheduling.ts) against the rules of kube-scheduler's InterPodAffinity and
 * PodTopologySpread plugins (docs/sources/kubernetes-scheduling.md), each with its prediction, then through the
 * scenario loader and the workloads that place a deployment's pods.
 */
import { describe, expect, it } from 'vitest';
import { chooseNode, NO_RULES, nodeLabels, type NodeView, type PlacementRules } from '../../src/sim/k8s/scheduling';
import { loadScenario } from '../../src/sim/scenario/load';
import { FAULT_IDS, faultCatalog } from '../../src/sim/sim';
import { fault, httpServer, nodes, scenarioText, type DeploymentInput, type NodeFields } from '../fixtures/scenario-builder';
import { runText, worldOf } from '../fixtures/scenario-run';

/** A node in `rack` (none when null) with `own` pods of the deployment and `load` pods in all. */
function n(name: string, rack: string | null, own = 0, load = own, more: Partial<NodeView> = {}): NodeView {
  return { labels: nodeLabels(name, rack === null ? {} : { rack }), own, terminating: 0, load, candidate: true, counted: true, ...more };
}

const rules = (r: Partial<PlacementRules>): PlacementRules => ({ ...NO_RULES, ...r });

describe('without rules', () => {
  it('takes the node with the fewest pods, the first of equals', () => {
    expect(chooseNode([n('a', 'r1', 0, 3), n('b', 'r1', 0, 1), n('c', 'r2', 0, 1)], NO_RULES)).toBe(1);
  });

  it('skips a node that may not take the pod, and finds none when no node may', () => {
    expect(chooseNode([n('a', 'r1', 0, 0, { candidate: false }), n('b', 'r1', 0, 5)], NO_RULES)).toBe(1);
    expect(chooseNode([n('a', 'r1', 0, 0, { candidate: false })], NO_RULES)).toBe(-1);
  });
});

describe('required pod anti-affinity', () => {
  const onRack = rules({ required: [{ topologyKey: 'rack' }] });

  it('filters every node of a rack that already holds a pod, however empty the node', () => {
    // a holds the pod; b shares its rack and is empty; c, in another rack, is busy: only c passes.
    expect(chooseNode([n('a', 'r1', 1, 1), n('b', 'r1', 0, 0), n('c', 'r2', 0, 9)], onRack)).toBe(2);
  });

  it('leaves the pod pending when every rack holds one', () => {
    expect(chooseNode([n('a', 'r1', 1), n('b', 'r2', 1)], onRack)).toBe(-1);
  });

  it('passes a node without the key, and does not count the pods on it', () => {
    // Two pods already sit on unlabelled c; unlabelled d still passes, and so does rack r1's empty a.
    const views = [n('a', 'r1', 0, 2), n('c', null, 2, 2), n('d', null, 0, 0)];
    expect(chooseNode(views, onRack)).toBe(2);
  });

  it('counts a terminating pod: it is still bound to its node', () => {
    expect(chooseNode([n('a', 'r1', 0, 0, { terminating: 1 }), n('b', 'r2', 0, 3)], onRack)).toBe(1);
  });

  it('on kubernetes.io/hostname: one pod per node', () => {
    const views = [n('a', 'r1', 1, 1), n('b', 'r1', 0, 4)];
    expect(chooseNode(views, rules({ required: [{ topologyKey: 'kubernetes.io/hostname' }] }))).toBe(1);
  });
});

describe('preferred pod anti-affinity', () => {
  it('outweighs the fewest-pods rule: the pod goes to the rack without one, onto a busier node', () => {
    const views = [n('a', 'r1', 1, 1), n('b', 'r1', 0, 0), n('c', 'r2', 0, 5)];
    expect(chooseNode(views, rules({ preferred: [{ weight: 1, topologyKey: 'rack' }] }))).toBe(2);
  });

  it('when every rack is equally penalised, leaves the choice to the fewest-pods rule', () => {
    const views = [n('a', 'r1', 1, 3), n('b', 'r2', 1, 1)];
    expect(chooseNode(views, rules({ preferred: [{ weight: 100, topologyKey: 'rack' }] }))).toBe(1);
  });

  it('never filters: with one rack, all pods pack into it', () => {
    expect(chooseNode([n('a', 'r1', 2, 2), n('b', 'r1', 1, 1)], rules({ preferred: [{ weight: 100, topologyKey: 'rack' }] }))).toBe(1);
  });

  it('sees no rack on unlabelled nodes: they score best, however many of its pods they hold', () => {
    // c and d carry no rack label and hold two pods; labelled a holds one and is penalised.
    const views = [n('a', 'r1', 1, 1), n('c', null, 1, 1), n('d', null, 1, 1)];
    expect(chooseNode(views, rules({ preferred: [{ weight: 100, topologyKey: 'rack' }] }))).toBe(1);
  });

  it('weighs terms: a host holding one pod beats an empty host in a rack holding two, when the rack weighs more', () => {
    // a: −10 (its host) − 50 (its rack, one pod) = −60; b: −50 × 2 (its rack) = −100.
    const views = [n('a', 'r2', 1, 1), n('b', 'r1', 0, 0), n('x', 'r1', 2, 2, { candidate: false })];
    const r = rules({
      preferred: [
        { weight: 10, topologyKey: 'kubernetes.io/hostname' },
        { weight: 50, topologyKey: 'rack' },
      ],
    });
    expect(chooseNode(views, r)).toBe(0);
  });
});

describe('topology spread constraints, DoNotSchedule', () => {
  const spread = (maxSkew: number) => rules({ spread: [{ maxSkew, topologyKey: 'rack', whenUnsatisfiable: 'DoNotSchedule' }] });

  it('with racks at 1/1/0 and maxSkew 1, only the empty rack passes', () => {
    const views = [n('a', 'r1', 1, 1), n('b', 'r2', 1, 1), n('c', 'r3', 0, 7)];
    expect(chooseNode(views, spread(1))).toBe(2);
  });

  it('with maxSkew 2, any rack passes and the fewest-pods rule picks', () => {
    const views = [n('a', 'r1', 1, 1), n('b', 'r2', 1, 1), n('c', 'r3', 0, 7)];
    expect(chooseNode(views, spread(2))).toBe(0);
  });

  it('does not count a terminating pod', () => {
    // r1's only pod is terminating: both racks are at 0, and the emptier node in r1 takes the pod.
    expect(chooseNode([n('a', 'r1', 0, 0, { terminating: 1 }), n('b', 'r2', 0, 3)], spread(1))).toBe(0);
  });

  it('excludes a node without the key, even when it is the only empty one', () => {
    const views = [n('a', 'r1', 1, 1), n('c', null, 0, 0)];
    expect(chooseNode(views, spread(1))).toBe(0);
    expect(chooseNode([n('c', null, 0, 0)], spread(1))).toBe(-1);
  });

  it('takes the global minimum over the nodes that carry the key: pods on unlabelled nodes do not count', () => {
    // r1 holds 1, r2 holds 0; the 5 pods on unlabelled c count nowhere, so r1 is at skew 2 and only r2 passes.
    const views = [n('a', 'r1', 1, 1), n('b', 'r2', 0, 3), n('c', null, 5, 5)];
    expect(chooseNode(views, spread(1))).toBe(1);
  });

  it('counts a cordoned node of the selector into its domain: its pods and its rack are seen', () => {
    // r2's only node is cordoned and empty: the minimum is 0, so r1 (holding 1) is at skew 2 and the pod waits.
    const views = [n('a', 'r1', 1, 1), n('b', 'r2', 0, 0, { candidate: false })];
    expect(chooseNode(views, spread(1))).toBe(-1);
  });
});

describe('topology spread constraints, ScheduleAnyway', () => {
  const soft = rules({ spread: [{ maxSkew: 1, topologyKey: 'rack', whenUnsatisfiable: 'ScheduleAnyway' }] });

  it('prefers the rack with fewer pods over the emptier node', () => {
    const views = [n('a', 'r1', 2, 2), n('b', 'r2', 1, 6)];
    expect(chooseNode(views, soft)).toBe(1);
  });

  it('scores a node without the key lowest, but still places there when nothing else fits', () => {
    expect(chooseNode([n('c', null, 0, 0), n('a', 'r1', 3, 3)], soft)).toBe(1);
    expect(chooseNode([n('c', null, 0, 0)], soft)).toBe(0);
  });
});

const load = (text: string) => loadScenario(text, 'spread.yaml', { faultIds: FAULT_IDS, faults: faultCatalog() });

/** Six nodes in three racks of two (a, b in r1; c, d in r2; e, f in r3); `unlabelled` nodes carry no rack. */
function racked(web: DeploymentInput, unlabelled: number[] = [], busy: DeploymentInput | null = null): string {
  return scenarioText({
    id: 'spread',
    duration: 1,
    topology: {
      nodes: nodes(6, (i): NodeFields => ({ labels: unlabelled.includes(i) ? {} : { rack: `r${Math.floor(i / 2) + 1}` } })),
      // busy comes first, so its pods are in place when web's are scheduled.
      deployments: busy ? { busy, web } : { web },
    },
  });
}

function racksOf(text: string, deployment = 'web'): string[] {
  const { w } = worldOf(text);
  return w.workloads.pods.filter((p) => p.deployment === deployment && p.active).map((p) => p.host.labels['rack'] ?? p.host.name);
}

describe('placing a deployment', () => {
  // busy fills racks r1 and r2 (two pods a node), so the fewest-pods rule alone sends web to r3.
  const busy = httpServer(8, { nodes: ['node-a', 'node-b', 'node-c', 'node-d'] });

  it('without rules packs into the emptiest rack', () => {
    expect(racksOf(racked(httpServer(2), [], busy))).toEqual(['r3', 'r3']);
  });

  it('with required anti-affinity on the rack, one pod a rack', () => {
    expect(racksOf(racked(httpServer(3, { podAntiAffinity: { required: [{ topologyKey: 'rack' }] } }), [], busy)).sort()).toEqual(['r1', 'r2', 'r3']);
  });

  it('with preferred anti-affinity on the hostname, still in one rack', () => {
    expect(racksOf(racked(httpServer(2, { podAntiAffinity: { preferred: [{ weight: 100, topologyKey: 'kubernetes.io/hostname' }] } }), [], busy))).toEqual(['r3', 'r3']);
  });

  it('with preferred anti-affinity on the rack but r3 unlabelled, packs into r3', () => {
    const web = httpServer(2, { podAntiAffinity: { preferred: [{ weight: 100, topologyKey: 'rack' }] } });
    expect(racksOf(racked(web, [4, 5], busy))).toEqual(['node-e', 'node-f']);
    expect(racksOf(racked(web, [], busy)).sort()).toEqual(['r1', 'r3']);
  });

  it('a fourth pod under a required rule over three racks waits, and the log says why', () => {
    const { ctx } = worldOf(racked(httpServer(4, { podAntiAffinity: { required: [{ topologyKey: 'rack' }] } })));
    const waiting = ctx.log.since(0).filter((e) => e.kind === 'pod.unschedulable');
    expect(waiting.map((e) => e.message)).toEqual(['1 pod(s) wait: 0/6 nodes are available: 6 with a pod of the deployment in the same rack (required anti-affinity)']);
  });
});

describe('a pod that waits', () => {
  it('is placed when the terminating pod that held its domain is gone, as the scheduler retries on a deletion', () => {
    // One pod per node on two nodes; web-0's preStop keeps it terminating (and on node-a) until 11 s.
    const web = httpServer(2, { preStopSeconds: 10, podAntiAffinity: { required: [{ topologyKey: 'kubernetes.io/hostname' }] } });
    const text = scenarioText({ id: 'wait', duration: 20, topology: { nodes: nodes(2), deployments: { web } }, timeline: [fault(1, 'delete-pod', 'pod/web-0')] });
    const { sim } = runText(text);
    const events = sim.eventsSince(0);
    const waited = events.filter((e) => e.kind === 'pod.unschedulable');
    expect(waited.map((e) => e.message)).toEqual(['1 pod(s) wait: 0/2 nodes are available: 2 with a pod of the deployment in the same kubernetes.io/hostname (required anti-affinity)']);
    const created = events.filter((e) => e.kind === 'pod.created' && e.t > 0);
    expect(created).toHaveLength(1);
    expect(created[0]!.message).toMatch(/^created on node-a /);
    const gone = events.find((e) => e.kind === 'pod.gone' && e.entity === 'pod/web-0')!;
    expect(created[0]!.t).toBe(gone.t);
  });
});

describe('the loader', () => {
  it('refuses a topology key no node carries, naming the field', () => {
    const result = load(racked(httpServer(2, { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'rak', whenUnsatisfiable: 'DoNotSchedule' }] })));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors.join('\n')).toContain('topology.deployments.web.topologySpreadConstraints[0].topologyKey: no node carries the label "rak" (did you mean "rack"?)');
  });

  it("refuses kubernetes.io/hostname among a node's labels, as it is set from the name", () => {
    const text = scenarioText({ id: 'x', duration: 1, topology: { nodes: nodes(1, { labels: { 'kubernetes.io/hostname': 'other' } }), deployments: { web: httpServer(1) } } });
    const result = load(text);
    expect(!result.ok && result.errors.join('\n')).toContain(`topology.nodes[0].labels["kubernetes.io/hostname"]: set from the node's name (node-a); leave it out`);
  });

  it('refuses a rack that stands in two rooms, naming the second node', () => {
    const text = scenarioText({
      id: 'x',
      duration: 1,
      topology: { nodes: nodes(3, (i): NodeFields => ({ rack: 'r1', room: i === 2 ? 'room-2' : 'room-1' })), deployments: { web: httpServer(1) } },
    });
    const result = load(text);
    expect(!result.ok && result.errors).toEqual(['topology.nodes[2].room: rack r1 stands in room-1 (node-a); node-c puts it in room-2']);
    // Racks of one name in one room, and machines in no rack, load.
    const fine = scenarioText({
      id: 'x',
      duration: 1,
      topology: { nodes: nodes(3, (i): NodeFields => (i === 2 ? {} : { rack: 'r1', room: 'room-1' })), deployments: { web: httpServer(1) } },
    });
    expect(load(fine).ok).toBe(true);
  });

  it('refuses a label key that is not one', () => {
    const text = scenarioText({ id: 'x', duration: 1, topology: { nodes: nodes(1, { labels: { '-rack': 'r1' } }), deployments: { web: httpServer(1) } } });
    const result = load(text);
    expect(!result.ok && result.errors.join('\n')).toMatch(/topology\.nodes\[0\]\.labels.*must be a label key/);
  });
});
