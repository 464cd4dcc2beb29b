import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAULT_IDS } from '../../src/sim/faults/catalog';
import { scenarioJsonSchema, scenarioJsonSchemaText } from '../../src/sim/scenario/json-schema';
import { loadScenario } from '../../src/sim/scenario/load';

const PUBLIC = new URL('../../public/', import.meta.url);
const SCENARIOS = new URL('scenarios/', PUBLIC);

interface IndexEntry {
  file: string;
  id: string;
  title: string;
}

describe('public/scenario.schema.json', () => {
  it('is exactly what `npm run gen:schema` writes now', () => {
    const onDisk = readFileSync(new URL('scenario.schema.json', PUBLIC), 'utf8');
    expect(onDisk, 'stale: run `npm run gen:schema`').toBe(scenarioJsonSchemaText());
  });

  it('describes the input side: keys with defaults are optional', () => {
    const schema = scenarioJsonSchema() as {
      $id: string;
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, { default?: unknown }>;
    };
    expect(schema.$id).toBe('urn:netmortem:scenario:v1');
    expect([...schema.required].sort()).toEqual(['description', 'duration', 'id', 'seed', 'title', 'topology', 'version']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties['timeline']?.default).toEqual([]);
  });
});

describe('public/scenarios/index.json', () => {
  const index = JSON.parse(readFileSync(new URL('index.json', SCENARIOS), 'utf8')) as { scenarios: IndexEntry[] };

  it('lists exactly the .yaml files in public/scenarios', () => {
    const files = readdirSync(SCENARIOS)
      .filter((f) => f.endsWith('.yaml'))
      .sort();
    expect(index.scenarios.map((s) => s.file).sort()).toEqual(files);
    expect(Object.keys(index)).toEqual(['scenarios']);
    for (const entry of index.scenarios) expect(Object.keys(entry).sort()).toEqual(['file', 'id', 'title']);
  });

  it.each(index.scenarios)('matches the id and title inside $file, which loads with the fault catalog', (entry) => {
    const result = loadScenario(readFileSync(new URL(entry.file, SCENARIOS), 'utf8'), entry.file, { faultIds: FAULT_IDS });
    expect(result.ok, result.ok ? '' : result.errors.join('\n')).toBe(true);
    if (!result.ok) return;
    expect(result.scenario.id).toBe(entry.id);
    expect(result.scenario.title).toBe(entry.title);
  });

  it('has unique ids', () => {
    const ids = index.scenarios.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('lets every shipped fix apply cleanly', () => {
    for (const entry of index.scenarios) {
      const text = readFileSync(new URL(entry.file, SCENARIOS), 'utf8');
      const base = loadScenario(text, entry.file);
      if (!base.ok) throw new Error(base.errors.join('\n'));
      const fixes = Object.keys(base.scenario.fixes);
      const all = loadScenario(text, entry.file, { faultIds: FAULT_IDS, fixes });
      expect(all.ok, all.ok ? '' : all.errors.join('\n')).toBe(true);
    }
  });
});
