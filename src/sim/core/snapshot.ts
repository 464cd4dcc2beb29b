/**
 * Copies of a run's whole state (issue 25): every object reachable from a root, with its prototype, and the Maps, Sets,
 * arrays and typed arrays among them. A closure cannot be copied (its captured variables are out of reach), so the
 * state holds functions only as `bound` methods, which the copy binds again to the copied object, or as `shared`
 * functions that close over nothing that changes.
 */

type AnyFunction = (...args: never[]) => unknown;

interface Binding {
  target: object;
  method: string;
  args: unknown[];
}

const BINDINGS = new WeakMap<AnyFunction, Binding>();
const SHARED = new Map<AnyFunction, string>();
const SHARED_BY_NAME = new Map<string, AnyFunction>();

type Rest<F, A extends unknown[]> = F extends (...args: [...A, ...infer R]) => infer Out ? (...args: R) => Out : never;

const METHOD_NAMES = new WeakMap<AnyFunction, string>();

/** The name under which `fn` is a method of `target`'s class (private ones too), found once per method. */
function methodName(target: object, fn: AnyFunction): string {
  const known = METHOD_NAMES.get(fn);
  if (known !== undefined && (target as Record<string, unknown>)[known] === fn) return known;
  for (let proto = Object.getPrototypeOf(target) as object | null; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== 'constructor' && Object.getOwnPropertyDescriptor(proto, name)?.value === fn) {
        METHOD_NAMES.set(fn, name);
        return name;
      }
    }
  }
  throw new Error(`bound: ${fn.name || 'the function'} is not a method of ${target.constructor.name}'s class`);
}

/**
 * `fn`, a method of `target`'s class, bound to `target` with `args` first: a callback a snapshot can carry, since it
 * names its object and method. Write `bound(this, this.onTick)`.
 */
export function bound<F extends AnyFunction, A extends unknown[]>(target: object, fn: F, ...args: A): Rest<F, A> {
  return bindTo(target, methodName(target, fn), args) as Rest<F, A>;
}

/** `target[method]` bound to `target` with `args` first, registered so that a copy can bind it again. */
function bindTo(target: object, method: string, args: unknown[]): AnyFunction {
  const fn = (target as Record<string, (...a: unknown[]) => unknown>)[method]!;
  const callback = fn.bind(target, ...args) as AnyFunction;
  BINDINGS.set(callback, { target, method, args });
  return callback;
}

/**
 * Marks a function that reads nothing but its arguments and constants, so copies of the state may share it; a snapshot
 * holds it by `name`, unique among shared functions, so one taken to another worker finds it there.
 */
export function shared<F extends AnyFunction>(name: string, fn: F): F {
  if (SHARED_BY_NAME.has(name)) throw new Error(`shared: "${name}" names another function already`);
  SHARED.set(fn, name);
  SHARED_BY_NAME.set(name, fn);
  return fn;
}

/** Whether a copy of the state can carry `fn`: a bound method or a shared function. */
export function carried(fn: AnyFunction): boolean {
  return BINDINGS.has(fn) || SHARED.has(fn);
}

/** A bound callback as a snapshot keeps it: data, so that structured clone can carry the snapshot too. */
export class FrozenBinding {
  constructor(
    readonly target: object,
    readonly method: string,
    readonly args: unknown[],
  ) {}
}

/** A shared function as a snapshot keeps it: by name. */
export class SharedRef {
  constructor(readonly name: string) {}
}

/** A typed array as a snapshot keeps it: its buffer without the zero bytes at its end, most of a preallocated table. */
export class FrozenBuffer {
  constructor(
    readonly byteLength: number,
    readonly bytes: Uint8Array,
  ) {}
}

export class FrozenView {
  constructor(
    readonly kind: string,
    readonly buffer: FrozenBuffer,
    readonly byteOffset: number,
    readonly length: number,
  ) {}
}

type ViewConstructor = new (buffer: ArrayBuffer, byteOffset: number, length: number) => ArrayBufferView;
const VIEWS: Record<string, ViewConstructor> = {
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
} as unknown as Record<string, ViewConstructor>;

