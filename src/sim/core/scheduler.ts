import type { Duration, SimTime } from './time';

export type HandlerId = number & { __handler: true };
/** Opaque handle of a scheduled event: generation * 2^26 + slot, so a handle to a reused slot is stale. */
export type EventHandle = number;
export type Handler = (a: number, b: number) => void;

const SLOT_BITS = 26;
const SLOT_SPAN = 2 ** SLOT_BITS;
const SLOT_MASK = SLOT_SPAN - 1;
/** Generations wrap here so handles stay below 2^53. */
const GEN_MASK = 2 ** (53 - SLOT_BITS) - 1;

/**
 * Each slot is one 32-byte record, so running or scheduling an event touches a single cache line:
 * three doubles (a, b, seq) then two int32 (handler, generation). While the slot is free its first
 * int32 (inside `a`) links the free list.
 */
const F_A = 0;
const F_B = 1;
const F_SEQ = 2;
const I_NEXT_FREE = 0;
const I_HANDLER = 6;
const I_GEN = 7;
const RECORD_BYTES = 32;

/** The handler field holds the handler id while an event is pending, or one of these markers. */
const FREE = -1;
const CANCELLED = -2;

/** Heap entries past the end read +Infinity, so a 4-way child choice needs no bounds checks. */
const HEAP_PAD = 4;

/**
 * Up to this many heap entries (about 400 KiB with their slot records, within a typical L2) the pop of
 * the running event is deferred (see topTaken). Beyond it the working set misses cache, and popping
 * before the handler runs lets the sift-down's misses overlap with the miss on the event's own record,
 * which measured faster (bench/hold.ts) than saving the push.
 */
const DEFER_POP_MAX = 8192;

/** Compaction only pays off once cancelled entries are both numerous and the majority. */
const COMPACT_MIN = 64;

/**
 * Discrete-event queue ordered by (time, insertion sequence).
 *
 * Events live in a slot pool (handler, arguments, sequence, generation) recycled through a free list.
 * Future events sit in a 4-ary heap of (time, slot) pairs kept in two typed arrays in heap order,
 * compared by time alone so sifting is branch-free and touches contiguous memory; four children share
 * a cache line or two, and the tree is half as deep as a binary one. Events due at the
 * current instant sit in a FIFO ring instead: scheduling at `now` appends to it, and when the clock
 * reaches a time held by several heap entries they move to the FIFO together, sorted by sequence.
 * While a handler runs, the heap holds only times > now and the FIFO only time == now.
 *
 * Cancellation is lazy: the slot is marked and skipped when reached, and both structures are rebuilt
 * without the dead entries once those outnumber the live ones, which keeps memory bounded.
 */
export class Scheduler {
  private t = 0;
  private size = 0;
  private live = 0;
  private dead = 0;
  private ran = 0;
  private seq = 0;
  private capacity: number;
  private used = 0;
  private freeHead = -1;
  private running = false;
  /**
   * The heap root belongs to an event that already ran. In a small heap its removal is deferred so that
   * the handler's first future event can take its place with one sift-down instead of a pop plus a push.
   */
  private topTaken = false;

  private heapTime: Float64Array;
  private heapSlot: Int32Array;

  private fifo: Int32Array;
  private fifoHead = 0;
  private fifoLen = 0;

  /** Slot records as doubles (index slot*4 + F_*) and as int32 (index slot*8 + I_*), same bytes. */
  private slotF: Float64Array;
  private slotI: Int32Array;

  private readonly handlers: Handler[] = [];
  private readonly handlerNames: string[] = [];

  constructor(initialCapacity = 1024) {
    if (!Number.isInteger(initialCapacity) || initialCapacity < 1 || initialCapacity > SLOT_SPAN) {
      throw new RangeError(`initialCapacity must be an integer in [1, ${SLOT_SPAN}], got ${initialCapacity}`);
    }
    // A power of two so the FIFO ring wraps with a mask.
    let n = 1;
    while (n < initialCapacity) n *= 2;
    this.capacity = n;
    this.heapTime = new Float64Array(n + HEAP_PAD).fill(Infinity);
    this.heapSlot = new Int32Array(n + HEAP_PAD);
    this.fifo = new Int32Array(n);
    const records = new ArrayBuffer(n * RECORD_BYTES);
    this.slotF = new Float64Array(records);
    this.slotI = new Int32Array(records);
  }

