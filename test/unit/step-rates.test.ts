import { describe, expect, it } from 'vitest';
import { atSeconds } from '../../src/sim/core/time';
import { shippedSim } from '../fixtures/scenario-run';

describe('live rates over the last metrics step', () => {
  it("are the charts' latest point for every drop reason, second by second, and zero once drops stop", () => {
    const sim = shippedSim('demo.yaml');
    let stepsWithDrops = 0;
    let quietAfterDrops = 0;
    for (let second = 1; second <= 40; second++) {
      sim.runUntil(atSeconds(second));
      const live = sim.live();
      expect(live.step).toEqual({ end: atSeconds(second), seconds: 1 });
      const series = sim.seriesSince(sim.sampleCount() - 1);
      const latest = (name: string): number => {
        const i = series.names.indexOf(name);
        return i < 0 ? 0 : series.values[i * series.count + series.count - 1]!;
      };
      let total = 0;
      live.reasons.forEach((reason, r) => {
        let shown = 0;
        for (let i = r; i < live.drops.length; i += live.reasons.length) shown += live.drops[i]!;
        expect(shown, `${reason} at ${second} s`).toBe(latest(`packets.dropped{reason=${reason}}`) + latest(`requests.dropped{reason=${reason}}`));
        total += shown;
      });
      if (total > 0) stepsWithDrops++;
      else if (stepsWithDrops > 0) quietAfterDrops++;
      for (let i = 2; i < live.traffic.length; i += 4) expect(live.traffic[i]).toBeGreaterThan(0);
    }
    // The demo deletes web-0 at 20 s: its clients' packets are dropped for a while, then no more.
    expect(stepsWithDrops).toBeGreaterThan(0);
    expect(quietAfterDrops).toBeGreaterThan(0);
  });
});