/** The length of `buffer` up to its last non-zero byte. */
function usedBytes(buffer: ArrayBuffer): number {
  const words = buffer.byteLength >>> 2;
  const asWords = new Int32Array(buffer, 0, words);
  let end = words;
  while (end > 0 && asWords[end - 1] === 0) end--;
  // Whole words found the last non-zero one; bytes find where in it (or in the tail past the last whole word) the zeros begin.
  let bytes = end === words ? buffer.byteLength : end * 4;
  const asBytes = new Uint8Array(buffer);
  while (bytes > 0 && asBytes[bytes - 1] === 0) bytes--;
  return bytes;
}

const enum Kind {
  object,
  array,
  map,
  set,
  view,
  frozenView,
  binding,
  sharedRef,
}

/** How a copy treats objects of `value`'s prototype, or why it cannot copy them. */
function kindOf(value: object): Kind | string {
  if (Array.isArray(value)) return Kind.array;
  if (value instanceof Map) return Kind.map;
  if (value instanceof Set) return Kind.set;
  if (value instanceof FrozenView) return Kind.frozenView;
  if (value instanceof FrozenBinding) return Kind.binding;
  if (value instanceof SharedRef) return Kind.sharedRef;
  if (value instanceof DataView) return 'is a DataView, which snapshots do not copy';
  if (ArrayBuffer.isView(value)) return Kind.view;
  if (value instanceof ArrayBuffer) return 'is an ArrayBuffer held without a typed array over it';
  const tag = Object.prototype.toString.call(value);
  return tag === '[object Object]' ? Kind.object : `is a ${tag.slice(8, -1)}, which snapshots do not copy`;
}

/** Where each of `targets` sits under the root, by a breadth-first walk: done only when a copy fails, to say where. */
function pathsTo(root: unknown, targets: ReadonlySet<unknown>): Map<unknown, string> {
  const found = new Map<unknown, string>();
  const seen = new Set<unknown>();
  const queue: [unknown, string][] = [[root, 'state']];
  for (let head = 0; head < queue.length && found.size < targets.size; head++) {
    const [value, path] = queue[head]!;
    if (targets.has(value) && !found.has(value)) found.set(value, path);
    const binding = typeof value === 'function' ? BINDINGS.get(value as AnyFunction) : undefined;
    if (binding && !seen.has(value)) {
      seen.add(value);
      queue.push([binding.target, `${path}<bound ${binding.method}>`]);
      binding.args.forEach((arg, k) => queue.push([arg, `${path}<bound argument ${k}>`]));
    }
    if (value === null || typeof value !== 'object' || seen.has(value) || ArrayBuffer.isView(value)) continue;
    seen.add(value);
    if (value instanceof Map) {
      let k = 0;
      for (const [key, v] of value) {
        queue.push([key, `${path}.<key ${k}>`], [v, `${path}.get(${typeof key === 'object' ? `<key ${k}>` : String(key)})`]);
        k++;
      }
    } else if (value instanceof Set) {
      let k = 0;
      for (const v of value) queue.push([v, `${path}.<item ${k++}>`]);
    } else {
      const holder = Array.isArray(value) ? '' : `(${(value as object).constructor?.name ?? 'Object'})`;
      for (const key of Object.keys(value)) queue.push([(value as Record<string, unknown>)[key], `${path}${holder}.${key}`]);
    }
  }
  return found;
}

/** A value a snapshot cannot copy, and why. */
interface Refusal {
  value: unknown;
  why: string;
}

/** Every place (path with indices and keys left out) that holds a value a copy cannot take, with an example and why. */
function describeRefusals(root: unknown, refusals: readonly Refusal[]): string[] {
  const paths = pathsTo(root, new Set(refusals.map((r) => r.value)));
  const places = new Map<string, string>();
  for (const r of refusals) {
    const path = paths.get(r.value) ?? 'state (somewhere the walk could not name)';
    const place = path
      .replace(/\.\d+(?=[.(]|$)/g, '[]')
      .replace(/\.get\([^)]*\)/g, '.get()')
      .replace(/<(key|item) \d+>/g, '<$1>');
    // Closures at one place differ by their code, as the scheduler's handlers do.
    const key = typeof r.value === 'function' ? `${place} ${String(r.value)}` : place;
    if (!places.has(key)) places.set(key, `${path} ${r.why}`);
  }
  return [...places.values()].sort();
}

