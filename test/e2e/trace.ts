import type { CDPSession, Page } from 'playwright-core';

/** Chrome's trace, as the browser tests and the UI benches read it over the DevTools protocol. */

export interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  /** The thread's own clock over the event: its CPU time, without the time the OS ran something else. */
  tdur?: number;
  pid: number;
  tid: number;
  args?: Record<string, unknown>;
}

export interface Span {
  name: string;
  ts: number;
  dur: number;
  tdur: number;
  args: Record<string, unknown>;
}

/** Chrome nests RunTask in ThreadControllerImpl::RunTask; a task is the outermost of them. */
export const TASK_NAMES = new Set(['RunTask', 'ThreadControllerImpl::RunTask']);

export async function startTrace(cdp: CDPSession, categories: readonly string[]): Promise<void> {
  await cdp.send('Tracing.start', { transferMode: 'ReturnAsStream', traceConfig: { includedCategories: [...categories] } });
}

export async function endTrace(cdp: CDPSession): Promise<TraceEvent[]> {
  const complete = new Promise<string>((resolve) => cdp.once('Tracing.tracingComplete', (e) => resolve(e.stream ?? '')));
  await cdp.send('Tracing.end');
  const handle = await complete;
  const chunks: string[] = [];
  for (;;) {
    const part = await cdp.send('IO.read', { handle, size: 1 << 22 });
    chunks.push(part.base64Encoded ? Buffer.from(part.data, 'base64').toString('utf8') : part.data);
    if (part.eof) break;
  }
  await cdp.send('IO.close', { handle });
  const parsed = JSON.parse(chunks.join('')) as { traceEvents: TraceEvent[] } | TraceEvent[];
  return Array.isArray(parsed) ? parsed : parsed.traceEvents;
}

/** The renderer's main thread: the CrRendererMain that ran the most task time. */
export function mainThread(events: readonly TraceEvent[]): { pid: number; tid: number } {
  const mains = events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && (e.args?.['name'] as string) === 'CrRendererMain');
  let best = { pid: -1, tid: -1 };
  let bestUs = -1;
  for (const m of mains) {
    const us = events.filter((e) => e.pid === m.pid && e.tid === m.tid && TASK_NAMES.has(e.name)).reduce((sum, e) => sum + (e.dur ?? 0), 0);
    if (us > bestUs) {
      bestUs = us;
      best = { pid: m.pid, tid: m.tid };
    }
  }
  if (bestUs < 0) throw new Error('the trace has no CrRendererMain thread');
  return best;
}

/** Complete spans of one thread, from X events and matched B/E pairs, ordered outermost first. */
export function spansOf(events: readonly TraceEvent[], pid: number, tid: number): Span[] {
  const out: Span[] = [];
  const open = new Map<string, TraceEvent[]>();
  for (const e of events) {
    if (e.pid !== pid || e.tid !== tid) continue;
    if (e.ph === 'X' && e.dur !== undefined) out.push({ name: e.name, ts: e.ts, dur: e.dur, tdur: e.tdur ?? e.dur, args: e.args ?? {} });
    else if (e.ph === 'B') open.set(e.name, [...(open.get(e.name) ?? []), e]);
    else if (e.ph === 'E') {
      const begin = open.get(e.name)?.pop();
      if (begin) out.push({ name: e.name, ts: begin.ts, dur: e.ts - begin.ts, tdur: e.ts - begin.ts, args: { ...begin.args, ...e.args } });
    }
  }
  return out.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
}

/** The main thread's tasks, outermost only, in order. */
export function mainThreadTasks(events: readonly TraceEvent[]): Span[] {
  const { pid, tid } = mainThread(events);
  const tasks: Span[] = [];
  for (const span of spansOf(events, pid, tid)) {
    if (!TASK_NAMES.has(span.name)) continue;
    const last = tasks.at(-1);
    if (last && span.ts < last.ts + last.dur) continue;
    tasks.push(span);
  }
  return tasks;
}

export interface MainThreadTask {
  /** From start to end on the wall clock: what the longtask API reports, and what a user waits when the machine is idle. */
  wallMs: number;
  /** The main thread's own CPU time in it: the page's work, whatever else the machine was running. */
  cpuMs: number;
}

/**
 * Records the page's main-thread tasks from now until the returned function is called. Unlike the longtask API it
 * gives each task's CPU time, which on a machine shared with other processes (two cores, a worker pool, a test runner)
 * tells the page's own work from the time the OS gave to others.
 */
export async function watchMainThread(page: Page): Promise<() => Promise<MainThreadTask[]>> {
  const cdp = await page.context().newCDPSession(page);
  await startTrace(cdp, ['-*', 'toplevel']);
  return async () => {
    const events = await endTrace(cdp);
    await cdp.detach();
    return mainThreadTasks(events).map((t) => ({ wallMs: t.dur / 1000, cpuMs: t.tdur / 1000 }));
  };
}
