import { oneLine } from '../sim';
import { OutputError, UsageError } from './args';

/** Set to 1 to see the stack trace of an internal error. */
export const DEBUG_ENV = 'NETMORTEM_DEBUG';

// An internal error's message may carry a user's value; a few hundred characters say what went wrong.
const INTERNAL_MESSAGE_CHARS = 400;

/**
 * What `npm run sim` prints and exits with when it stops on an error: invalid input, each problem on its line, exit 2;
 * an output it could not write, exit 1; anything else one line, exit 1, with the stack trace only when `debug`.
 */
export function failure(error: unknown, debug: boolean): { code: 1 | 2; text: string } {
  const lines = (message: string): string =>
    message
      .split('\n')
      .map((line) => `netmortem: ${line}\n`)
      .join('');
  if (error instanceof UsageError) return { code: 2, text: lines(error.message) };
  if (error instanceof OutputError) return { code: 1, text: lines(error.message) };
  if (debug) return { code: 1, text: `netmortem: internal error: ${error instanceof Error ? error.stack : String(error)}\n` };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 1, text: `netmortem: internal error: ${oneLine(message.split('\n')[0]!, INTERNAL_MESSAGE_CHARS)} (${DEBUG_ENV}=1 shows the stack trace)\n` };
}