// Rough V8 sizes on 64-bit without pointer compression (Chrome compresses, so this errs high): an object's header, a slot.
const OBJECT_BYTES = 32;
const SLOT_BYTES = 8;

/** What a copy holds, for a memory budget: its containers, their slots and its typed arrays' bytes. */
interface CopySize {
  bytes: number;
}

/** A copy of everything reachable from `root`: typed arrays become frozen views (a freeze), frozen views typed arrays again (a thaw). */
function copy<T>(root: T, size: CopySize = { bytes: 0 }): T {
  const copies = new Map<unknown, unknown>();
  // What each prototype's objects are, looked up once per prototype rather than tested on every object.
  const kinds = new Map<object | null, Kind | string>();
  // Copies made but not filled in yet, and their originals: two stacks, so a copy allocates no pair per object.
  const fromStack: object[] = [];
  const toStack: object[] = [];

  const refusals: Refusal[] = [];
  const refuse = (value: unknown, why: string): undefined => {
    refusals.push({ value, why });
    return undefined;
  };

  const frozenBuffer = (src: ArrayBuffer): FrozenBuffer => {
    let out = copies.get(src) as FrozenBuffer | undefined;
    if (out) return out;
    out = new FrozenBuffer(src.byteLength, new Uint8Array(src.slice(0, usedBytes(src))));
    size.bytes += out.bytes.byteLength;
    copies.set(src, out);
    return out;
  };

  const shell = (value: unknown): unknown => {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return value;
    const done = copies.get(value);
    if (done !== undefined) return done;
    let out: unknown;
    // Only a freeze meets a live function: it keeps it as data, which a thaw binds again.
    if (typeof value === 'function') {
      const fn = value as AnyFunction;
      const name = SHARED.get(fn);
      if (name !== undefined) out = new SharedRef(name);
      else {
        const binding = BINDINGS.get(fn);
        if (!binding) return refuse(value, `is a closure (${String(value).replace(/\s+/g, ' ').slice(0, 80)}): make it a method passed with bound(), or shared() if it holds no state`);
        const target = shell(binding.target) as object | undefined;
        if (target === undefined) return undefined;
        out = new FrozenBinding(target, binding.method, binding.args.map(shell));
      }
      copies.set(value, out);
      return out;
    }
    const proto = Object.getPrototypeOf(value) as object | null;
    let kind = kinds.get(proto);
    if (kind === undefined) kinds.set(proto, (kind = kindOf(value as object)));
    switch (kind) {
      // A spread copies the fields into an object shaped like the original, all in fast mode; filling an empty object
      // field by field through a computed key would turn one of more than 16 fields into a slow dictionary object.
      case Kind.object:
        out = Object.setPrototypeOf({ ...(value as object) }, proto) as object;
        break;
      // Filled by push, so its elements kind follows its values as the original's did (a preset length would make it holey).
      case Kind.array:
        out = [];
        break;
      case Kind.map:
        out = new Map();
        break;
      case Kind.set:
        out = new Set();
        break;
      // A snapshot holds its typed arrays frozen, so only a freeze meets a live one.
      case Kind.view: {
        const view = value as ArrayBufferView & { length: number };
        out = new FrozenView(view.constructor.name, frozenBuffer(view.buffer as ArrayBuffer), view.byteOffset, view.length);
        copies.set(value, out);
        return out;
      }
      case Kind.frozenView: {
        const frozen = value as FrozenView;
        let thawed = copies.get(frozen.buffer) as ArrayBuffer | undefined;
        if (!thawed) {
          thawed = new ArrayBuffer(frozen.buffer.byteLength);
          new Uint8Array(thawed).set(frozen.buffer.bytes);
          copies.set(frozen.buffer, thawed);
        }
        out = new VIEWS[frozen.kind]!(thawed, frozen.byteOffset, frozen.length);
        copies.set(value, out);
        return out;
      }
      case Kind.binding: {
        const frozen = value as FrozenBinding;
        // The target's shell has its prototype already, which is all bind needs; its fields are filled in later.
        const target = shell(frozen.target) as object | undefined;
        if (target === undefined) return undefined;
        out = bindTo(target, frozen.method, frozen.args.map(shell));
        copies.set(value, out);
        return out;
      }
      case Kind.sharedRef: {
        const name = (value as SharedRef).name;
        return SHARED_BY_NAME.get(name) ?? refuse(value, `is the shared function "${name}", which this code does not have`);
      }
      default:
        return refuse(value, kind);
    }
    copies.set(value, out);
    fromStack.push(value as object);
    toStack.push(out as object);
    return out;
  };

  const top = shell(root);
  let slots = 0;
  let objects = 0;
  while (fromStack.length > 0) {
    const src = fromStack.pop()!;
    const dst = toStack.pop()!;
    objects++;
    if (Array.isArray(src)) {
      const out = dst as unknown[];
      for (let i = 0; i < src.length; i++) out.push(shell(src[i]));
      slots += src.length;
    } else if (src instanceof Map) {
      const out = dst as Map<unknown, unknown>;
      for (const [k, v] of src) out.set(shell(k), shell(v));
      slots += 3 * src.size;
    } else if (src instanceof Set) {
      const out = dst as Set<unknown>;
      for (const v of src) out.add(shell(v));
      slots += 2 * src.size;
    } else {
      const out = dst as Record<string, unknown>;
      // The spread put the original's values in; only references need their copies. for-in reads V8's cached key
      // list of the shape, where Object.keys would allocate one per object.
      for (const key in out) {
        const v = out[key];
        if (v !== null && (typeof v === 'object' || typeof v === 'function')) out[key] = shell(v);
        slots++;
      }
    }
  }
  size.bytes += objects * OBJECT_BYTES + slots * SLOT_BYTES;
  if (refusals.length > 0) {
    const places = describeRefusals(root, refusals);
    throw new Error(`snapshot: the state holds what a copy cannot take, in ${places.length} place${places.length === 1 ? '' : 's'}:\n${places.join('\n')}`);
  }
  return top as T;
}

