/** One shipped scenario as listed in `public/scenarios/index.json`. */
export interface ScenarioEntry {
  file: string;
  id: string;
  title: string;
}

/** Reads `{"scenarios": [{file, id, title}]}`; throws an Error naming the first bad field. */
export function parseScenarioIndex(data: unknown): ScenarioEntry[] {
  const list = (data as { scenarios?: unknown } | null)?.scenarios;
  if (!Array.isArray(list)) throw new Error('scenarios: expected a list');
  return list.map((item: unknown, i) => {
    const entry = item as Partial<Record<keyof ScenarioEntry, unknown>> | null;
    if (typeof entry?.file !== 'string' || entry.file === '') throw new Error(`scenarios[${i}].file: expected a file name`);
    return {
      file: entry.file,
      id: typeof entry.id === 'string' ? entry.id : entry.file,
      title: typeof entry.title === 'string' ? entry.title : entry.file,
    };
  });
}
