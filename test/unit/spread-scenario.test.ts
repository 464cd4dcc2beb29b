/**
 * The shipped "anti-affinity that does not spread" scenario (public/scenarios/spread.yaml): web's three replicas
 * land where kube-scheduler's rules put them (docs/sources/kubernetes-scheduling.md#why-a-rule-can-fail-to-spread),
 * and the switch of rack r3 takes down whatever runs there.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/sim/context';
import { loadScenario } from '../../src/sim/scenario/load';
import { FAULT_IDS } from '../../src/sim/sim';
import { World } from '../../src/sim/world';
import { runShipped, shippedSim } from '../fixtures/scenario-run';

const FILE = 'spread.yaml';
const TEXT = readFileSync(new URL(`../../public/scenarios/${FILE}`, import.meta.url), 'utf8');

/** The rack of each web replica at the start (the node's name where it has no rack label), sorted. */
function webRacks(fixes: string[]): string[] {
  const loaded = loadScenario(TEXT, FILE, { faultIds: FAULT_IDS, fixes });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const w = new World(createContext(loaded.scenario.seed), loaded.scenario);
  return w.workloads.pods
    .filter((p) => p.deployment === 'web' && p.active)
    .map((p) => p.host.labels['rack'] ?? p.host.name)
    .sort();
}

const total = (fixes: string[], metric: string, from: number, to: number) =>
  runShipped(FILE, fixes)
    .series[metric]!.values.slice(from, to)
    .reduce((a, b) => a + b, 0);

describe(FILE, () => {
  it('places web as each rule predicts', () => {
    // The zone is one room: the rule cannot tell nodes apart, and the fewest-pods rule picks r3's empty nodes.
    expect(webRacks([])).toEqual(['node-g', 'node-h', 'node-i']);
    // On rack, but r3's nodes are in no rack: nothing counts the pods on them.
    expect(webRacks(['right-key'])).toEqual(['node-g', 'node-h', 'node-i']);
    expect(webRacks(['label-every-node'])).toEqual(['r3', 'r3', 'r3']);
    expect(webRacks(['right-key', 'label-every-node'])).toEqual(['r1', 'r2', 'r3']);
    // A required rule never rejects a node without the key.
    expect(webRacks(['required-rule'])).toEqual(['node-g', 'node-h', 'node-i']);
    expect(webRacks(['required-rule', 'label-every-node'])).toEqual(['r1', 'r2', 'r3']);
    // DoNotSchedule refuses the unlabelled nodes: 1/1 over r1 and r2, then either (skew 1).
    expect(webRacks(['spread-constraint'])).toEqual(['r1', 'r1', 'r2']);
    expect(webRacks(['spread-constraint', 'label-every-node'])).toEqual(['r1', 'r2', 'r3']);
  });

  it('holds every expectation it ships, without fixes and with each combination it names', () => {
    for (const fixes of [[], ['right-key'], ['label-every-node'], ['right-key', 'label-every-node'], ['required-rule'], ['label-every-node', 'required-rule'], ['spread-constraint']]) {
      const failed = runShipped(FILE, fixes).expect.filter((e) => !e.held);
      expect(failed, fixes.join('+') || 'no fix').toEqual([]);
    }
  });

  it('after the switch fails: all requests fail with every replica in r3, some until clients re-home with one, none with none', () => {
    const failed = (fixes: string[]) => total(fixes, 'requests.failed', 20, 60);
    const ok = (fixes: string[]) => total(fixes, 'requests.ok', 26, 60);
    expect(ok([])).toBe(0);
    const oneInR3 = failed(['right-key', 'label-every-node']);
    expect(failed([])).toBeGreaterThan(5 * oneInR3);
    expect(oneInR3).toBeGreaterThan(0);
    expect(failed(['spread-constraint'])).toBe(0);
    // Each client's keep-alive connection lands on a live replica within a connect timeout (5 s) and stays there.
    expect(ok(['right-key', 'label-every-node'])).toBe(ok(['spread-constraint']));
  });

  it("shows r3's missing rack label in the inspector and the picture's data", () => {
    const labelsOf = (fixes: string[]) =>
      shippedSim(FILE, fixes)
        .inspect('node/node-g')!
        .sections.find((x) => x.title === 'Labels')!.rows;
    expect(labelsOf([])).toEqual([
      ['topology.kubernetes.io/zone', 'room-1'],
      ['kubernetes.io/hostname', 'node-g'],
    ]);
    expect(labelsOf(['label-every-node'])).toContainEqual(['rack', 'r3']);
    expect(
      shippedSim(FILE)
        .topology()
        .nodes.find((n) => n.name === 'node-a')!.labels,
    ).toEqual({ 'topology.kubernetes.io/zone': 'room-1', rack: 'r1', 'kubernetes.io/hostname': 'node-a' });
  });

  it('why: the lost packets lead to the cut-off node, its rack switch, and to the reason the scheduler put the pod there', () => {
    const textsOf = (fixes: string[]) => {
      const chain = runShipped(FILE, fixes).why.find((c) => c.symptom === 'packets lost at network/fabric')!;
      return chain.steps.map((step) => `${step.entity}: ${step.text}`);
    };
    const base = textsOf([]);
    expect(base[1]).toMatch(/^node\/node-[ghi]: was cut off at 20\.0 s: the top-of-rack switch of rack r3 failed$/);
    expect(base[2]).toMatch(
      /was scheduled onto node-[ghi]: 9 of 9 schedulable nodes passed its filters; 9 tied on its score \(0\).*every node that passed is in one topology\.kubernetes\.io\/zone/,
    );
    expect(textsOf(['right-key'])[2]).toMatch(/it has no rack label, so the rules on that key do not count it or the pods on it/);
  });
});