  /** Time of the event being (or last) executed, or the target of the last runUntil. */
  get now(): SimTime {
    return this.t as SimTime;
  }

  /** Live events queued (cancelled ones excluded). */
  get pending(): number {
    return this.live;
  }

  /** Events executed so far. */
  get executed(): number {
    return this.ran;
  }

  register(name: string, handler: Handler): HandlerId {
    this.handlers.push(handler);
    this.handlerNames.push(name);
    return (this.handlers.length - 1) as HandlerId;
  }

  /** Name given to a handler at registration, for debugging. */
  handlerName(h: HandlerId): string | undefined {
    return this.handlerNames[h];
  }

  /** Schedules handler h with arguments (a, b) at an integer time in [now, 2^53). */
  at(time: SimTime, h: HandlerId, a = 0, b = 0): EventHandle {
    const now = this.t;
    if (!(time >= now && time <= Number.MAX_SAFE_INTEGER) || Math.floor(time) !== time) {
      throw badTime('schedule at', time, now);
    }
    if (h >>> 0 !== h || h >= this.handlers.length) throw new RangeError(`unknown handler id ${h}`);
    let slot = this.freeHead;
    if (slot >= 0) {
      this.freeHead = this.slotI[(slot << 3) + I_NEXT_FREE]!;
    } else {
      if (this.used === this.capacity) this.grow();
      slot = this.used++;
    }
    const f = slot << 2;
    const slotF = this.slotF;
    slotF[f + F_A] = a;
    slotF[f + F_B] = b;
    slotF[f + F_SEQ] = this.seq++;
    const slotI = this.slotI;
    slotI[(slot << 3) + I_HANDLER] = h;
    this.live++;
    if (time === now) {
      this.fifo[(this.fifoHead + this.fifoLen++) & (this.capacity - 1)] = slot;
    } else if (this.topTaken) {
      this.topTaken = false;
      this.siftDown(0, time, slot, this.size);
    } else {
      this.heapPush(time, slot);
    }
    return slotI[(slot << 3) + I_GEN]! * SLOT_SPAN + slot;
  }

  after(delay: Duration, h: HandlerId, a = 0, b = 0): EventHandle {
    return this.at((this.t + delay) as SimTime, h, a, b);
  }

  /** True if the event was pending; false for a handle that already ran or was cancelled (slot reuse included). */
  cancel(handle: EventHandle): boolean {
    if (!(handle >= 0) || Math.floor(handle) !== handle || handle > Number.MAX_SAFE_INTEGER) return false;
    const slot = handle & SLOT_MASK;
    const i = slot << 3;
    const slotI = this.slotI;
    if (slot >= this.used || slotI[i + I_GEN] !== Math.floor(handle / SLOT_SPAN) || slotI[i + I_HANDLER]! < 0) {
      return false;
    }
    slotI[i + I_HANDLER] = CANCELLED;
    this.live--;
    this.dead++;
    if (this.dead > COMPACT_MIN && this.dead > this.live) this.compact();
    return true;
  }

  /** Time of the next live event, or undefined when none is queued. */
  nextTime(): SimTime | undefined {
    const slotI = this.slotI;
    while (this.fifoLen > 0) {
      const slot = this.fifo[this.fifoHead]!;
      if (slotI[(slot << 3) + I_HANDLER] !== CANCELLED) return this.t as SimTime;
      this.fifoShift();
      this.dropDead(slot);
    }
    this.settle();
    while (this.size > 0) {
      const slot = this.heapSlot[0]!;
      if (slotI[(slot << 3) + I_HANDLER] !== CANCELLED) return this.heapTime[0] as SimTime;
      this.popTop();
      this.dropDead(slot);
    }
    return undefined;
  }

  /** Runs exactly one live event; false if none is queued. */
  step(): boolean {
    this.enter();
    let ran: boolean;
    try {
      ran = this.runNext(Infinity);
    } catch (e) {
      this.running = false;
      throw e;
    }
    this.running = false;
    return ran;
  }

  /** Runs every event with time <= t in (time, sequence) order, then sets now to t. Returns how many ran. */
  runUntil(t: SimTime): number {
    if (!(t >= this.t) || Math.floor(t) !== t) throw badTime('run until', t, this.t);
    this.enter();
    const before = this.ran;
    try {
      while (this.runNext(t));
    } catch (e) {
      this.running = false;
      throw e;
    }
    this.running = false;
    this.t = t;
    return this.ran - before;
  }

