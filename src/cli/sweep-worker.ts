import { parentPort, workerData } from 'node:worker_threads';
import { runSweepTask, type SweepTask } from '../sim';
import type { PoolData } from './sweep-pool';

/** A worker thread of `sweep --jobs`: runs the task it is sent (a variant, or a run with one of the fixes) and posts back how it went. */
const { plan, trials } = workerData as PoolData;
parentPort!.on('message', ({ n, task }: { n: number; task: SweepTask }) => parentPort!.postMessage({ n, result: runSweepTask(plan, trials, task) }));
