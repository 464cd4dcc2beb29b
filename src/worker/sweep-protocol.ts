import type { SweepOptions, SweepPlan, VariantRun } from '../sim';
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
  | { type: 'run'; index: number };

export type SweepReply =
  | { type: 'planned'; plan: SweepPlan }
  /** The scenario does not load or an option is out of range; the message names the field (`at: …`). */
  | { type: 'refused'; message: string }
  | { type: 'ran'; run: VariantRun }
  /** The variant's run threw; the others go on. */
  | { type: 'failed'; index: number; message: string };
