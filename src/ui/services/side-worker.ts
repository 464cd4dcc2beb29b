import * as Comlink from 'comlink';
import type { Answer, CommandOf, CommandType, WorkerApi, WorkerMessage } from '../../worker/protocol';

/** A second simulation worker (the compare run): its own frames, its own commands, gone on terminate. */
export interface SideWorker {
  send<T extends CommandType>(cmd: CommandOf<T>): Promise<Answer<T>>;
  terminate(): void;
}

export function openSideWorker(onMessage: (message: WorkerMessage) => void, onCrash: (message: string) => void): SideWorker {
  const side = new Worker(new URL('../../worker/sim.worker.ts', import.meta.url), { type: 'module' });
  let alive = true;
  side.addEventListener('error', (event) => {
    event.preventDefault();
    if (alive) onCrash(event.message || 'the worker script failed to run');
  });
  const remote = Comlink.wrap<WorkerApi>(side);
  void remote.subscribe(
    Comlink.proxy((message: WorkerMessage) => {
      if (!alive) return;
      if (message.type === 'fatal') onCrash(message.message);
      else onMessage(message);
    }),
  );
  return {
    send: <T extends CommandType>(cmd: CommandOf<T>) => remote.send(cmd) as Promise<Answer<T>>,
    terminate() {
      alive = false;
      remote[Comlink.releaseProxy]();
      side.terminate();
    },
  };
}
