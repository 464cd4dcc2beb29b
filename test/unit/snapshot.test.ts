import { describe, expect, it } from 'vitest';
import * as snapshot from '../../src/sim/core/snapshot';
import { bound, freeze, fromPortable, onMember, shared, thaw, toPortable, withMember } from '../../src/sim/core/snapshot';

class Counter {
  count = 0;
  readonly bump = bound(this, this.add);

  add(by: number): number {
    this.count += by;
    return this.count;
  }
}

class Member {
  seen: number[] = [];

  hear(b: number): void {
    this.seen.push(b);
  }
}

class Fleet {
  readonly members = [new Member(), new Member()];
  readonly tick = onMember(this.members, 'hear');
  readonly log: string[] = [];
  readonly note = withMember(this, this.noteOf, this.members);

  private noteOf(member: Member, b: number): void {
    this.log.push(`${this.members.indexOf(member)}:${b}`);
  }
}

describe('snapshots of a state graph', () => {
  it('copy class instances with their prototypes, Maps and Sets in order, shared references and cycles', () => {
    const a = new Counter();
    const b = { name: 'b', peer: a, back: null as unknown };
    b.back = b;
    const state = {
      a,
      b,
      same: [a, a],
      map: new Map<unknown, unknown>([
        ['z', 1],
        [a, 'a'],
        ['y', b],
      ]),
      set: new Set(['q', 'p']),
    };
    const copy = thaw(freeze(state));
    expect(copy.a).toBeInstanceOf(Counter);
    expect(copy.a).not.toBe(a);
    expect(copy.same[0]).toBe(copy.a);
    expect(copy.same[1]).toBe(copy.a);
    expect(copy.b.back).toBe(copy.b);
    expect(copy.b.peer).toBe(copy.a);
    expect([...copy.map.keys()]).toEqual(['z', copy.a, 'y']);
    expect(copy.map.get('y')).toBe(copy.b);
    expect([...copy.set]).toEqual(['q', 'p']);
  });

  it('rebinds bound methods to the copy, so a callback the copy holds changes the copy only', () => {
    const a = new Counter();
    a.bump(2);
    const frozen = freeze(a);
    const one = thaw(frozen);
    const two = thaw(frozen);
    expect(one.bump(5)).toBe(7);
    expect(two.bump(1)).toBe(3);
    expect(a.count).toBe(2);
    expect(a.bump(1)).toBe(3);
    // A callback bound with leading arguments keeps them, copied.
    const f = new Fleet();
    const g = thaw(freeze(f));
    g.tick(1, 42);
    g.note(0, 7);
    expect(g.members[1]!.seen).toEqual([42]);
    expect(g.log).toEqual(['0:7']);
    expect(f.members[1]!.seen).toEqual([]);
    expect(f.log).toEqual([]);
  });

  it('keeps typed arrays over one buffer sharing it, and a buffer whole though its zero tail is not stored', () => {
    const buffer = new ArrayBuffer(64);
    const floats = new Float64Array(buffer);
    const ints = new Int32Array(buffer, 8, 4);
    floats[0] = 1.5;
    ints[1] = -3;
    const big = new Uint8Array(1 << 20);
    big[10] = 9;
    const frozen = freeze({ floats, ints, big });
    const { bytes } = (frozen.state as { big: { buffer: { bytes: Uint8Array } } }).big.buffer;
    expect(bytes.length).toBe(11);
    const copy = thaw(frozen);
    expect(copy.big.length).toBe(1 << 20);
    expect(copy.big[10]).toBe(9);
    expect(copy.floats[0]).toBe(1.5);
    expect(copy.ints[1]).toBe(-3);
    expect(copy.ints.buffer).toBe(copy.floats.buffer);
    copy.ints[0] = 7;
    expect(new Int32Array(copy.floats.buffer)[2]).toBe(7);
    expect(ints[0]).toBe(0);
  });

  it('shares a function marked as holding no state, and refuses a closure, naming every place that holds one', () => {
    const twice = shared('test.twice', (n: number) => n * 2);
    expect(thaw(freeze({ twice })).twice).toBe(twice);
    expect(() => shared('test.twice', (n: number) => n)).toThrow('shared: "test.twice" names another function already');
    let hidden = 0;
    const state = { ok: new Counter(), parts: [{ onTick: () => hidden++ }, { onTick: () => hidden-- }], cache: new WeakMap() };
    expect(() => freeze(state)).toThrow(
      /^snapshot: the state holds what a copy cannot take, in 3 places:\nstate\(Object\)\.cache is a WeakMap, which snapshots do not copy\nstate\(Object\)\.parts\.0\(Object\)\.onTick is a closure \(\(\) => hidden\+\+\): make it a method passed with bound\(\), or shared\(\) if it holds no state\nstate\(Object\)\.parts\.1\(Object\)\.onTick is a closure \(\(\) => hidden--\): .*$/,
    );
  });

  it('crosses a structured clone with its classes named, bound callbacks and shared functions included', () => {
    const twice = shared('test.portable-twice', (n: number) => n * 2);
    const f = new Fleet();
    f.tick(0, 5);
    const state = { fleet: f, counter: new Counter(), twice, bare: Object.assign(Object.create(null) as object, { k: 1 }), ints: new Int32Array([1, 2]) };
    const classes = new Map<object | null, string>([
      [Fleet.prototype, 'Fleet'],
      [Member.prototype, 'Member'],
      [Counter.prototype, 'Counter'],
      [null, 'null'],
    ]);
    const frozen = freeze(state);
    const named = (proto: object | null) => classes.get(proto) ?? (proto as { constructor: { name: string } }).constructor.name;
    const portable = toPortable(frozen, named);
    const byName = new Map([...classes].map(([proto, name]) => [name, proto]));
    const protoOf = (name: string) =>
      byName.has(name) ? byName.get(name) : (Object.values(snapshot).find((c) => typeof c === 'function' && c.name === name)?.prototype as object | undefined);
    const copy = thaw(fromPortable(structuredClone(portable), protoOf));
    expect(copy.fleet).toBeInstanceOf(Fleet);
    expect(copy.fleet.members[0]!.seen).toEqual([5]);
    copy.fleet.tick(1, 6);
    copy.fleet.note(1, 7);
    expect(copy.fleet.members[1]!.seen).toEqual([6]);
    expect(copy.fleet.log).toEqual(['1:7']);
    expect(f.members[1]!.seen).toEqual([]);
    expect(copy.counter.bump(3)).toBe(3);
    expect(copy.twice).toBe(twice);
    expect(Object.getPrototypeOf(copy.bare)).toBe(null);
    expect([...copy.ints]).toEqual([1, 2]);
    // A class the names leave out is refused by its name; a graph that is not the one named is refused too.
    expect(() => toPortable(frozen, (proto) => (proto === Counter.prototype ? undefined : named(proto)))).toThrow('snapshot: cannot name the class Counter for another worker');
    expect(() => fromPortable({ ...structuredClone(portable), classOf: portable.classOf.slice(1) }, protoOf)).toThrow(/^snapshot: the graph does not match its class names/);
  });
});
