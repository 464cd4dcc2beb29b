import type { Duration, SimTime } from './time';

export type HandlerId = number & { __handler: true };
/** Opaque handle of a scheduled event: its insertion sequence number, never reused. */
export type EventHandle = number;
export type Handler = (a: number, b: number) => void;

/** A radix entry's key packs the event's sequence number and handler id: seq * HANDLER_SPAN + handler. */
const HANDLER_SPAN = 1024;
/** Keys stay below 2^53, so they are exact. */
const SEQ_LIMIT = 2 ** 53 / HANDLER_SPAN;

/**
 * Doubles per slot record (seq, a, b, then the handler id as the first int32 of the fourth) and per
 * radix entry (time, key, a, b).
 */
const ENTRY = 4;
const I_HANDLER = 6;

/**
 * The heap is binary with its root at index 1, so the children of index p are 2p and 2p + 1. Index 0
 * holds the entry being placed, as a call that is not inlined would box its time; +Infinity past the
 * last entry lets a sift read both children without a bounds check.
 */
const ROOT = 1;
const HEAP_PAD = 2;

/**
 * Radix mode keys buckets by the highest byte in which an entry's time differs from `bucketBase` (7
 * levels for times below 2^53) and by that byte's value, so the lowest non-empty bucket holds the
 * earliest entries, and taking it spreads them over lower levels: an entry moves at most once per
 * level. Buckets are lists of chunks from one pool, so memory follows the entries, not each bucket's
 * peak.
 */
const LEVELS = 7;
const BUCKETS = LEVELS * 256;
const CHUNK = 64;
const TWO_32 = 2 ** 32;

/**
 * What detach does with each entry of a bucket: to the FIFO if at `t`, else to a lower bucket; to
 * the heap; back to its bucket if still pending (compaction); nothing (the entries are all dead).
 */
const SPREAD = 0;
const TO_HEAP = 1;
const KEEP_PENDING = 2;
const DROP = 3;

/**
 * A larger heap misses cache on the deep levels of a sift and on the record of the event it runs,
 * while radix buckets stream through their chunks: they measured as fast at 10^4 pending events and
 * faster beyond (bench/hold.ts), the heap faster at a few thousand. The gap between the two limits
 * keeps a queue near them from switching back and forth.
 */
const RADIX_ABOVE = 8192;
const HEAP_BELOW = 2048;

/** Most live events at once; it also keeps the pending-bit ring within the 2^27 words seq >>> 5 can address. */
const MAX_LIVE = 2 ** 26;

/** Compaction only pays off once cancelled entries are both numerous and the majority. */
const COMPACT_MIN = 64;

/** The pending bitset may grow to this many bits per live event before old entries move to a Set. */
const BITS_PER_LIVE = 64;
const MIN_BIT_WORDS = 64;

/**
 * Discrete-event queue ordered by (time, insertion sequence).
 *
 * Events due now wait in a FIFO ring in sequence order; scheduling at the current time appends to it.
 * Later events sit in a binary heap of (time, slot) ordered by time alone, their handler and arguments
 * in the slot's record, or, once the queue is large, in radix buckets whose entries carry the whole
 * event, so that running one reads memory the queue has just streamed through rather than a record
 * written long ago. Whenever the FIFO runs dry, the events with the next time move into it, sorted by
 * sequence unless already in order.
 *
 * Whether an event is still pending is one bit per sequence number, in a ring covering the sequences
 * from the oldest pending one (`base`) to the newest; pending events too old for the ring move to a
 * Set. Cancelling clears the bit and leaves the entry in place to be skipped when reached; all
 * structures are rebuilt without dead entries once those outnumber the live ones, which keeps memory
 * bounded.
 */
export class Scheduler {
  private t = 0;
  private live = 0;
  private dead = 0;
  private cancelled = 0;
  private seq = 0;
  private running = false;

  /** Slot records of the events in the heap and the FIFO, recycled through a free list. */
  private records: Float64Array;
  private recordInts: Int32Array;
  private nextFree: Int32Array;
  private freeSlot = -1;
  private slotsUsed = 0;

