import { MAX_RUN_MS } from '../scenario/formats';
import { z } from '../scenario/zod';

/** How long a server takes to answer a request (`params.server`), for HTTP, gRPC and mesh backends alike. */
export const serverParams = z.strictObject({
  // Model choice: mean request processing time of a light HTTP handler.
  serviceTimeMs: z.number().min(0).max(MAX_RUN_MS).default(5),
});
export type ServerParams = z.output<typeof serverParams>;
