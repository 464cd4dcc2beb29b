/** The service-discovery faults: a slow or partitioned ZooKeeper, and the Envoy rollout of a client deployment. */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/sim/api';
import { chooseProxy } from '../../src/sim/discovery/proxy-choice';
import { meshScenario } from '../fixtures/mesh-scenario';
import { fault, type TimelineInput } from '../fixtures/scenario-builder';
import { runText } from '../fixtures/scenario-run';

const CLIENTS = 40;

function scenario(timeline: TimelineInput[], duration = 60): string {
  return meshScenario({ id: 'faults-mesh', seed: 3, duration, backends: 60, clients: CLIENTS, timeline });
}

const series = (r: RunReport, metric: string): number[] => r.series[metric]!.values;
const peak = (r: RunReport, metric: string, from: number, to: number): number => Math.max(...series(r, metric).slice(from, to));

describe('slow-zookeeper', () => {
  it('makes the same reads take longer while it lasts', () => {
    const change = fault(20, 'scale-deployment', 'deployment/search', { replicas: 61 });
    const plain = runText(scenario([change])).report;
    const slow = runText(scenario([change, fault(19, 'slow-zookeeper', 'zookeeper/ensemble', { factor: 100, durationSeconds: 30 })])).report;
    // One change: every watcher reads 1 + 61 nodes either way; only the time differs.
    expect(slow.totals['zk.reads']).toBe(plain.totals['zk.reads']);
    expect(plain.totals['zk.reads']).toBe(CLIENTS * 62);
    expect(peak(slow, 'zk.read.seconds.p50', 19, 40)).toBeGreaterThan(5 * peak(plain, 'zk.read.seconds.p50', 19, 40));
  });
});

describe('partition-zookeeper', () => {
  it('expires every session not heard from within the timeout; announcers register again after the heal', () => {
    const short = runText(scenario([fault(10, 'partition-zookeeper', 'zookeeper/ensemble', { durationSeconds: 5 })])).report;
    expect(short.totals['zk.sessions.expired']).toBe(0);
    const long = runText(scenario([fault(10, 'partition-zookeeper', 'zookeeper/ensemble', { durationSeconds: 20 })])).report;
    // Sixty announcers and forty clients, one session each.
    expect(long.totals['zk.sessions.expired']).toBe(100);
    // Each expiry deletes a registration, and each announcer writes a new one once it can: sixty changes each way.
    expect(long.totals['zk.writes']! - short.totals['zk.writes']!).toBe(60);
    // The clients keep their last lists while cut off, so nothing fails during the partition. After the heal the
    // registrations have new names: a client that reads before the announcers are back, or before HAProxy restarts
    // with the new names, has no server to send to for a moment.
    const failed = series(long, 'requests.failed');
    expect(failed.slice(0, 30).reduce((a, b) => a + b, 0)).toBe(0);
    expect(long.totals['requests.failed']).toBeGreaterThan(0);
    expect(long.totals['requests.failed{reason=no_server}']).toBe(long.totals['requests.failed']);
    expect(short.totals['requests.failed']).toBe(0);
  });
});

describe('set-envoy-rollout', () => {
  const names = Array.from({ length: CLIENTS }, (_, i) => `api-${i}`);

  it('sends the pods whose names hash below the share to Envoy once the deployment restarts, and the kill switch sends them back', () => {
    const r = runText(
      scenario([fault(5, 'set-envoy-rollout', 'deployment/api', { percent: 50 }), fault(60, 'set-envoy-rollout', 'deployment/api', { percent: 50, killSwitch: true })], 120),
    ).report;
    const envoys = series(r, 'mesh.pods.envoy');
    expect(envoys[3]).toBe(0);
    // A restart names new pods (api-40 …), so the count follows the hash of the names the rollout gave them.
    const expected = Array.from({ length: CLIENTS }, (_, i) => `api-${CLIENTS + i}`).filter((n) => chooseProxy(n, 50, false) === 'envoy').length;
    expect(envoys[55]).toBe(expected);
    expect(expected).toBeGreaterThan(CLIENTS / 4);
    expect(envoys.at(-1)).toBe(0);
    expect(names.filter((n) => chooseProxy(n, 50, false) === 'envoy').length).toBeLessThan(CLIENTS);
  });

  it('refuses a deployment that runs no mesh client, naming the target', () => {
    const { sim, report } = runText(scenario([fault(5, 'set-envoy-rollout', 'deployment/search')]));
    const failed = sim.eventsSince(0).find((e) => e.kind === 'fault.failed');
    expect(failed?.message).toBe('timeline[0] set-envoy-rollout: target: deployment "search" runs no mesh client');
    expect(report.totals['mesh.pods.envoy']).toBe(0);
  });
});
