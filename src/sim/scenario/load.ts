import type { FaultDescriptor } from '../api';
import { parseTarget, resolveParams } from '../faults/fault';
import { issuesFromZod, formatIssue, type ScenarioIssue } from './issues';
import { parseSet, setPath } from './overrides';
import { parseScenarioText } from './parse-text';
import { boundProblems, echo, fixesProblem, MAX_SUGGESTION_COMPARISONS } from './limits';
import { formatPath, parsePath, pathKey, samePath, type PathSegment } from './path';
import { scenarioSchema, type Scenario } from './schema';
import { didYouMean, withSuggestionBudget } from './suggest';

export interface LoadOptions {
  /** Replaces the scenario's seed (uint32). */
  seed?: number;
  /** Names of the scenario's fixes to apply, in order. */
  fixes?: string[];
  /** `path=value` overrides, applied after the fixes. */
  sets?: string[];
  /** Known fault ids; when given, timeline faults outside this list are errors. */
  faultIds?: string[];
  /** The fault catalog; when given, each timeline entry's target kind and params are checked against its fault. */
  faults?: readonly FaultDescriptor[];
}

export type LoadResult = { ok: true; scenario: Scenario; appliedFixes: string[] } | { ok: false; errors: string[] };

/** An assignment made on top of the file, so errors at its path can name where it came from. */
interface Assignment {
  label: string;
  path: PathSegment[];
}

type Validated = { ok: true; scenario: Scenario } | { ok: false; issues: ScenarioIssue[] };

/**
 * Parses, validates, applies fixes then `--set` overrides, validates again and applies the seed override.
 * Never throws: every problem comes back as a `path: problem` string.
 */
export function loadScenario(text: string, fileName: string, options: LoadOptions = {}): LoadResult {
  try {
    return withSuggestionBudget(MAX_SUGGESTION_COMPARISONS, () => load(text, fileName, options));
  } catch (error) {
    return fail([`(root): internal error while loading: ${(error as Error).message}`]);
  }
}

function load(text: string, fileName: string, options: LoadOptions): LoadResult {
  const parsed = parseScenarioText(text, fileName);
  if (!parsed.ok) return parsed;
  const base = validate(parsed.value, options);
  if (!base.ok) return fail(base.issues.map(formatIssue));
  const tooMany = fixesProblem(Object.keys(base.scenario.fixes).length, text.length);
  if (tooMany !== undefined) return fail([tooMany]);
  const fixErrors = checkFixes(base.scenario, options);
  if (fixErrors.length > 0) return fail(fixErrors);

  const errors: string[] = [];
  const assignments: Assignment[] = [];
  let doc: unknown = base.scenario;
  const appliedFixes = [...new Set(options.fixes ?? [])];
  for (const name of appliedFixes) {
    const fix = base.scenario.fixes[name];
    if (fix === undefined) {
      errors.push(`fixes: ${unknownFix(name, Object.keys(base.scenario.fixes))}`);
      continue;
    }
    for (const [key, value] of Object.entries(fix.set)) {
      const path = parsePath(key);
      doc = setPath(doc, path, value);
      assignments.push({ label: formatPath(['fixes', name, 'set', key]), path });
    }
  }
  for (const arg of options.sets ?? []) {
    try {
      const { path, value } = parseSet(arg);
      doc = setPath(doc, path, value);
      assignments.push({ label: `--set ${arg}`, path });
    } catch (error) {
      errors.push(`--set ${arg}: ${(error as Error).message}`);
    }
  }
  if (errors.length > 0) return fail(errors);

  let scenario = base.scenario;
  if (assignments.length > 0) {
    const again = validate(doc, options);
    if (!again.ok) return fail(attribute(again.issues, assignments));
    scenario = again.scenario;
  }
  if (options.seed !== undefined) {
    const seed = options.seed;
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
      return fail([`seed: override ${String(seed)} must be an integer from 0 to 4294967295`]);
    }
    scenario = { ...scenario, seed };
  }
  return { ok: true, scenario, appliedFixes };
}

/**
 * A loaded scenario with more `--set` overrides on top, checked again: what a load with them after its own gives.
 * Throws naming each override that leaves it invalid.
 */
export function withSets(scenario: Scenario, sets: readonly string[]): Scenario {
  let doc: unknown = scenario;
  const assignments: Assignment[] = [];
  for (const arg of sets) {
    const { path, value } = parseSet(arg);
    doc = setPath(doc, path, value);
    assignments.push({ label: `--set ${arg}`, path });
  }
  const again = validate(doc, {});
  if (!again.ok) throw new Error(attribute(again.issues, assignments).join('; '));
  return again.scenario;
}

/** Every failure leaves through here, so each consumer (CLI, editor, banner) gets a bounded list. */
function fail(errors: string[]): LoadResult {
  return { ok: false, errors: boundProblems(errors) };
}