/** A snapshot of everything reachable from `root`, sharing nothing mutable with it; throws naming a value it cannot copy. */
export function freeze<T>(root: T): Frozen<T> {
  const size = { bytes: 0 };
  const state = copy(root, size);
  return { state, bytes: size.bytes } as Frozen<T>;
}

/** A live copy of a snapshot's state, which may run on; the snapshot stays as it was, to be thawed again. */
export function thaw<T>(snapshot: Frozen<T>): T {
  return copy(snapshot.state) as T;
}

/**
 * A snapshot in the form a structured clone carries whole, to IndexedDB or another worker: the clone keeps the graph
 * (Maps, Sets, arrays, typed arrays, sharing and cycles) but not the prototypes, so each object's class goes by name.
 */
export interface Portable<T> {
  readonly state: unknown;
  readonly bytes: number;
  /** The class names `nameOf` gave, each once. */
  readonly classes: readonly string[];
  /** Per object in the order `eachObject` meets them: 0 for a plain object, array, Map or Set, else 1 + its class's index. */
  readonly classOf: Uint16Array;
  readonly __portable?: T;
}

/** Every object of a snapshot's graph once (typed arrays left out), in an order that is the same in a structured clone of it. */
function eachObject(root: unknown, visit: (value: object) => void): void {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    if (ArrayBuffer.isView(value)) continue;
    visit(value);
    if (Array.isArray(value)) for (const item of value) stack.push(item);
    else if (value instanceof Map) for (const [k, v] of value) stack.push(k, v);
    else if (value instanceof Set) for (const item of value) stack.push(item);
    else for (const key in value) stack.push((value as Record<string, unknown>)[key]);
  }
}

function isPlain(value: object, proto: object | null): boolean {
  return proto === Object.prototype || Array.isArray(value) || value instanceof Map || value instanceof Set;
}

