import { Worker } from 'node:worker_threads';
import { runSweepTask, type FixTrial, type SweepPlan, type SweepTask, type UnfaultedRun, type VariantRun } from '../sim';

/** What every worker of a pool is given once: the plan, and the fixes its tasks may try. */
export interface PoolData {
  plan: SweepPlan;
  trials: FixTrial[];
}

/** Runs the variants at `indices` (see runTasks); the result is in the order of `indices`. */
export async function runVariants(plan: SweepPlan, indices: readonly number[], jobs: number, onDone: (done: number) => void): Promise<VariantRun[]> {
  return (await runTasks(
    { plan, trials: [] },
    indices.map((index) => ({ index })),
    jobs,
    onDone,
  )) as VariantRun[];
}

/**
 * Runs `tasks`, `jobs` at a time on worker threads (in this thread for one job); each worker takes the next task when
 * it is done, and `onDone` hears of every run. The result is in the order of `tasks`, whatever the order they finish in.
 */
export async function runTasks(data: PoolData, tasks: readonly SweepTask[], jobs: number, onDone: (done: number) => void): Promise<(VariantRun | UnfaultedRun)[]> {
  const results = new Map<number, VariantRun | UnfaultedRun>();
  if (jobs === 1) {
    tasks.forEach((task, n) => {
      results.set(n, runSweepTask(data.plan, data.trials, task));
      onDone(results.size);
    });
  } else {
    let next = 0;
    const workers = Array.from({ length: Math.min(jobs, tasks.length) }, () => startWorker(data));
    try {
      await Promise.all(
        workers.map(
          (worker) =>
            new Promise<void>((resolve, reject) => {
              const give = (): void => {
                if (next < tasks.length) {
                  worker.postMessage({ n: next, task: tasks[next] });
                  next++;
                } else resolve();
              };
              worker.on('message', ({ n, result }: { n: number; result: VariantRun | UnfaultedRun }) => {
                results.set(n, result);
                onDone(results.size);
                give();
              });
              worker.on('error', reject);
              worker.on('exit', (code) => reject(new Error(`a sweep worker stopped (exit code ${code}) before its run was done`)));
              give();
            }),
        ),
      );
    } finally {
      await Promise.all(workers.map((worker) => worker.terminate()));
    }
  }
  return tasks.map((_, n) => results.get(n)!);
}

/**
 * A worker on sweep-worker.ts. `npm run sim` runs TypeScript through tsx, whose loader a worker thread does not
 * inherit on Node 20, so the worker registers it before importing its entry.
 */
function startWorker(data: PoolData): Worker {
  const entry = new URL('./sweep-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, workerData: data });
}

/** `onDone(n)` writes `label: n/total <what> done` to stderr: in place on a terminal, else at every tenth. */
export function progressLine(label: string, total: number, what: string): (done: number) => void {
  const tty = process.stderr.isTTY;
  let shown = -1;
  return (done) => {
    const tenth = total === 0 ? 10 : Math.floor((done * 10) / total);
    if (!tty && tenth === shown) return;
    shown = tenth;
    process.stderr.write(`${tty ? '\r' : ''}${label}: ${done}/${total} ${what} done${tty && done < total ? '' : '\n'}`);
  };
}