  /** Slots of events due at t; while it is not empty, no heap entry or bucket holds time t. */
  private fifo: Int32Array;
  private fifoHead = 0;
  private fifoLen = 0;

  /** Heap entries, all with time >= t. */
  private size = 0;
  private heapCapacity: number;
  private heapTime: Float64Array;
  private heapSlot: Int32Array;
  /**
   * The heap root belongs to an event that already ran. Its removal is deferred so that the handler's
   * first future event can take its place with one sift-down instead of a pop plus a push.
   */
  private topTaken = false;

  private radix = false;
  /** A new event's time, or an entry on its way to a bucket: a call that is not inlined boxes doubles. */
  private readonly stage = new Float64Array(ENTRY);
  /** Bucketed times are > bucketBase, which only moves to the earliest of them, and <= t. */
  private bucketBase = 0;
  private pool = new Float64Array(0);
  private link = new Int32Array(0);
  private chunksUsed = 0;
  private freeChunk = -1;
  private readonly bucketHead = new Int32Array(BUCKETS).fill(-1);
  private readonly bucketTail = new Int32Array(BUCKETS).fill(-1);
  /** Entries in the bucket's last chunk. */
  private readonly bucketFill = new Int32Array(BUCKETS);
  private readonly bucketMin = new Float64Array(BUCKETS);
  /** One bit per non-empty bucket, and one bit per non-zero word of those (words 0-31, then 32-55). */
  private readonly bucketBits = new Int32Array(BUCKETS / 32);
  private wordsLow = 0;
  private wordsHigh = 0;

  /**
   * Bit seq % (32 * words) is set while event seq >= base is pending. Word indices come from
   * seq >>> 5, which is exact modulo 2^27 words, more than the ring ever holds (see makeRoom).
   */
  private bits: Int32Array;
  private bitsMask: number;
  /** A multiple of 32; no event below it is pending unless listed in `old`. */
  private base = 0;
  /** base + the ring's span: the first sequence number without a bit. */
  private bitsEnd: number;
  private readonly old = new Set<number>();

  private readonly handlers: Handler[] = [];
  private readonly handlerNames: string[] = [];

  constructor(initialCapacity = 1024) {
    if (!Number.isInteger(initialCapacity) || initialCapacity < 1 || initialCapacity > MAX_LIVE) {
      throw new RangeError(`initialCapacity must be an integer in [1, ${MAX_LIVE}], got ${initialCapacity}`);
    }
    // A power of two so the FIFO ring wraps with a mask.
    let n = 1;
    while (n < initialCapacity) n *= 2;
    this.records = new Float64Array(n * ENTRY);
    this.recordInts = new Int32Array(this.records.buffer);
    this.nextFree = new Int32Array(n);
    this.fifo = new Int32Array(n);
    this.heapCapacity = Math.min(n, RADIX_ABOVE);
    this.heapTime = new Float64Array(ROOT + this.heapCapacity + HEAP_PAD).fill(Infinity);
    this.heapSlot = new Int32Array(ROOT + this.heapCapacity + HEAP_PAD);
    const words = Math.max(MIN_BIT_WORDS, n / 8);
    this.bits = new Int32Array(words);
    this.bitsMask = words - 1;
    this.bitsEnd = words * 32;
  }

  /** Time of the event being (or last) executed, or the target of the last runUntil. */
  get now(): SimTime {
    return this.t as SimTime;
  }

  /** Live events queued (cancelled ones excluded). */
  get pending(): number {
    return this.live;
  }

  /** Events scheduled so far (each takes the next sequence number): unchanged between two calls, nothing was scheduled between them. */
  get scheduled(): number {
    return this.seq;
  }

  /** Events executed so far. */
  get executed(): number {
    return this.seq - this.live - this.cancelled;
  }