/** `snapshot` with its classes named by `nameOf` (undefined: a class it does not know, which is refused by name). */
export function toPortable<T>(snapshot: Frozen<T>, nameOf: (proto: object | null) => string | undefined): Portable<T> {
  const index = new Map<object | null, number>();
  const classes: string[] = [];
  const classOf: number[] = [];
  const unknown = new Set<string>();
  eachObject(snapshot.state, (value) => {
    const proto = Object.getPrototypeOf(value) as object | null;
    if (isPlain(value, proto)) {
      classOf.push(0);
      return;
    }
    let id = index.get(proto);
    if (id === undefined) {
      const name = nameOf(proto);
      if (name === undefined) unknown.add((proto as { constructor?: { name?: string } } | null)?.constructor?.name ?? 'an object without a prototype');
      id = classes.push(name ?? '');
      index.set(proto, id);
    }
    classOf.push(id);
  });
  if (unknown.size > 0) throw new Error(`snapshot: cannot name the class${unknown.size === 1 ? '' : 'es'} ${[...unknown].sort().join(', ')} for another worker`);
  if (classes.length >= 0xffff) throw new Error(`snapshot: ${classes.length} classes are more than a portable snapshot names`);
  return { state: snapshot.state, bytes: snapshot.bytes, classes, classOf: Uint16Array.from(classOf) };
}

/** The snapshot a structured clone of `portable` stands for, its objects given their classes by `protoOf`; throws naming what does not fit. */
export function fromPortable<T>(portable: Portable<T>, protoOf: (name: string) => object | null | undefined): Frozen<T> {
  const protos = portable.classes.map((name) => {
    const proto = protoOf(name);
    if (proto === undefined) throw new Error(`snapshot: this code has no class ${name}`);
    return proto;
  });
  const { classOf } = portable;
  const mismatch = (): Error => new Error(`snapshot: the graph does not match its class names (${classOf.length} objects named)`);
  let at = 0;
  eachObject(portable.state, (value) => {
    const id = classOf[at++];
    // A clone gives class objects Object's prototype: a name for anything else, or none left, is another graph's.
    if (id === undefined || (id > 0 && Object.getPrototypeOf(value) !== Object.prototype)) throw mismatch();
    if (id > 0) Object.setPrototypeOf(value, protos[id - 1]!);
  });
  if (at !== classOf.length) throw mismatch();
  return { state: portable.state, bytes: portable.bytes } as Frozen<T>;
}

/** A run's state as a snapshot holds it: typed arrays without their zero tails, not to be run. */
export interface Frozen<T> {
  readonly state: unknown;
  /** About what it takes in memory: its objects and slots at V8's sizes, and its typed arrays' stored bytes. */
  readonly bytes: number;
  readonly __frozen?: T;
}

type MethodKeys<T> = { [K in keyof T]: T[K] extends AnyFunction ? K : never }[keyof T] & string;

/** A scheduler handler that calls a method of member `a` of a fleet with `b`: one member's timer. */
export class MemberCall {
  constructor(
    private readonly members: readonly unknown[],
    private readonly method: string,
    /** A member that left (its slot empty) ignores its timers; otherwise a missing member is a bug. */
    private readonly mayBeGone: boolean,
  ) {}

  call(a: number, b: number): void {
    const member = this.members[a] as Record<string, (b: number) => void> | undefined;
    if (member === undefined || member === null) {
      if (this.mayBeGone) return;
      throw new Error(`no member ${a} for ${this.method}`);
    }
    member[this.method]!(b);
  }
}

/** `(a, b) => members[a].method(b)` as a handler a snapshot can carry; `members` must stay the same array. */
export function onMember<T>(members: readonly (T | undefined)[], method: MethodKeys<T>, mayBeGone = false): (a: number, b: number) => void {
  const call = new MemberCall(members, method, mayBeGone);
  return bound(call, call.call);
}

/** A scheduler handler that calls a method of `target` with member `a` of a list and `b`. */
export class WithMember {
  constructor(
    private readonly target: Record<string, (member: unknown, b: number) => void>,
    private readonly method: string,
    private readonly members: readonly unknown[],
  ) {}

  call(a: number, b: number): void {
    this.target[this.method]!(this.members[a]!, b);
  }
}

/** `(a, b) => target.method(members[a], b)` as a handler a snapshot can carry; `members` must stay the same array. */
export function withMember<M>(target: object, fn: (member: M, b: number) => void, members: readonly M[]): (a: number, b: number) => void {
  const call = new WithMember(target as Record<string, (member: unknown, b: number) => void>, methodName(target, fn as AnyFunction), members);
  return bound(call, call.call);
}