  private enter(): void {
    if (this.running) throw new Error('Scheduler.step/runUntil called from inside an event handler');
    this.running = true;
  }

  /** Runs the earliest live event if its time is <= limit (FIFO entries are at now, which is <= limit). */
  private runNext(limit: number): boolean {
    const slotI = this.slotI;
    for (;;) {
      if (this.fifoLen > 0) {
        const slot = this.fifo[this.fifoHead]!;
        this.fifoShift();
        const h = slotI[(slot << 3) + I_HANDLER]!;
        if (h === CANCELLED) {
          this.dropDead(slot);
          continue;
        }
        this.run(slot, h, this.t);
        return true;
      }
      if (this.topTaken) this.settle();
      const size = this.size;
      if (size === 0) return false;
      const time = this.heapTime[0]!;
      if (time > limit) return false;
      const slot = this.heapSlot[0]!;
      const h = slotI[(slot << 3) + I_HANDLER]!;
      if (h === CANCELLED) {
        this.popTop();
        this.dropDead(slot);
        continue;
      }
      if (size > DEFER_POP_MAX) {
        // The record load above is already in flight, so its likely cache miss overlaps with the pop's.
        this.popTop();
        if (this.heapTime[0] === time) {
          this.gatherTies(slot, time);
          continue;
        }
      } else {
        // Any other entry at this time has only equal-time ancestors, so one of them is a child of the
        // root (entries past the end hold +Infinity, so no size checks are needed).
        const heapTime = this.heapTime;
        if (heapTime[1] === time || heapTime[2] === time || heapTime[3] === time || heapTime[4] === time) {
          this.popTop();
          this.gatherTies(slot, time);
          continue;
        }
        this.topTaken = true;
      }
      this.run(slot, h, time);
      return true;
    }
  }

  private run(slot: number, h: number, time: number): void {
    const a = this.slotF[(slot << 2) + F_A]!;
    const b = this.slotF[(slot << 2) + F_B]!;
    // Released before the call so the handler can reuse the slot and a cancel of this event is stale.
    this.release(slot);
    this.live--;
    this.ran++;
    this.t = time;
    const handler = this.handlers[h]!;
    handler(a, b);
  }

  /**
   * The heap orders by time only, so the entries sharing the time just popped (the FIFO is empty
   * here) move to the FIFO and are sorted by insertion sequence. The clock moves to that time.
   */
  private gatherTies(first: number, time: number): void {
    const fifo = this.fifo;
    const slotI = this.slotI;
    this.fifoHead = 0;
    fifo[0] = first;
    let n = 1;
    while (this.size > 0 && this.heapTime[0] === time) {
      const slot = this.heapSlot[0]!;
      this.popTop();
      if (slotI[(slot << 3) + I_HANDLER] === CANCELLED) this.dropDead(slot);
      else fifo[n++] = slot;
    }
    this.fifoLen = n;
    this.t = time;
    if (n <= 32) {
      const slotF = this.slotF;
      for (let i = 1; i < n; i++) {
        const slot = fifo[i]!;
        const key = slotF[(slot << 2) + F_SEQ]!;
        let j = i - 1;
        while (j >= 0 && slotF[(fifo[j]! << 2) + F_SEQ]! > key) {
          fifo[j + 1] = fifo[j]!;
          j--;
        }
        fifo[j + 1] = slot;
      }
    } else {
      const slotF = this.slotF;
      fifo.set(Array.from(fifo.subarray(0, n)).sort((x, y) => slotF[(x << 2) + F_SEQ]! - slotF[(y << 2) + F_SEQ]!));
    }
  }

  private fifoShift(): void {
    this.fifoHead = (this.fifoHead + 1) & (this.capacity - 1);
    this.fifoLen--;
  }

  private dropDead(slot: number): void {
    this.dead--;
    this.release(slot);
  }

  private release(slot: number): void {
    const i = slot << 3;
    const slotI = this.slotI;
    slotI[i + I_HANDLER] = FREE;
    slotI[i + I_GEN] = (slotI[i + I_GEN]! + 1) & GEN_MASK;
    slotI[i + I_NEXT_FREE] = this.freeHead;
    this.freeHead = slot;
  }