  register(name: string, handler: Handler): HandlerId {
    if (this.handlers.length === HANDLER_SPAN) throw new RangeError(`at most ${HANDLER_SPAN} handlers`);
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
    this.stage[0] = time;
    return this.add(h, a, b);
  }

  after(delay: Duration, h: HandlerId, a = 0, b = 0): EventHandle {
    this.stage[0] = this.t + delay;
    return this.add(h, a, b);
  }

  /** at() with the time in the stage, since a call that is not inlined boxes a time beyond 2^31. */
  private add(h: number, a: number, b: number): EventHandle {
    const time = this.stage[0]!;
    if (!(time >= this.t && time <= Number.MAX_SAFE_INTEGER) || Math.floor(time) !== time || h >>> 0 !== h || h >= this.handlers.length || this.live === MAX_LIVE) {
      throw this.refusal(time, h);
    }
    const seq = this.seq;
    if (seq >= this.bitsEnd) this.makeRoom();
    const w = (seq >>> 5) & this.bitsMask;
    this.bits[w] = this.bits[w]! | (1 << (seq & 31));
    this.seq = seq + 1;
    this.live++;
    if (time !== this.t && this.radix) {
      this.bucketNew(seq, h, a, b);
      return seq;
    }
    const slot = this.newSlot(seq, h, a, b);
    if (time === this.t) {
      this.fifoPush(slot);
    } else {
      this.heapTime[0] = time;
      this.heapAdd(slot);
    }
    return seq;
  }

  /** True if the event was pending; false for a handle that already ran or was cancelled. */
  cancel(handle: EventHandle): boolean {
    if (!(handle >= 0 && handle < this.seq) || Math.floor(handle) !== handle) return false;
    if (!this.take(handle)) return false;
    this.live--;
    this.dead++;
    this.cancelled++;
    if (this.dead > COMPACT_MIN && this.dead > this.live) this.compact();
    return true;
  }

  /** Time of the next live event, or undefined when none is queued. */
  nextTime(): SimTime | undefined {
    this.settle();
    while (this.fifoLen > 0) {
      const slot = this.fifo[this.fifoHead]!;
      if (this.isPending(this.records[slot * ENTRY]!)) return this.t as SimTime;
      this.fifoShift();
      this.dropSlot(slot);
    }
    if (this.radix) return this.nextBucketTime();
    while (this.size > 0) {
      const slot = this.heapSlot[ROOT]!;
      if (this.isPending(this.records[slot * ENTRY]!)) return this.heapTime[ROOT] as SimTime;
      this.popRoot();
      this.dropSlot(slot);
    }
    return undefined;
  }

