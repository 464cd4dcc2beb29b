import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FAULT_IDS, faultCatalog, loadScenario } from '../../src/sim';
import { textWithRun } from '../../src/ui/services/run-text';

const DEMO = readFileSync(new URL('../../public/scenarios/demo.yaml', import.meta.url), 'utf8');

describe("a run's additions written into its scenario's text", () => {
  it('sets the seed and each override, and adds the timeline additions then the hand-applied faults after its own entries, each with a note', async () => {
    const own = (parse(DEMO) as { timeline: unknown[] }).timeline.length;
    const text = await textWithRun(
      DEMO,
      {
        seed: 9,
        sets: ['topology.deployments.web.replicas=5'],
        timeline: [{ at: 15, fault: 'power-off-node', target: 'node/node-a' }],
        faults: [{ at: 2_500_000, fault: { fault: 'delete-pod', target: 'pod/web-1', params: { gracePeriodSeconds: 0 } } }],
      },
      'the shared run',
    );
    const loaded = loadScenario(text, 'demo.yaml', { faultIds: FAULT_IDS, faults: faultCatalog() });
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    expect(loaded.scenario.seed).toBe(9);
    expect(loaded.scenario.topology.deployments['web']!.replicas).toBe(5);
    expect(loaded.scenario.timeline.slice(own)).toMatchObject([
      { at: 15, fault: 'power-off-node', target: 'node/node-a', note: 'added to the timeline in the shared run' },
      { at: 2.5, fault: 'delete-pod', target: 'pod/web-1', params: { gracePeriodSeconds: 0 }, note: 'applied by hand in the shared run' },
    ]);
    // The scenario's own text stays as written around them: its comments are still there.
    expect(text).toContain(
      DEMO.split('\n')
        .find((line) => line.trimStart().startsWith('#'))!
        .trim(),
    );
  });

  it('leaves the text alone when the run adds nothing', async () => {
    expect(parse(await textWithRun(DEMO, {}, 'x'))).toEqual(parse(DEMO));
  });
});
