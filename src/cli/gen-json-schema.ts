import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { scenarioJsonSchemaText } from '../sim';

// Editors use this file to validate and complete scenario YAML; test/unit/scenario-index.test.ts keeps it current.
const target = fileURLToPath(new URL('../../public/scenario.schema.json', import.meta.url));
writeFileSync(target, scenarioJsonSchemaText());
console.log(`wrote ${target}`);
