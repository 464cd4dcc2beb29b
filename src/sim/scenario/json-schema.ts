import { z } from './zod';
import { scenarioSchema, SCENARIO_VERSION } from './schema';

export const SCENARIO_SCHEMA_ID = `urn:netmortem:scenario:v${SCENARIO_VERSION}`;

/**
 * JSON Schema (draft 2020-12) of the scenario file as written, so keys with defaults are optional.
 * Cross-field checks (references, addresses, times) exist only in the loader.
 */
export function scenarioJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(scenarioSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: SCENARIO_SCHEMA_ID,
    title: `Netmortem scenario, version ${SCENARIO_VERSION}`,
    ...rest,
  };
}

/** The text written to public/scenario.schema.json. */
export function scenarioJsonSchemaText(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}