  /** Runs exactly one live event; false if none is queued. */
  step(): boolean {
    this.enter();
    let ran: boolean;
    try {
      // With nothing live, skipping dead events could move the clock.
      ran = this.live > 0 && this.runNext(Number.MAX_SAFE_INTEGER);
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
    const before = this.executed;
    try {
      while (this.runNext(t));
    } catch (e) {
      this.running = false;
      throw e;
    }
    this.running = false;
    this.t = t;
    return this.executed - before;
  }

  private enter(): void {
    if (this.running) throw new Error('Scheduler.step/runUntil called from inside an event handler');
    this.running = true;
  }

  /**
   * Runs the earliest live event if its time is <= limit (FIFO events are due now, and now <= limit).
   * An empty heap reads +Infinity at the root, which a finite limit never admits.
   */
  private runNext(limit: number): boolean {
    for (;;) {
      let slot: number;
      if (this.fifoLen > 0) {
        slot = this.fifo[this.fifoHead]!;
        this.fifoShift();
      } else if (this.radix) {
        if (!this.refill(limit)) return false;
        continue;
      } else {
        if (this.topTaken) {
          this.topTaken = false;
          this.popRoot();
        }
        const heapTime = this.heapTime;
        const time = heapTime[ROOT]!;
        if (time > limit) return false;
        // Any other entry at this time has only equal-time ancestors, so one of them is a child of the root.
        if (heapTime[2] === time || heapTime[3] === time) {
          this.gatherTies(time);
          continue;
        }
        slot = this.heapSlot[ROOT]!;
        this.topTaken = true;
        this.t = time;
      }
      const records = this.records;
      const r = slot * ENTRY;
      if (!this.take(records[r]!)) {
        this.dropSlot(slot);
        continue;
      }
      const a = records[r + 1]!;
      const b = records[r + 2]!;
      const h = this.recordInts[slot * 8 + I_HANDLER]!;
      // Freed before the call so the handler's first event reuses the record while it is in cache.
      this.nextFree[slot] = this.freeSlot;
      this.freeSlot = slot;
      this.live--;
      this.handlers[h]!(a, b);
      return true;
    }
  }

  private refusal(time: number, h: number): RangeError {
    if (!(time >= this.t && time <= Number.MAX_SAFE_INTEGER) || Math.floor(time) !== time) {
      return badTime('schedule at', time, this.t);
    }
    if (h >>> 0 !== h || h >= this.handlers.length) return new RangeError(`unknown handler id ${h}`);
    return new RangeError(`Scheduler is full: ${MAX_LIVE} pending events`);
  }

  /** Clears the pending mark of event seq; false if it was not pending. */
  private take(seq: number): boolean {
    if (seq < this.base) return this.old.delete(seq);
    const w = (seq >>> 5) & this.bitsMask;
    const bit = 1 << (seq & 31);
    const word = this.bits[w]!;
    this.bits[w] = word & ~bit;
    return (word & bit) !== 0;
  }

  private isPending(seq: number): boolean {
    if (seq < this.base) return this.old.has(seq);
    return (this.bits[(seq >>> 5) & this.bitsMask]! & (1 << (seq & 31))) !== 0;
  }

  /**
   * Called when the next sequence number would wrap onto the bit of `base`. Skips words with nothing
   * pending; if the span is still over half the ring, doubles the ring while it stays within
   * BITS_PER_LIVE bits per live event, else moves the oldest quarter's pending events to `old`.
   */
  private makeRoom(): void {
    const seq = this.seq;
    if (seq >= SEQ_LIMIT) throw new RangeError(`Scheduler is out of sequence numbers: ${SEQ_LIMIT} events`);
    const bits = this.bits;
    const mask = this.bitsMask;
    while (this.base + 32 <= seq && bits[(this.base / 32) & mask] === 0) this.base += 32;
    const span = (mask + 1) * 32;
    this.bitsEnd = Math.min(this.base + span, SEQ_LIMIT);
    if (seq - this.base < span / 2) return;
    // live <= MAX_LIVE, so the ring stays within 2^27 words.
    if (span < BITS_PER_LIVE * this.live) {
      const grown = new Int32Array((mask + 1) * 2);
      const grownMask = grown.length - 1;
      for (let w = this.base / 32; w <= seq / 32; w++) grown[w & grownMask] = bits[w & mask]!;
      this.bits = grown;
      this.bitsMask = grownMask;
      this.bitsEnd = Math.min(this.base + span * 2, SEQ_LIMIT);
      return;
    }
    const newBase = (Math.floor(seq / 32) - (mask + 1) / 4) * 32;
    for (let w = this.base / 32; w < newBase / 32; w++) {
      let word = bits[w & mask]!;
      bits[w & mask] = 0;
      while (word !== 0) {
        const low = word & -word;
        this.old.add(w * 32 + 31 - Math.clz32(low));
        word ^= low;
      }
    }
    this.base = newBase;
    this.bitsEnd = Math.min(newBase + span, SEQ_LIMIT);
  }

  private newSlot(seq: number, h: number, a: number, b: number): number {
    let slot = this.freeSlot;
    if (slot >= 0) {
      this.freeSlot = this.nextFree[slot]!;
    } else {
      if (this.slotsUsed === this.nextFree.length) this.growSlots();
      slot = this.slotsUsed++;
    }
    const r = slot * ENTRY;
    const records = this.records;
    records[r] = seq;
    records[r + 1] = a;
    records[r + 2] = b;
    this.recordInts[slot * 8 + I_HANDLER] = h;
    return slot;
  }

  /** Puts a new event, whose time is in the stage, in its bucket. */
  private bucketNew(seq: number, h: number, a: number, b: number): void {
    const stage = this.stage;
    stage[1] = seq * HANDLER_SPAN + h;
    stage[2] = a;
    stage[3] = b;
    this.toBucket(stage, 0);
  }

  /** Moves the event at heap index p (0 for the one being placed) to the stage and frees its slot. */
  private stageHeapEntry(p: number): void {
    const stage = this.stage;
    const slot = this.heapSlot[p]!;
    const r = slot * ENTRY;
    stage[0] = this.heapTime[p]!;
    stage[1] = this.records[r]! * HANDLER_SPAN + this.recordInts[slot * 8 + I_HANDLER]!;
    stage[2] = this.records[r + 1]!;
    stage[3] = this.records[r + 2]!;
    this.nextFree[slot] = this.freeSlot;
    this.freeSlot = slot;
  }

  /** A slot holding the radix entry at index i of `from`. */
  private slotOf(from: Float64Array, i: number): number {
    const key = from[i + 1]!;
    const seq = seqOf(key);
    return this.newSlot(seq, key - seq * HANDLER_SPAN, from[i + 2]!, from[i + 3]!);
  }

  /** Frees the slot of a cancelled event that was just reached. */
  private dropSlot(slot: number): void {
    this.nextFree[slot] = this.freeSlot;
    this.freeSlot = slot;
    this.dead--;
  }

  private growSlots(): void {
    const n = this.nextFree.length * 2;
    const records = new Float64Array(n * ENTRY);
    records.set(this.records);
    const nextFree = new Int32Array(n);
    nextFree.set(this.nextFree);
    this.records = records;
    this.recordInts = new Int32Array(records.buffer);
    this.nextFree = nextFree;
  }

  private fifoPush(slot: number): void {
    if (this.fifoLen === this.fifo.length) this.growFifo();
    this.fifo[(this.fifoHead + this.fifoLen++) & (this.fifo.length - 1)] = slot;
  }

  private growFifo(): void {
    const mask = this.fifo.length - 1;
    const fifo = new Int32Array(this.fifo.length * 2);
    for (let i = 0; i < this.fifoLen; i++) fifo[i] = this.fifo[(this.fifoHead + i) & mask]!;
    this.fifo = fifo;
    this.fifoHead = 0;
  }

  private fifoShift(): void {
    this.fifoHead = (this.fifoHead + 1) & (this.fifo.length - 1);
    this.fifoLen--;
  }

  /**
   * Events reach the empty FIFO grouped by time but not necessarily in sequence order (the heap
   * ignores it, and buckets may hold events from the heap or a compaction); puts them in order.
   */
  private sortFifo(): void {
    const n = this.fifoLen;
    const fifo = this.fifo;
    const records = this.records;
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) sorted = records[fifo[i - 1]! * ENTRY]! < records[fifo[i]! * ENTRY]!;
    if (sorted) return;
    if (n <= 32) {
      for (let i = 1; i < n; i++) {
        const slot = fifo[i]!;
        const seq = records[slot * ENTRY]!;
        let j = i - 1;
        while (j >= 0 && records[fifo[j]! * ENTRY]! > seq) {
          fifo[j + 1] = fifo[j]!;
          j--;
        }
        fifo[j + 1] = slot;
      }
    } else {
      const order = Array.from(fifo.subarray(0, n)).sort((x, y) => records[x * ENTRY]! - records[y * ENTRY]!);
      fifo.set(order);
    }
  }

