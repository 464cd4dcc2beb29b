import { describe, expect, it } from 'vitest';
import { httpServer, node, scenarioText } from '../fixtures/scenario-builder';
import { runText } from '../fixtures/scenario-run';

const SCENARIO = scenarioText({
  id: 'cost',
  title: 'Instance cost',
  description: 'two cloud instances and a bare-metal node',
  duration: 2,
  topology: { nodes: [node('a', { platform: 'cloud' }), node('b', { platform: 'cloud', size: 2 }), node('c')], deployments: { web: httpServer(1) } },
});

function cost(sets: string[]): number {
  return runText(SCENARIO, sets).report.totals['cluster.cost_per_hour']!;
}

describe('what the instances cost', () => {
  it('is the cloud instances’ sizes times the hourly rate; bare metal is not counted', () => {
    expect(cost([])).toBeCloseTo(3 * 0.768, 9);
    expect(cost(['params.instance.hourlyCost=1'])).toBe(3);
    // A fix that doubles every instance doubles the bill along with the allowances.
    expect(cost(['topology.nodes.0.size=2', 'topology.nodes.1.size=4'])).toBeCloseTo(6 * 0.768, 9);
  });
});
