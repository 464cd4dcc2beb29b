import { parentPort, workerData } from 'node:worker_threads';
import { runVariant, type SweepPlan } from '../sim';

/** A worker thread of `sweep --jobs`: runs the variant whose index it is sent and posts back how it went. */
const plan = workerData as SweepPlan;
parentPort!.on('message', (index: number) => parentPort!.postMessage(runVariant(plan, plan.variants[index]!)));