  /** Moves the heap entries at `time` (the root's) to the empty FIFO in sequence order; the clock moves there. */
  private gatherTies(time: number): void {
    this.fifoHead = 0;
    this.t = time;
    while (this.heapTime[ROOT] === time) {
      this.fifoPush(this.heapSlot[ROOT]!);
      this.popRoot();
    }
    this.sortFifo();
  }

  /** Removes the root left by the last executed event if its handler scheduled nothing into the heap. */
  private settle(): void {
    if (this.topTaken) {
      this.topTaken = false;
      this.popRoot();
    }
  }

  /** Adds the slot's new event, whose time is at index 0 of heapTime, in place of a taken root if any. */
  private heapAdd(slot: number): void {
    if (this.topTaken) {
      this.topTaken = false;
      this.siftDown(ROOT, slot, this.size);
    } else {
      this.push(slot);
    }
  }

  /** Adds the slot's event, whose time is at index 0 of heapTime. */
  private push(slot: number): void {
    if (this.size === this.heapCapacity && !this.growHeap(slot)) return;
    const heapTime = this.heapTime;
    const heapSlot = this.heapSlot;
    const time = heapTime[0]!;
    let p = ROOT + this.size++;
    while (p > ROOT) {
      const parent = p >> 1;
      const pt = heapTime[parent]!;
      if (pt <= time) break;
      heapTime[p] = pt;
      heapSlot[p] = heapSlot[parent]!;
      p = parent;
    }
    heapTime[p] = time;
    heapSlot[p] = slot;
  }

