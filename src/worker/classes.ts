import { fromPortable, toPortable, type Frozen, type Portable } from '../sim';

/**
 * The simulation's classes by name, so a snapshot can leave this worker (IndexedDB, a new worker after a crash) and
 * come back with its prototypes: every class a module of src/sim exports, named `module#Export`. A class the state holds
 * but no module exports is refused by name when a snapshot is made portable (export it).
 */

// The public module, the scenario loader and the sweep hold no run state; through them the glob kept zod whole (350 kB).
const modules = import.meta.glob<Record<string, unknown>>(['../sim/**/*.ts', '!../sim/index.ts', '!../sim/scenario/**', '!../sim/sweep/**'], { eager: true });

const NULL_PROTOTYPE = '(null prototype)';

interface Registry {
  names: Map<object, string>;
  protos: Map<string, object>;
  /** Changes with any exported function's or class's source: a snapshot of other code is not restored. */
  fingerprint: string;
}

let registry: Registry | undefined;

function build(): Registry {
  const names = new Map<object, string>();
  const protos = new Map<string, object>();
  let hash = 0x811c9dc5;
  const mix = (text: string): void => {
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  };
  for (const path of Object.keys(modules).sort()) {
    const module = path.replace(/^\.\.\/sim\//, '').replace(/\.ts$/, '');
    const exports = modules[path]!;
    for (const key of Object.keys(exports).sort()) {
      const value = exports[key];
      if (typeof value !== 'function') continue;
      mix(`${module}#${key}:${Function.prototype.toString.call(value)}`);
      const proto = (value as { prototype?: unknown }).prototype;
      // A re-export names a class a second time; the first name (in path order) is the one snapshots use.
      if (typeof proto === 'object' && proto !== null && (proto as { constructor?: unknown }).constructor === value) {
        const name = `${module}#${key}`;
        protos.set(name, proto);
        if (!names.has(proto)) names.set(proto, name);
      }
    }
  }
  return { names, protos, fingerprint: `${globalThis.location?.href ?? ''}#${names.size}-${hash.toString(16)}` };
}

function get(): Registry {
  return (registry ??= build());
}

/** The running code's fingerprint: a stored snapshot is restored only by the code that made it. */
export function codeFingerprint(): string {
  return get().fingerprint;
}

export function portable<T>(snapshot: Frozen<T>): Portable<T> {
  const { names } = get();
  return toPortable(snapshot, (proto) => (proto === null ? NULL_PROTOTYPE : names.get(proto)));
}

export function unportable<T>(data: Portable<T>): Frozen<T> {
  const { protos } = get();
  return fromPortable(data, (name) => (name === NULL_PROTOTYPE ? null : protos.get(name)));
}
