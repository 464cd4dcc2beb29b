import type { LogEvent, Severity } from '../../sim';

/** The event log's filters: entity text, event kind, and the least severity shown. */
export interface EventFilter {
  entity: string;
  /** A kind id, or '' for every kind. */
  kind: string;
  minSeverity: Severity;
}

export const SEVERITIES: readonly Severity[] = ['debug', 'info', 'warn', 'error'];

export const DEFAULT_FILTER: EventFilter = { entity: '', kind: '', minSeverity: 'info' };

export function matchesFilter(e: LogEvent, f: EventFilter): boolean {
  if (SEVERITIES.indexOf(e.severity) < SEVERITIES.indexOf(f.minSeverity)) return false;
  if (f.kind !== '' && e.kind !== f.kind) return false;
  const needle = f.entity.trim().toLowerCase();
  return needle === '' || e.entity.toLowerCase().includes(needle);
}

/** Kinds present in `events`, sorted, for the kind picker. */
export function kindsOf(events: readonly LogEvent[]): string[] {
  return [...new Set(events.map((e) => e.kind))].sort();
}