  private popRoot(): void {
    const n = this.size--;
    const last = ROOT + n - 1;
    const heapTime = this.heapTime;
    if (n > 1) {
      heapTime[0] = heapTime[last]!;
      heapTime[last] = Infinity;
      this.siftDown(ROOT, this.heapSlot[last]!, n - 1);
    } else {
      heapTime[ROOT] = Infinity;
    }
  }

  /**
   * Places the slot's event, whose time is at index 0, at index p or below it in a heap of n entries.
   * The smaller child is chosen without a branch (the choice is unpredictable).
   */
  private siftDown(p: number, slot: number, n: number): void {
    const heapTime = this.heapTime;
    const heapSlot = this.heapSlot;
    const time = heapTime[0]!;
    for (;;) {
      let child = p << 1;
      if (child > n) break;
      child += +(heapTime[child + 1]! < heapTime[child]!);
      const ct = heapTime[child]!;
      if (ct >= time) break;
      heapTime[p] = ct;
      heapSlot[p] = heapSlot[child]!;
      p = child;
    }
    heapTime[p] = time;
    heapSlot[p] = slot;
  }

  /** Makes room for one more entry, or moves everything to radix buckets, the slot's event too (false). */
  private growHeap(slot: number): boolean {
    if (this.size >= RADIX_ABOVE) {
      this.toRadix();
      this.heapSlot[0] = slot;
      this.stageHeapEntry(0);
      this.toBucket(this.stage, 0);
      return false;
    }
    const n = this.heapCapacity * 2;
    const heapTime = new Float64Array(ROOT + n + HEAP_PAD).fill(Infinity);
    heapTime.set(this.heapTime.subarray(0, ROOT + this.size));
    const heapSlot = new Int32Array(ROOT + n + HEAP_PAD);
    heapSlot.set(this.heapSlot.subarray(0, ROOT + this.size));
    this.heapTime = heapTime;
    this.heapSlot = heapSlot;
    this.heapCapacity = n;
    return true;
  }

  /** Moves every heap entry to the buckets. Not called with the root taken. */
  private toRadix(): void {
    this.radix = true;
    // Heap entries are all later than now.
    this.bucketBase = this.t;
    const heapTime = this.heapTime;
    for (let p = ROOT; p < ROOT + this.size; p++) {
      this.stageHeapEntry(p);
      this.toBucket(this.stage, 0);
      heapTime[p] = Infinity;
    }
    this.size = 0;
  }

  /** Moves every bucket entry to the heap. */
  private toHeap(): void {
    this.radix = false;
    for (let b = 0; b < BUCKETS; b++) {
      if (this.bucketHead[b]! >= 0) this.detach(b, TO_HEAP);
    }
  }

