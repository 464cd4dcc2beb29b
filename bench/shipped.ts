import { readScenarioSource } from '../src/cli/shipped';
import { loadScenario } from '../src/sim/scenario/load';
import type { Scenario } from '../src/sim/scenario/schema';
import { FAULT_IDS } from '../src/sim/sim';

/** A shipped scenario loaded as the CLI loads it, with `sets` overrides; throws naming what is wrong. */
export function loadShipped(id: string, sets: string[] = []): Scenario {
  const source = readScenarioSource(id);
  if (!source) throw new Error(`no shipped scenario "${id}"`);
  const loaded = loadScenario(source.text, source.fileName, { faultIds: FAULT_IDS, sets });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  return loaded.scenario;
}
