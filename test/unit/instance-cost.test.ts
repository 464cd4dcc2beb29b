import { describe, expect, it } from 'vitest';
import { runText } from '../fixtures/scenario-run';

const SCENARIO = `
version: 1
id: cost
title: Instance cost
description: two cloud instances and a bare-metal node
seed: 1
duration: 2
topology:
  nodes:
    - { name: node-a, ip: 10.0.0.11, podCidr: 10.244.1.0/24, platform: cloud }
    - { name: node-b, ip: 10.0.0.12, podCidr: 10.244.2.0/24, platform: cloud, size: 2 }
    - { name: node-c, ip: 10.0.0.13, podCidr: 10.244.3.0/24 }
  deployments:
    web: { app: http-server, replicas: 1 }
`;

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
