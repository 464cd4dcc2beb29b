import { basename, join } from 'node:path';
import { variantLoad, type SweepHeader, type SweepRow } from '../sim';
import { MAX_LINK_CHARS, shareQuery, type SharedRun } from '../state/share-link';
import { readSource } from './prepare';
import { SCENARIO_DIR, shippedScenarios } from './shipped';

/**
 * The rows, each with a link that replays its run in the app served at `app` (share links carry the setting's
 * overrides and the faults added to the timeline), paused where its window ends; a shipped scenario goes by its file
 * name, a scenario file inside the link. A link over MAX_LINK_CHARS is left out: the row's command replays it still.
 */
export function withLinks(app: string, header: SweepHeader, rows: readonly SweepRow[]): SweepRow[] {
  // Read as the sweep read it: a file that exists before a shipped scenario of that name.
  const source = readSource(header.source);
  const shipped = shippedScenarios().find((s) => join(SCENARIO_DIR, s.file) === source.fileName);
  const scenario: SharedRun['scenario'] = shipped ? { file: shipped.file } : { name: basename(source.fileName), text: source.text };
  const base = { scenario: header.source, seed: header.seed, fixes: header.fixes, sets: header.sets, timeline: [], at: header.at, for: header.for };
  return rows.map((row) => {
    const { sets, timeline } = variantLoad(base, row);
    const query = shareQuery({ scenario, seed: row.seed, fixes: row.fixes, faults: [], sets, timeline, t: Math.round((row.at + row.for) * 1e6) });
    const link = `${app}?${query}`;
    return link.length > MAX_LINK_CHARS ? row : { ...row, link };
  });
}