  /** Appends the radix entry at index i of `from`, with time > bucketBase, to its bucket. */
  private toBucket(from: Float64Array, i: number): void {
    const time = from[i]!;
    const key = from[i + 1]!;
    const a = from[i + 2]!;
    const b = from[i + 3]!;
    const base = this.bucketBase;
    const high = Math.floor(time / TWO_32);
    const baseHigh = Math.floor(base / TWO_32);
    let bucket: number;
    if (high === baseHigh) {
      const level = (31 - Math.clz32(time ^ base)) >> 3;
      bucket = (level << 8) | ((time >>> (level << 3)) & 255);
    } else {
      const level = (31 - Math.clz32(high ^ baseHigh)) >> 3;
      bucket = ((level + 4) << 8) | ((high >>> (level << 3)) & 255);
    }
    let tail = this.bucketTail[bucket]!;
    let fill = this.bucketFill[bucket]!;
    if (tail < 0) {
      tail = this.newChunk();
      this.bucketHead[bucket] = tail;
      this.bucketTail[bucket] = tail;
      fill = 0;
      this.bucketMin[bucket] = time;
      const w = bucket >> 5;
      this.bucketBits[w] = this.bucketBits[w]! | (1 << (bucket & 31));
      if (w < 32) this.wordsLow |= 1 << w;
      else this.wordsHigh |= 1 << (w - 32);
    } else {
      if (fill === CHUNK) {
        const c = this.newChunk();
        this.link[tail] = c;
        this.bucketTail[bucket] = c;
        tail = c;
        fill = 0;
      }
      if (time < this.bucketMin[bucket]!) this.bucketMin[bucket] = time;
    }
    this.bucketFill[bucket] = fill + 1;
    const j = (tail * CHUNK + fill) * ENTRY;
    const pool = this.pool;
    pool[j] = time;
    pool[j + 1] = key;
    pool[j + 2] = a;
    pool[j + 3] = b;
  }

  /** The lowest non-empty bucket, or -1. */
  private lowestBucket(): number {
    let w: number;
    if (this.wordsLow !== 0) w = lowestBit(this.wordsLow);
    else if (this.wordsHigh !== 0) w = 32 + lowestBit(this.wordsHigh);
    else return -1;
    return (w << 5) + lowestBit(this.bucketBits[w]!);
  }

  /** Empties bucket b, handing its entries on as `how` says and returning its chunks to the pool. */
  private detach(b: number, how: number): void {
    let c = this.bucketHead[b]!;
    const tail = this.bucketTail[b]!;
    const fill = this.bucketFill[b]!;
    this.bucketHead[b] = -1;
    this.bucketTail[b] = -1;
    const w = b >> 5;
    const rest = this.bucketBits[w]! & ~(1 << (b & 31));
    this.bucketBits[w] = rest;
    if (rest === 0) {
      if (w < 32) this.wordsLow &= ~(1 << w);
      else this.wordsHigh &= ~(1 << (w - 32));
    }
    for (;;) {
      const n = c === tail ? fill : CHUNK;
      for (let j = 0; j < n; j++) {
        // Read through this.pool each time: toBucket may grow it.
        const pool = this.pool;
        const i = (c * CHUNK + j) * ENTRY;
        if (how === SPREAD) {
          if (pool[i] !== this.t) this.toBucket(pool, i);
          else this.fifoPush(this.slotOf(pool, i));
        } else if (how === TO_HEAP) {
          this.heapTime[0] = pool[i]!;
          this.push(this.slotOf(pool, i));
        } else if (how === KEEP_PENDING) {
          if (this.isPending(seqOf(pool[i + 1]!))) this.toBucket(pool, i);
        } else {
          this.dead--;
        }
      }
      const next = this.link[c]!;
      this.link[c] = this.freeChunk;
      this.freeChunk = c;
      if (c === tail) break;
      c = next;
    }
  }

