import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { mainThread, mainThreadTasks, spansOf, TASK_NAMES, type Span, type TraceEvent } from '../test/e2e/trace';
import { SourceMap } from './source-map';

/**
 * Finds what the main thread does in its long tasks from a Chrome trace and a CPU profile of the same run (both on
 * the browser's monotonic clock): the trace gives each task's bounds, what set it off and its native phases; the profile's
 * samples inside a task give its JavaScript by function, named through the build's source maps (file:line of the
 * original source, not minified names).
 */

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

export interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface LongTaskBreakdown {
  tasks: { ts: number; durationMs: number; trigger: string; phases: [string, number][]; js: [string, number][] }[];
  /** Exclusive milliseconds per trace event name, over every long task. */
  phases: [string, number][];
  /** Milliseconds per function, charged to the innermost frame of the profile's samples inside long tasks. */
  jsSelf: [string, number][];
  /** Milliseconds per app function anywhere on the stack of those samples. */
  jsTotal: [string, number][];
  /** Forced style and layout updates inside long tasks, by the app function that asked. */
  forced: [string, { ms: number; count: number }][];
  styleElements: number;
  layoutObjects: number;
  longMs: number;
  samplesInTasks: number;
}

const NATIVE = new Map([
  ['(program)', '(program: native work outside JS — style, layout, paint, V8 and Blink internals)'],
  ['(garbage collector)', '(garbage collector)'],
]);

