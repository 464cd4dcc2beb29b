import type { SweepOptions, SweepPlan, SweepTask, UnfaultedRun, VariantRun } from '../sim';
import type { TimelineAddition } from './timeline-additions';

/** The messages between the page's sweep pool and each sweep worker (sweep.worker.ts). Every message is plain data. */

/** The scenario as the app has it loaded: its text, file name, seed and fixes. */
export interface SweepSource {
  text: string;
  fileName: string;
  seed: number;
  fixes: string[];
  /** Overrides the loaded run was loaded with (a variant opened from an earlier sweep). */
  sets?: string[];
  /** Faults the loaded run added to the scenario's timeline (a variant opened from an earlier sweep). */
  timeline?: TimelineAddition[];
}

export type SweepRequest =
  /** Load the scenario, check the options, run the unfaulted run and list the variants; the worker keeps the plan. */
  | { type: 'plan'; source: SweepSource; options: SweepOptions }
  /** The plan another worker made, for the variants this one will run. */
  | { type: 'take'; plan: SweepPlan }
  | { type: 'run'; index: number }
  /** Load the scenario again with each of `fixes` added, for the fix runs that follow; each worker loads them alike. */
  | { type: 'trials'; source: SweepSource; fixes: string[] }
  /** Run fix task `n` (fixes.ts: an unfaulted run or a variant's, with trial `task.trial`'s fix). */
  | { type: 'task'; n: number; task: SweepTask };

export type SweepReply =
  | { type: 'planned'; plan: SweepPlan }
  /** The scenario does not load or an option is out of range; the message names the field (`at: …`). */
  | { type: 'refused'; message: string }
  | { type: 'ran'; run: VariantRun }
  /** The variant's run threw; the others go on. */
  | { type: 'failed'; index: number; message: string }
  /** The fixes that loaded, in the order asked (their trial numbers), and why each other one did not. */
  | { type: 'trials'; usable: string[]; unusable: [fix: string, message: string][] }
  /** Fix task `n`'s run, or why it threw. */
  | { type: 'tasked'; n: number; run: VariantRun | UnfaultedRun }
  | { type: 'taskFailed'; n: number; message: string };