function validate(value: unknown, options: Pick<LoadOptions, 'faultIds' | 'faults'>): Validated {
  const { faultIds, faults } = options;
  const result = scenarioSchema.safeParse(value, { reportInput: true });
  // Unknown faults are reported even beside structural errors, so one round of edits can fix both.
  const faultIssues = faultIds ? checkFaults(value, faultIds) : [];
  if (!result.success) {
    const issues = issuesFromZod(result.error.issues, scenarioSchema);
    const taken = new Set(issues.map((issue) => pathKey(issue.path)));
    const fresh = faultIssues.filter((f) => !taken.has(pathKey(f.path)));
    return { ok: false, issues: [...issues, ...fresh] };
  }
  if (faults) faultIssues.push(...checkFaultUse(result.data, faults));
  return faultIssues.length > 0 ? { ok: false, issues: faultIssues } : { ok: true, scenario: result.data };
}

/** Each timeline entry's target kind and params, checked as applying the fault would check them. */
function checkFaultUse(scenario: Scenario, faults: readonly FaultDescriptor[]): ScenarioIssue[] {
  const issues: ScenarioIssue[] = [];
  scenario.timeline.forEach((entry, i) => {
    const fault = faults.find((f) => f.id === entry.fault);
    if (!fault) return;
    for (const check of [() => parseTarget(fault, entry.target), () => resolveParams(fault, entry.params)]) {
      try {
        check();
      } catch (error) {
        // The fault's messages start with the field they are about: `target: …` or `params.<name>: …`.
        const [field = '', ...rest] = (error as Error).message.split(': ');
        issues.push({ path: ['timeline', i, ...field.split('.')], message: rest.join(': ') });
      }
    }
  });
  return issues;
}

function checkFaults(value: unknown, faultIds: readonly string[]): ScenarioIssue[] {
  const timeline = isRecord(value) ? value['timeline'] : undefined;
  if (!Array.isArray(timeline)) return [];
  const issues: ScenarioIssue[] = [];
  timeline.forEach((entry: unknown, i) => {
    const fault = isRecord(entry) ? entry['fault'] : undefined;
    if (typeof fault === 'string' && !faultIds.includes(fault)) {
      issues.push({ path: ['timeline', i, 'fault'], message: `unknown fault ${echo(fault)}${didYouMean(fault, faultIds)}` });
    }
  });
  return issues;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Each fix must leave a valid scenario when applied alone to the file. */
function checkFixes(scenario: Scenario, options: Pick<LoadOptions, 'faultIds' | 'faults'>): string[] {
  const errors: string[] = [];
  for (const [name, fix] of Object.entries(scenario.fixes)) {
    let doc: unknown = scenario;
    const assignments: Assignment[] = [];
    let broken = false;
    for (const [key, value] of Object.entries(fix.set)) {
      const label = formatPath(['fixes', name, 'set', key]);
      try {
        const path = parsePath(key);
        doc = setPath(doc, path, value);
        assignments.push({ label, path });
      } catch (error) {
        errors.push(`${label}: ${(error as Error).message}`);
        broken = true;
      }
    }
    if (broken) continue;
    const result = validate(doc, options);
    if (!result.ok) errors.push(...attribute(result.issues, assignments, formatPath(['fixes', name])));
  }
  return errors;
}

/**
 * Names the assignment behind each issue: `label: problem` at its exact path, `label: path: problem` above or
 * below it. Issues unrelated to any assignment keep their path, prefixed by `context` when given.
 */
function attribute(issues: readonly ScenarioIssue[], assignments: readonly Assignment[], context?: string): string[] {
  // The latest assignment at each path, and the latest at or below each place, so each issue finds its source with one
  // look per level of its path instead of a pass over every assignment.
  const at = new Map<string, number>();
  const atOrBelow = new Map<string, number>();
  assignments.forEach((a, i) => {
    at.set(pathKey(a.path), i);
    for (let n = 1; n <= a.path.length; n++) atOrBelow.set(pathKey(a.path.slice(0, n)), i);
  });
  const latest = (path: readonly PathSegment[]): Assignment | undefined => {
    if (path.length === 0) return undefined;
    let found = atOrBelow.get(pathKey(path)) ?? -1;
    for (let n = 1; n < path.length; n++) found = Math.max(found, at.get(pathKey(path.slice(0, n))) ?? -1);
    return assignments[found];
  };
  return issues.map((issue) => {
    const source = latest(issue.path);
    if (source === undefined) return context ? `${context}: ${formatIssue(issue)}` : formatIssue(issue);
    if (samePath(source.path, issue.path)) return `${source.label}: ${issue.message}`;
    return `${source.label}: ${formatIssue(issue)}`;
  });
}

function unknownFix(name: string, available: readonly string[]): string {
  const list = available.length > 0 ? `available: ${available.join(', ')}` : 'this scenario has no fixes';
  return `unknown fix ${echo(name)}${didYouMean(name, available)}; ${list}`;
}