  /** Removes the root left by the last executed event if its handler scheduled nothing into the heap. */
  private settle(): void {
    if (this.topTaken) {
      this.topTaken = false;
      this.popTop();
    }
  }

  private heapPush(time: number, slot: number): void {
    const heapTime = this.heapTime;
    const heapSlot = this.heapSlot;
    let pos = this.size++;
    while (pos > 0) {
      const parent = (pos - 1) >> 2;
      const pt = heapTime[parent]!;
      if (pt <= time) break;
      heapTime[pos] = pt;
      heapSlot[pos] = heapSlot[parent]!;
      pos = parent;
    }
    heapTime[pos] = time;
    heapSlot[pos] = slot;
  }

  private popTop(): void {
    const last = --this.size;
    const heapTime = this.heapTime;
    const time = heapTime[last]!;
    heapTime[last] = Infinity;
    if (last > 0) this.siftDown(0, time, this.heapSlot[last]!, last);
  }

  /**
   * Places (time, slot) at pos or below it in a heap of n entries. The smallest of the four children is
   * found without branches (the choice is unpredictable); the +Infinity padding past n is never chosen.
   */
  private siftDown(pos: number, time: number, slot: number, n: number): void {
    const heapTime = this.heapTime;
    const heapSlot = this.heapSlot;
    for (;;) {
      const c = 4 * pos + 1;
      if (c >= n) break;
      const i01 = c + +(heapTime[c + 1]! < heapTime[c]!);
      const i23 = c + 2 + +(heapTime[c + 3]! < heapTime[c + 2]!);
      const child = i01 ^ ((i01 ^ i23) & -+(heapTime[i23]! < heapTime[i01]!));
      const ct = heapTime[child]!;
      if (ct >= time) break;
      heapTime[pos] = ct;
      heapSlot[pos] = heapSlot[child]!;
      pos = child;
    }
    heapTime[pos] = time;
    heapSlot[pos] = slot;
  }

  /** Drops cancelled entries from the FIFO (keeping order) and the heap (rebuilt bottom-up in O(n)). */
  private compact(): void {
    this.settle();
    const slotI = this.slotI;
    const mask = this.capacity - 1;
    const fifo = this.fifo;
    let kept = 0;
    for (let i = 0; i < this.fifoLen; i++) {
      const slot = fifo[(this.fifoHead + i) & mask]!;
      if (slotI[(slot << 3) + I_HANDLER] === CANCELLED) this.release(slot);
      else fifo[(this.fifoHead + kept++) & mask] = slot;
    }
    this.fifoLen = kept;

    const heapTime = this.heapTime;
    const heapSlot = this.heapSlot;
    let n = 0;
    for (let i = 0; i < this.size; i++) {
      const slot = heapSlot[i]!;
      if (slotI[(slot << 3) + I_HANDLER] === CANCELLED) {
        this.release(slot);
      } else {
        heapTime[n] = heapTime[i]!;
        heapSlot[n] = slot;
        n++;
      }
    }
    heapTime.fill(Infinity, n, this.size);
    this.size = n;
    this.dead = 0;
    for (let i = (n - 2) >> 2; i >= 0; i--) this.siftDown(i, heapTime[i]!, heapSlot[i]!, n);
  }

  private grow(): void {
    const n = this.capacity;
    if (n >= SLOT_SPAN) throw new RangeError(`Scheduler is full: ${SLOT_SPAN} pending events`);
    const m = n * 2;
    const fifo = new Int32Array(m);
    for (let i = 0; i < this.fifoLen; i++) fifo[i] = this.fifo[(this.fifoHead + i) & (n - 1)]!;
    this.fifo = fifo;
    this.fifoHead = 0;
    this.capacity = m;
    this.heapTime = grown(this.heapTime, new Float64Array(m + HEAP_PAD).fill(Infinity));
    this.heapSlot = grown(this.heapSlot, new Int32Array(m + HEAP_PAD));
    this.slotF = grown(this.slotF, new Float64Array(new ArrayBuffer(m * RECORD_BYTES)));
    this.slotI = new Int32Array(this.slotF.buffer);
  }
}

function grown<T extends Float64Array | Int32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

function badTime(what: string, time: number, now: number): RangeError {
  return new RangeError(`cannot ${what} ${time}: must be an integer >= now (${now})`);
}