  /**
   * With the FIFO empty, takes the lowest bucket if its earliest entry is <= limit: the clock and
   * bucketBase move to that time, the entries at it go to the FIFO and the rest to lower buckets.
   * False if none is due.
   */
  private refill(limit: number): boolean {
    if (this.live + this.dead < HEAP_BELOW) {
      this.toHeap();
      return true;
    }
    const b = this.lowestBucket();
    if (b < 0) return false;
    const time = this.bucketMin[b]!;
    if (time > limit) return false;
    this.fifoHead = 0;
    this.t = time;
    this.bucketBase = time;
    this.detach(b, SPREAD);
    this.sortFifo();
    return true;
  }

  /** nextTime in radix mode with the FIFO empty; drops buckets holding only dead entries on the way. */
  private nextBucketTime(): SimTime | undefined {
    for (;;) {
      const b = this.lowestBucket();
      if (b < 0) return undefined;
      let best = Infinity;
      let c = this.bucketHead[b]!;
      const tail = this.bucketTail[b]!;
      for (;;) {
        const n = c === tail ? this.bucketFill[b]! : CHUNK;
        for (let j = 0; j < n; j++) {
          const i = (c * CHUNK + j) * ENTRY;
          const time = this.pool[i]!;
          if (time < best && this.isPending(seqOf(this.pool[i + 1]!))) best = time;
        }
        if (c === tail) break;
        c = this.link[c]!;
      }
      if (best < Infinity) return best as SimTime;
      this.detach(b, DROP);
    }
  }

  private newChunk(): number {
    let c = this.freeChunk;
    if (c >= 0) {
      this.freeChunk = this.link[c]!;
      return c;
    }
    if (this.chunksUsed === this.link.length) {
      const n = Math.max(64, this.link.length * 2);
      const pool = new Float64Array(n * CHUNK * ENTRY);
      pool.set(this.pool);
      const link = new Int32Array(n);
      link.set(this.link);
      this.pool = pool;
      this.link = link;
    }
    c = this.chunksUsed++;
    return c;
  }

  /** Drops cancelled entries from the FIFO (keeping order), and from the heap or the buckets. */
  private compact(): void {
    this.settle();
    const fifo = this.fifo;
    const mask = fifo.length - 1;
    const records = this.records;
    let kept = 0;
    for (let i = 0; i < this.fifoLen; i++) {
      const slot = fifo[(this.fifoHead + i) & mask]!;
      if (this.isPending(records[slot * ENTRY]!)) fifo[(this.fifoHead + kept++) & mask] = slot;
      else this.dropSlot(slot);
    }
    this.fifoLen = kept;

    if (this.radix) {
      // An entry goes back to the bucket it came from, as bucketBase has not moved.
      for (let b = 0; b < BUCKETS; b++) {
        if (this.bucketHead[b]! >= 0) this.detach(b, KEEP_PENDING);
      }
      this.dead = 0;
      return;
    }
    const heapTime = this.heapTime;
    const heapSlot = this.heapSlot;
    let n = 0;
    for (let p = ROOT; p < ROOT + this.size; p++) {
      const slot = heapSlot[p]!;
      if (!this.isPending(records[slot * ENTRY]!)) {
        this.dropSlot(slot);
        continue;
      }
      heapTime[ROOT + n] = heapTime[p]!;
      heapSlot[ROOT + n] = slot;
      n++;
    }
    heapTime.fill(Infinity, ROOT + n, ROOT + this.size);
    this.size = n;
    this.dead = 0;
    for (let p = n >> 1; p >= ROOT; p--) {
      heapTime[0] = heapTime[p]!;
      this.siftDown(p, heapSlot[p]!, n);
    }
  }
}

function lowestBit(word: number): number {
  return 31 - Math.clz32(word & -word);
}

function seqOf(key: number): number {
  return Math.floor(key / HANDLER_SPAN);
}

function badTime(what: string, time: number, now: number): RangeError {
  return new RangeError(`cannot ${what} ${time}: must be an integer >= now (${now})`);
}
