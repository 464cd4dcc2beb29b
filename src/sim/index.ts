/**
 * The simulation's one public face: the worker, the CLI and the UI import the simulation from here and nowhere else
 * (lint enforces it). Plain data types and functions only. What only the worker and the CLI call (loading, running,
 * editing) pulls zod and the scenario schema in, so the main-thread bundle stays free of them only because it uses
 * none of those exports and package.json declares the sources free of side effects.
 */
export * from './api';
export { atSeconds, seconds, simTime, toSeconds, type Duration, type SimTime } from './core/time';
export { formatCount } from './core/format';
export { createSim, faultCatalog, FAULT_IDS, restoreSim, type Checkpoint, type SimOptions } from './sim';
export { fromPortable, toPortable, type Frozen, type Portable } from './core/snapshot';
export { fixRolloutProblem } from './faults/roll-out-fix';
export { loadScenario, type LoadOptions, type LoadResult } from './scenario/load';
export type { Chapter, ChartSpec, Scenario, ScenarioInput } from './scenario/schema';
export { DEFAULT_CHARTS } from './scenario/default-charts';
export { SCENARIO_VERSION } from './scenario/version';
export { withoutBom } from './scenario/parse-text';
export { MAX_POD_RATE, MIN_RATE } from './scenario/formats';
export { boundProblems, echo, MAX_SCENARIO_CHARS, oneLine } from './scenario/limits';
export { isPrefix, parsePath, samePath, type PathSegment } from './scenario/path';
export { pathLocator, type TextPlace } from './scenario/locate';
export { schemasAt, type JsonSchema } from './scenario/schema-walk';
export { ADDABLE, type Edit, type EditKind, type EditOption, type Field, type OutlineItem, type ScalarValue, type YamlPath } from './scenario/edit-kinds';
export { applyEdit, blankScenario, outline } from './scenario/edits';
export { fieldsAt } from './scenario/fields';
export { scenarioJsonSchemaText } from './scenario/json-schema';
export { DROP_REASON_IDS, explainDrop, type DropReason } from './report/drop-reasons';
export { seriesCsv } from './report/csv';
export { checkSweepOptions, planSweep, runUnfaulted, runVariant, timelineFailure, type SweepOptions, type SweepPlan, type UnfaultedRun, type Variant, type VariantRun } from './sweep/plan';
export {
  collectFixEffects,
  FixEffects,
  FIX_TOP,
  MAX_FIX_TOP,
  fixCandidates,
  fixEffect,
  fixesToTry,
  fixTasks,
  runSweepTask,
  type FixEffect,
  type FixTrial,
  type SweepTask,
} from './sweep/fixes';
export { REMEDIES, remedyFor, type Remedy } from './sweep/remedies';
export { FAR_MORE, ROW_WHY_LIMIT, whyBeyond, whyCandidates, type RowWhy } from './sweep/why';
export { compareImpacts, impactOf, perStep, type Delta, type PerStep, type VariantImpact } from './sweep/impact';
export {
  bestFix,
  rankRows,
  rootCause,
  sweepCsv,
  sweepHeader,
  sweepRow,
  variantLoad,
  type Replay,
  type SweepBase,
  type SweepHeader,
  type SweepRow,
  type TimelineAddition,
} from './sweep/table';
export { sweepReportHtml } from './sweep/report-html';
export { RISKY_SETTINGS, SETTING_IDS, settingUses, type RiskySetting, type SettingUse } from './sweep/settings';
