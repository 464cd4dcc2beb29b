import { Worker } from 'node:worker_threads';
import { runVariant, type SweepPlan, type VariantRun } from '../sim';

/**
 * Runs the variants at `indices`, `jobs` at a time on worker threads (in this thread for one job); each worker takes
 * the next index when it is done, and `onDone` hears of every run. The result is in the order of `indices`.
 */
export async function runVariants(plan: SweepPlan, indices: readonly number[], jobs: number, onDone: (done: number) => void): Promise<VariantRun[]> {
  const runs = new Map<number, VariantRun>();
  if (jobs === 1) {
    for (const index of indices) {
      runs.set(index, runVariant(plan, plan.variants[index]!));
      onDone(runs.size);
    }
  } else {
    let next = 0;
    const workers = Array.from({ length: Math.min(jobs, indices.length) }, () => startWorker(plan));
    try {
      await Promise.all(
        workers.map(
          (worker) =>
            new Promise<void>((resolve, reject) => {
              const give = (): void => {
                if (next < indices.length) worker.postMessage(indices[next++]);
                else resolve();
              };
              worker.on('message', (run: VariantRun) => {
                runs.set(run.index, run);
                onDone(runs.size);
                give();
              });
              worker.on('error', reject);
              worker.on('exit', (code) => reject(new Error(`a sweep worker stopped (exit code ${code}) before its variant was done`)));
              give();
            }),
        ),
      );
    } finally {
      await Promise.all(workers.map((worker) => worker.terminate()));
    }
  }
  return indices.map((index) => runs.get(index)!);
}

/**
 * A worker on sweep-worker.ts. `npm run sim` runs TypeScript through tsx, whose loader a worker thread does not
 * inherit on Node 20, so the worker registers it before importing its entry.
 */
function startWorker(plan: SweepPlan): Worker {
  const entry = new URL('./sweep-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, workerData: plan });
}