/** `../../../../src/ui/x.ts` → `src/ui/x.ts`, `../../../d3-zoom/src/zoom.js` → `d3-zoom/src/zoom.js` (the build sits inside node_modules). */
const tidy = (source: string): string => source.replace(/^(\.\.\/)+/, '').replace(/^.*node_modules\//, '');

/** Names frames as `src/file.ts:line name`, reading source maps of the built chunks next to `distDir/assets`. */
class FrameNamer {
  private readonly maps = new Map<string, SourceMap | null>();
  private readonly names = new Map<string, string>();

  constructor(private readonly distDir: string) {}

  private mapFor(url: string): SourceMap | null {
    const file = basename(new URL(url).pathname);
    if (!this.maps.has(file)) {
      const path = join(this.distDir, 'assets', `${file}.map`);
      this.maps.set(file, existsSync(path) ? new SourceMap(readFileSync(path, 'utf8')) : null);
    }
    return this.maps.get(file) ?? null;
  }

  /** A call site (trace stacks point at the call, not the function): `file:line: the source line`. */
  callSite(frame: CallFrame): string {
    const map = /^https?:/.test(frame.url) ? this.mapFor(frame.url) : null;
    const pos = map?.lookup(frame.lineNumber, frame.columnNumber);
    if (!map || !pos) return this.name(frame);
    const code = (map.sourceLine(pos.source, pos.line) ?? '').trim();
    return `${tidy(pos.source)}:${pos.line + 1}: ${code.length > 70 ? `${code.slice(0, 67)}...` : code}`;
  }

  name(frame: CallFrame): string {
    const native = NATIVE.get(frame.functionName);
    if (native) return native;
    if (frame.url === '' || !/^https?:/.test(frame.url)) return `${frame.functionName || '(anonymous)'} [${frame.url || 'native'}]`;
    const key = `${frame.url}:${frame.lineNumber}:${frame.columnNumber}`;
    const cached = this.names.get(key);
    if (cached) return cached;
    const map = this.mapFor(frame.url);
    const pos = map?.lookup(frame.lineNumber, frame.columnNumber);
    let out: string;
    if (!map || !pos) {
      out = `${frame.functionName || '(anonymous)'} [${basename(frame.url)}:${frame.lineNumber + 1}:${frame.columnNumber + 1}, unmapped]`;
    } else {
      const source = tidy(pos.source);
      const name = sourceName(map.sourceLine(pos.source, pos.line), pos.column) ?? pos.name ?? '(anonymous)';
      out = `${source}:${pos.line + 1} ${name}`;
    }
    this.names.set(key, out);
    return out;
  }
}

/** The function's name as its source writes it at `column`, where the function starts; callbacks are named by their callee. */
function sourceName(line: string | undefined, column: number): string | undefined {
  if (line === undefined) return undefined;
  const at = line.slice(column);
  const before = line.slice(0, column);
  const declared = /^(?:async\s+)?function\*?\s+([\w$]+)/.exec(at);
  if (declared) return declared[1];
  const word = /^(?:(?:async|get|set|static)\s+)*([\w$]+)\s*(?:<[^>]*>)?\(/.exec(at);
  // `x.subscribe((s) => …)` maps the callback to the callee's name; a method definition has no dot before it.
  if (word && !/\.\s*$/.test(before)) return word[1];
  if (word) return `callback to ${/[\w$.]*$/.exec(before)![0]}${word[1]}()`;
  const assigned = /([\w$]+)\s*[:=]\s*(?:async\s*)?$/.exec(before);
  if (assigned) return assigned[1];
  const callee = /([\w$.]+)\((?:[^()]*,\s*)?$/.exec(before);
  if (callee) return `callback to ${callee[1]}()`;
  return undefined;
}

function add(map: Map<string, number>, key: string, ms: number): void {
  map.set(key, (map.get(key) ?? 0) + ms);
}

const sorted = (map: Map<string, number>): [string, number][] => [...map.entries()].sort((a, b) => b[1] - a[1]);

// Work the trace names natively; everything else (FunctionCall, TimerFire, EventDispatch…) is JS the profile names.
const SCRIPT_EVENTS = new Set(['FunctionCall', 'EvaluateScript', 'TimerFire', 'FireAnimationFrame', 'EventDispatch', 'RunMicrotasks', 'v8.run', 'V8.Execute']);

interface StackFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

/** The JS stack a forced style or layout update carries, wherever this Chrome puts it. */
function stackTraceOf(args: Record<string, unknown>): StackFrame[] {
  for (const holder of [args['beginData'], args['data'], args]) {
    const stack = (holder as { stackTrace?: StackFrame[] } | undefined)?.stackTrace;
    if (Array.isArray(stack) && stack.length > 0) return stack;
  }
  return [];
}

/**
 * Long tasks from the trace (RunTask over `longMs` on the renderer's main thread), their time split by what the
 * trace calls each piece of native work, and the CPU profile's samples inside them charged to functions.
 */
export function diagnose(profile: CpuProfile, trace: TraceEvent[], distDir: string, longMs: number): LongTaskBreakdown {
  const namer = new FrameNamer(distDir);
  const { pid, tid } = mainThread(trace);
  const spans = spansOf(trace, pid, tid);
  const longTasks = mainThreadTasks(trace).filter((s) => s.dur > longMs * 1000);

  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackCache = new Map<number, string[]>();
  // Innermost first, without the root.
  const stackOf = (id: number): string[] => {
    const cached = stackCache.get(id);
    if (cached) return cached;
    const out: string[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (frame.functionName !== '(root)') out.push(namer.name(frame));
    }
    stackCache.set(id, out);
    return out;
  };
  const times: number[] = [];
  let t = profile.startTime;
  for (const d of profile.timeDeltas) times.push((t += d));

  const phases = new Map<string, number>();
  const jsSelf = new Map<string, number>();
  const jsTotal = new Map<string, number>();
  const forced = new Map<string, { ms: number; count: number }>();
  let styleElements = 0;
  let layoutObjects = 0;
  let samplesInTasks = 0;
  const out: LongTaskBreakdown['tasks'] = [];
  let cursor = 0;
  let sample = 0;
  for (const task of longTasks) {
    const end = task.ts + task.dur;
    const taskPhases = new Map<string, number>();
    const dispatched = new Set<string>();
    // Exclusive time per event: its duration minus the spans directly inside it.
    const stack: { span: Span; childUs: number }[] = [];
    const close = (until: number): void => {
      while (stack.length > 0 && stack.at(-1)!.span.ts + stack.at(-1)!.span.dur <= until) {
        const { span, childUs } = stack.pop()!;
        const name = SCRIPT_EVENTS.has(span.name) ? `${span.name} (JS, see the profile below)` : TASK_NAMES.has(span.name) ? 'task bookkeeping (not in a named event)' : span.name;
        add(taskPhases, name, (span.dur - childUs) / 1000);
        if (stack.length > 0) stack.at(-1)!.childUs += span.dur;
      }
    };
    while (cursor < spans.length && spans[cursor]!.ts < task.ts) cursor++;
    for (let k = cursor; k < spans.length && spans[k]!.ts < end; k++) {
      const span = spans[k]!;
      close(span.ts);
      stack.push({ span, childUs: 0 });
      if (span.name === 'EventDispatch') dispatched.add(String((span.args['data'] as { type?: string } | undefined)?.type ?? '?'));
      if (span.name === 'UpdateLayoutTree') styleElements = Math.max(styleElements, Number(span.args['elementCount'] ?? 0));
      if (span.name === 'Layout') {
        const begin = span.args['beginData'] as { totalObjects?: number } | undefined;
        layoutObjects = Math.max(layoutObjects, begin?.totalObjects ?? 0);
      }
      if (span.name === 'Layout' || span.name === 'UpdateLayoutTree') {
        const frames = stackTraceOf(span.args);
        if (frames.length > 0) {
          // Trace stack frames count lines and columns from 1; source maps and profiles from 0.
          const named = frames.map((f) => namer.callSite({ ...f, lineNumber: f.lineNumber - 1, columnNumber: f.columnNumber - 1 }));
          const who = named.find((n) => n.startsWith('src/')) ?? named[0]!;
          const entry = forced.get(`${span.name} forced by ${who}`) ?? { ms: 0, count: 0 };
          entry.ms += span.dur / 1000;
          entry.count++;
          forced.set(`${span.name} forced by ${who}`, entry);
        }
      }
    }
    close(Infinity);
    const taskJs = new Map<string, number>();
    while (sample < times.length && times[sample]! < task.ts) sample++;
    for (let k = sample; k < times.length && times[k]! < end; k++) {
      // The profiler occasionally records a sample out of order; a negative gap counts as none.
      const ms = Math.max(0, (times[k + 1] ?? profile.endTime) - times[k]!) / 1000;
      const frames = stackOf(profile.samples[k]!);
      samplesInTasks++;
      add(jsSelf, frames[0] ?? '(root)', ms);
      for (const key of new Set(frames)) {
        if (key.startsWith('src/')) {
          add(jsTotal, key, ms);
          add(taskJs, key, ms);
        }
      }
    }
    for (const [k, v] of taskPhases) add(phases, k, v);
    // What set the task off: the DOM events it dispatched (a worker frame arrives as `message`), or none for a rendering update.
    const frame = [...taskJs.keys()].some((key) => key.startsWith('src/ui/services/sim-client.ts:') && key.endsWith(' onMessage')) ? 'a worker frame' : '';
    const events = dispatched.size > 0 ? `events ${[...dispatched].sort().join(', ')}` : '';
    const trigger = [frame, events].filter(Boolean).join(' + ') || 'no event or frame (a rendering update or timer)';
    out.push({ ts: task.ts, durationMs: task.dur / 1000, trigger, phases: sorted(taskPhases), js: sorted(taskJs) });
  }
  return {
    tasks: out,
    phases: sorted(phases),
    jsSelf: sorted(jsSelf),
    jsTotal: sorted(jsTotal),
    forced: [...forced.entries()].sort((a, b) => b[1].ms - a[1].ms),
    styleElements,
    layoutObjects,
    longMs,
    samplesInTasks,
  };
}

export function printDiagnosis(d: LongTaskBreakdown, top = 10): void {
  const all = d.tasks.reduce((sum, s) => sum + s.durationMs, 0);
  const over = d.tasks.filter((s) => s.durationMs > 100);
  const ms = (v: number): string => `${Math.round(v).toLocaleString('en-US').padStart(7)} ms`;
  const pct = (v: number): string => `${((v / all) * 100).toFixed(1).padStart(5)}%`;
  console.log(
    `  trace: ${d.tasks.length} main-thread tasks over ${d.longMs} ms (${over.length} over 100 ms, longest ` +
      `${Math.round(Math.max(0, ...d.tasks.map((s) => s.durationMs)))} ms), ${Math.round(all).toLocaleString('en-US')} ms in all; ` +
      `largest style recalc ${d.styleElements.toLocaleString('en-US')} elements, largest layout ${d.layoutObjects.toLocaleString('en-US')} objects`,
  );
  const triggers = new Map<string, { count: number; ms: number; longest: number }>();
  for (const t of d.tasks) {
    const e = triggers.get(t.trigger) ?? { count: 0, ms: 0, longest: 0 };
    e.count++;
    e.ms += t.durationMs;
    e.longest = Math.max(e.longest, t.durationMs);
    triggers.set(t.trigger, e);
  }
  console.log('  what set them off:');
  for (const [k, v] of [...triggers.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 8)) {
    console.log(`    ${pct(v.ms)} ${ms(v.ms)}  ${String(v.count).padStart(3)} tasks, longest ${Math.round(v.longest)} ms: ${k}`);
  }
  console.log('  their time by what the trace calls it (exclusive):');
  for (const [k, v] of d.phases.slice(0, top)) console.log(`    ${pct(v)} ${ms(v)}  ${k}`);
  if (d.forced.length > 0) {
    console.log('  forced (synchronous) style/layout inside them, by the app function that asked:');
    for (const [k, v] of d.forced.slice(0, 6)) console.log(`    ${pct(v.ms)} ${ms(v.ms)}  ${v.count}× ${k}`);
  }
  console.log(`  JS inside them (${d.samplesInTasks.toLocaleString('en-US')} profile samples), innermost frame:`);
  for (const [k, v] of d.jsSelf.slice(0, top)) console.log(`    ${pct(v)} ${ms(v)}  ${k}`);
  console.log('  app functions on the stack (total):');
  for (const [k, v] of d.jsTotal.slice(0, top)) console.log(`    ${pct(v)} ${ms(v)}  ${k}`);
  console.log('  the five longest:');
  for (const s of [...d.tasks].sort((a, b) => b.durationMs - a.durationMs).slice(0, 5)) {
    const parts = s.phases.slice(0, 4).map(([k, v]) => `${k.replace(/ \(JS.*\)$/, '')} ${Math.round(v)}`);
    const app = s.js.slice(0, 2).map(([k, v]) => `${k} ${Math.round(v)}`);
    console.log(`    ${Math.round(s.durationMs)} ms (${s.trigger}): ${parts.join(', ')}${app.length > 0 ? ` | app: ${app.join(', ')}` : ''}`);
  }
}
