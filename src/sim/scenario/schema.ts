import { z } from './zod';
import { checkScenario } from './cross-checks';
import { DEFAULT_CHARTS } from './default-charts';
import { MAX_RUN_S, namedRecord, noNames } from './formats';
import { paramsSchema } from './params';
import { topologySchema } from './topology';
import { SCENARIO_VERSION } from './version';

export { SCENARIO_VERSION };

const ID = /^[a-z0-9-]+$/;
// Kinds a fault may target; `dns/cluster` is CoreDNS, `dns/provider` the cloud's resolver, `external/<name>` a client on
// the internet, `zookeeper/ensemble` service discovery's ZooKeeper (see faults/).
export const TARGET_KINDS = ['node', 'pod', 'deployment', 'service', 'router', 'lb', 'dns', 'external', 'zookeeper', 'rack'] as const;
const TARGET = new RegExp(`^(${TARGET_KINDS.join('|')})\\/[a-z0-9]([-a-z0-9]*[a-z0-9])?$`);
// Dotted lower-case metric name with optional labels: `lb.requests.failed`, `drops{reason=rp_filter_martian}`.
const METRIC = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*(\{[A-Za-z0-9_]+=[A-Za-z0-9_./-]+(,[A-Za-z0-9_]+=[A-Za-z0-9_./-]+)*\})?$/;

// A chart may also name every series of a labelled metric, `flows.new{dst=*}`, and shows the busiest of them.
const CHART_METRIC = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*\{[A-Za-z0-9_]+=\*\}$/;

const id = z.string().regex(ID, { error: 'must be lower-case letters, digits and "-"' });

// Times in a run: from its start to the end of the longest run (docs/limits.md#times).
const runTime = z.number().min(0).max(MAX_RUN_S);

const timelineEntry = z.strictObject({
  at: runTime,
  fault: id,
  target: z.string().regex(TARGET, {
    error: 'must be kind/name with kind node, pod, deployment, service, router, lb, dns, external or zookeeper (like pod/web-0)',
  }),
  params: z.record(z.string(), z.union([z.number(), z.boolean(), z.string()])).default({}),
  note: z.string().optional(),
});

const fix = z.strictObject({
  description: z.string(),
  // A value, or a list or record that replaces the whole place (a node's pods, a deployment); checked once applied.
  set: z.record(z.string(), z.union([z.number(), z.boolean(), z.string(), z.array(z.unknown()), z.record(z.string(), z.unknown())])),
});

const metric = z.string().regex(METRIC, {
  error: 'must be a dotted lower-case metric name, optionally with labels like name{key=value}',
});

const expectation = z.strictObject({
  description: z.string().optional(),
  metric,
  agg: z.enum(['total', 'peak', 'mean', 'min', 'last']),
  window: z.tuple([runTime, runTime]).optional(),
  op: z.enum(['<', '<=', '>', '>=', '==', '!=']),
  // Compared with a metric's total or a sample; doubles hold integers exactly up to 2^53 (docs/limits.md#counts).
  value: z.number().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER),
  // Held only in a run with exactly these fixes applied ([]: the run without fixes); left out, in every run.
  fixes: z.array(z.string()).optional(),
});

/** A chapter of the story a scenario tells, for a workshop host stepping through it: when, what, and what to try. */
const chapter = z.strictObject({
  at: runTime,
  title: z.string().min(1).max(120),
  text: z.string().min(1),
  // What the audience or the host should do now, e.g. "Open the flow log" or "Apply the fix default-backoff".
  action: z.string().optional(),
  // Asked in presenter mode before the chapter is told and played, so the room guesses first.
  question: z.string().min(1).optional(),
});

/**
 * A chart the UI draws live: `rate` plots counters per second, `level` plots gauges as they are, `histogram` draws the
 * buckets of each histogram named (observations so far, by bucket).
 */
const chart = z.strictObject({
  title: z.string().min(1).max(60),
  kind: z.enum(['rate', 'level', 'histogram']).default('rate'),
  // The y axis label, e.g. "SYNs / s".
  unit: z.string().min(1).max(24).optional(),
  series: z
    .array(
      z.strictObject({
        metric: z.string().refine((m) => METRIC.test(m) || CHART_METRIC.test(m), {
          error: 'must be a metric name like name{key=value}, or name{key=*} for the busiest series of a label',
        }),
        label: z.string().min(1).max(32),
      }),
    )
    .min(1)
    .max(6),
});

const scenarioObject = z.strictObject({
  version: z.literal(SCENARIO_VERSION),
  id,
  title: z.string().min(1),
  description: z.string(),
  seed: z.number().int().min(0).max(0xffffffff),
  duration: z.number().gt(0).max(MAX_RUN_S),
  topology: topologySchema,
  params: paramsSchema,
  timeline: z.array(timelineEntry).default([]),
  fixes: namedRecord(id, fix).default(noNames),
  expect: z.array(expectation).default([]),
  chapters: z.array(chapter).default([]),
  charts: z.array(chart).min(1).max(8).default(DEFAULT_CHARTS),
});

/** The scenario format, version 1: structure with defaults, then the checks that span fields. */
export const scenarioSchema = scenarioObject.superRefine(
  (scenario, ctx) => {
    for (const issue of checkScenario(scenario)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  },
  // Cross-field checks assume every field already has a valid value.
  { when: (payload) => payload.issues.length === 0 },
);

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;
export type ScenarioNode = Scenario['topology']['nodes'][number];
export type ScenarioPod = ScenarioNode['pods'][number];
export type ScenarioDeployment = Scenario['topology']['deployments'][string];
export type ScenarioService = Scenario['topology']['services'][string];
export type TimelineEntry = Scenario['timeline'][number];
export type ScenarioFix = Scenario['fixes'][string];
export type Expectation = Scenario['expect'][number];
export type Chapter = Scenario['chapters'][number];
export type ChartSpec = Scenario['charts'][number];
