import { createSweepHandler } from './sweep-handler';
import type { SweepRequest } from './sweep-protocol';

/** A worker of the browser's sweep pool: plans a sweep when asked, then runs the variants it is handed one at a time. */
const handle = createSweepHandler();

globalThis.addEventListener('message', (event: MessageEvent<SweepRequest>) => {
  const reply = handle(event.data);
  if (reply) globalThis.postMessage(reply);
});
