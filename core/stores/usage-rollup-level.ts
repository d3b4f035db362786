/**
 * One level of the usage roll-ups (usage-rollup.ts): buckets of one period length, with or without the
 * key. A bucket is a number: its start, its identity's number and its totals are columns of typed arrays.
 * A level holds nearly a bucket per record, and as objects a million buckets cost the collector seconds
 * to trace and a restart as long to make again; as columns they are three arrays, copied out whole for
 * a checkpoint and back in at open.
 *
 * Each level indexes its buckets by period, and the keyed levels by key too, so a range reads only its
 * periods and a summary of some keys (a page of the console's key list, a budget's first check) only
 * their buckets.
 */
import type { UsageTotals } from './usage-store';

/** A bucket's totals: what a summary adds up per group. */
export type Totals = UsageTotals;

export const emptyTotals = (): Totals => ({
  requests: 0,
  input_tokens: 0,
  output_tokens: 0,
  cost_micros: 0,
  cost_unknown_requests: 0,
  saved_micros: 0,
  batch_requests: 0,
  batch_cost_micros: 0,
});

/** A bucket's totals in its column: the fields of Totals in their order above. */
export const TOTALS_WIDTH = 8;

/** Who a bucket's calls were made by and to. */
export interface Identity {
  /** The key; undefined in the levels without keys, null for calls made without one. */
  readonly keyId: string | null | undefined;
  /** The key's team; null for a key without one. */
  readonly teamId: string | null;
  readonly model: string;
  readonly endpoint: string;
}

/** Map keys for the key index: a call made without a key has its own entry. */
const NO_KEY = '\u0000none';
export const keyEntry = (keyId: string | null | undefined): string =>
  keyId === null ? NO_KEY : (keyId ?? '');

/** All time in one bucket: the unit of the levels that answer summaries with no range and no period. */
export const ALL_TIME = 0;

export const floorTo = (at: number, unit: number): number =>
  unit === ALL_TIME ? 0 : at - (((at % unit) + unit) % unit);

/**
 * Identities numbered in order of first use, each made once however many buckets name it. Found by
 * their fields, a map per field: no id string is joined and hashed per record, and the fields' strings,
 * shared by many records, keep their hashes.
 */
export class Identities {
  /** Key entry → team entry → model → endpoint → number (keyEntry gives the entries). */
  private readonly numbers = new Map<string, Map<string, Map<string, Map<string, number>>>>();
  readonly list: Identity[] = [];

  find(key: string, team: string, model: string, endpoint: string): number | undefined {
    return this.numbers.get(key)?.get(team)?.get(model)?.get(endpoint);
  }

  /** Numbers `who`, found by the same fields from then on (`find` gave none for them). */
  add(key: string, team: string, model: string, endpoint: string, who: Identity): number {
    const n = this.list.push(who) - 1;
    branch(branch(branch(this.numbers, key), team), model).set(endpoint, n);
    return n;
  }
}

function branch<V>(map: Map<string, Map<string, V>>, field: string): Map<string, V> {
  let next = map.get(field);
  if (!next) {
    next = new Map();
    map.set(field, next);
  }
  return next;
}

/** A level's buckets as they stand, in the order they were made: what a checkpoint saves. */
export interface LevelColumns {
  /** Per bucket: the start of its period (epoch ms). */
  readonly starts: Float64Array;
  /** Per bucket: its identity's number. */
  readonly identities: Int32Array;
  /** Per bucket, TOTALS_WIDTH numbers: its totals. */
  readonly totals: Float64Array;
}

interface Period {
  /** Its buckets, in the order they were made. */
  readonly buckets: number[];
  /** Identity number → bucket, to add to the period: made at its first add (a loaded period has none until then). */
  byIdentity: Map<number, number> | undefined;
}

const FIRST_CAPACITY = 1024;
/** Buckets copied per turn of the event loop by copyColumns: 4 MB, a few ms. */
const COPY_SLICE = 65_536;

function addAt(sums: Float64Array, o: number, totals: Totals): void {
  sums[o] = sums[o]! + totals.requests;
  sums[o + 1] = sums[o + 1]! + totals.input_tokens;
  sums[o + 2] = sums[o + 2]! + totals.output_tokens;
  sums[o + 3] = sums[o + 3]! + totals.cost_micros;
  sums[o + 4] = sums[o + 4]! + totals.cost_unknown_requests;
  sums[o + 5] = sums[o + 5]! + totals.saved_micros;
  sums[o + 6] = sums[o + 6]! + totals.batch_requests;
  sums[o + 7] = sums[o + 7]! + totals.batch_cost_micros;
}

export class Level {
  /** How many buckets there are: they are numbered 0 to size - 1. */
  size = 0;
  private starts = new Float64Array(FIRST_CAPACITY);
  private owners = new Int32Array(FIRST_CAPACITY);
  private sums = new Float64Array(FIRST_CAPACITY * TOTALS_WIDTH);
  private readonly periods = new Map<number, Period>();
  private readonly byKey = new Map<string, number[]>();
  /** By identity number: its key's list in `byKey`, found once per identity rather than per bucket. */
  private readonly keyListOf: number[][] = [];
  /** A copy of the totals under way (copyColumns): the buckets before `copied` are in it. */
  private copy: { totals: Float64Array; copied: number } | undefined;
  /** The last period added to: records come in time order, so most adds find theirs here. */
  private last: { start: number; period: Period } | undefined;

  constructor(
    readonly unit: number,
    readonly keyed: boolean,
    /** The identities the buckets' numbers refer to. */
    readonly identities: Identities,
  ) {}

  /** Adds `totals` to the bucket of `at` and identity `who`. */
  add(at: number, who: number, totals: Totals): void {
    const n = this.bucket(at, who);
    addAt(this.sums, n * TOTALS_WIDTH, totals);
    if (this.copy && n < this.copy.copied) addAt(this.copy.totals, n * TOTALS_WIDTH, totals);
  }

  /** Adds bucket `n` of a finer level to this level's bucket of its start and identity `who`. */
  fold(source: Level, n: number, who: number): void {
    const to = this.bucket(source.start(n), who) * TOTALS_WIDTH;
    const from = n * TOTALS_WIDTH;
    for (let i = 0; i < TOTALS_WIDTH; i++) this.sums[to + i] = this.sums[to + i]! + source.sums[from + i]!;
  }

  start(n: number): number {
    return this.starts[n]!;
  }

  identity(n: number): Identity {
    return this.identities.list[this.owners[n]!]!;
  }

  owner(n: number): number {
    return this.owners[n]!;
  }

  /** Adds bucket `n`'s totals to `target`. */
  addTotalsTo(target: Totals, n: number): void {
    const o = n * TOTALS_WIDTH;
    const sums = this.sums;
    target.requests += sums[o]!;
    target.input_tokens += sums[o + 1]!;
    target.output_tokens += sums[o + 2]!;
    target.cost_micros += sums[o + 3]!;
    target.cost_unknown_requests += sums[o + 4]!;
    target.saved_micros += sums[o + 5]!;
    target.batch_requests += sums[o + 6]!;
    target.batch_cost_micros += sums[o + 7]!;
  }

  /** Visits the buckets of the chosen keys (all when absent) whose period starts in [from, to). */
  select(keyIds: readonly string[] | undefined, from: number, to: number, visit: (n: number) => void): void {
    if (keyIds) {
      for (const id of keyIds) {
        for (const n of this.byKey.get(id) ?? []) {
          const start = this.starts[n]!;
          if (start >= from && start < to) visit(n);
        }
      }
      return;
    }
    const steps = (to - from) / this.unit;
    if (steps < this.periods.size) {
      // A range shorter than the history: step through its periods rather than visit every one.
      for (let start = floorTo(from, this.unit); start < to; start += this.unit) {
        if (start >= from) this.periods.get(start)?.buckets.forEach((n) => visit(n));
      }
      return;
    }
    for (const [start, period] of this.periods) {
      if (start >= from && start < to) for (const n of period.buckets) visit(n);
    }
  }

  /**
   * The columns as they stand now. A bucket's start and identity never change once it is made, so those
   * are views of the level's own arrays (a growth leaves them on the old ones); totals change as records
   * come, so they are copied.
   */
  columns(): LevelColumns {
    return this.columnsWith(this.sums.slice(0, this.size * TOTALS_WIDTH));
  }

  /**
   * The columns as `columns` gives them, with the totals copied COPY_SLICE buckets at a time, yielding
   * between slices: a million buckets copied at once would hold the event loop for some 100 ms. Adds to
   * buckets already copied are made to the copy too (by `add`: the level copied is the hourly keyed one,
   * which nothing folds into), so once the last slice is copied the copy is the totals of that moment;
   * `then` gets the columns in that same synchronous step, to read with them whatever must be of the
   * same moment.
   */
  async copyColumns<T>(then: (columns: LevelColumns) => T): Promise<T> {
    if (this.copy) throw new Error('one copy at a time');
    const copy = { totals: new Float64Array(this.sums.length), copied: 0 };
    this.copy = copy;
    try {
      for (;;) {
        if (copy.totals.length < this.sums.length) {
          // The level grew meanwhile: a larger copy, holding what is copied so far.
          const larger = new Float64Array(this.sums.length);
          larger.set(copy.totals.subarray(0, copy.copied * TOTALS_WIDTH));
          copy.totals = larger;
        }
        const end = Math.min(this.size, copy.copied + COPY_SLICE);
        const from = copy.copied * TOTALS_WIDTH;
        copy.totals.set(this.sums.subarray(from, end * TOTALS_WIDTH), from);
        copy.copied = end;
        if (end === this.size) return then(this.columnsWith(copy.totals.subarray(0, end * TOTALS_WIDTH)));
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.copy = undefined;
    }
  }

  private columnsWith(totals: Float64Array): LevelColumns {
    return {
      starts: this.starts.subarray(0, this.size),
      identities: this.owners.subarray(0, this.size),
      totals,
    };
  }

  /**
   * Takes `columns` as an empty level's buckets, numbered and indexed as they were: the same order of
   * periods and of buckets in each, so sums fold in the same order as before. Throws on columns of
   * different lengths or naming an identity there is none of.
   */
  load(columns: LevelColumns): void {
    const { starts, identities, totals } = columns;
    const size = starts.length;
    if (identities.length !== size || totals.length !== size * TOTALS_WIDTH) {
      throw new Error('the columns differ in length');
    }
    if (this.size !== 0) throw new Error('a level is loaded only while empty');
    this.reserve(size + (size >> 2)); // room for the records to come before the first copy
    this.starts.set(starts);
    this.owners.set(identities);
    this.sums.set(totals);
    this.size = size;
    const known = this.identities.list.length;
    if (this.keyed && known > 0) this.keyList(known - 1); // every identity's list, made once up front
    // A million buckets: the period's list is looked up only when the period changes (buckets were
    // made in time order, so it seldom does), and nothing is called per bucket.
    let start = NaN;
    let inPeriod: number[] = [];
    for (let n = 0; n < size; n++) {
      const owner = identities[n]!;
      if (!(owner >= 0 && owner < known)) throw new Error(`bucket ${n} names identity ${owner}, of ${known}`);
      if (starts[n] !== start) {
        start = starts[n]!;
        inPeriod = this.period(start).buckets;
      }
      inPeriod.push(n);
      if (this.keyed) this.keyListOf[owner]!.push(n);
    }
  }

  /** The bucket of `at` and `who`, made empty if there is none yet. */
  private bucket(at: number, who: number): number {
    const start = floorTo(at, this.unit);
    const period = this.period(start);
    period.byIdentity ??= this.identityIndex(period);
    const found = period.byIdentity.get(who);
    if (found !== undefined) return found;
    const n = this.size;
    if (n === this.starts.length) this.reserve(n * 2);
    this.size++;
    this.starts[n] = start;
    this.owners[n] = who;
    period.buckets.push(n);
    period.byIdentity.set(who, n);
    if (this.keyed) this.keyList(who).push(n);
    return n;
  }

  private period(start: number): Period {
    if (this.last?.start === start) return this.last.period;
    let period = this.periods.get(start);
    if (!period) {
      period = { buckets: [], byIdentity: undefined };
      this.periods.set(start, period);
    }
    this.last = { start, period };
    return period;
  }

  private identityIndex(period: Period): Map<number, number> {
    const index = new Map<number, number>();
    for (const n of period.buckets) index.set(this.owners[n]!, n);
    return index;
  }

  /** The buckets of identity `who`'s key. */
  private keyList(who: number): number[] {
    // Filled in order, so the array stays packed (one assigned far past its end would not).
    while (this.keyListOf.length <= who) {
      const key = keyEntry(this.identities.list[this.keyListOf.length]!.keyId);
      let list = this.byKey.get(key);
      if (!list) {
        list = [];
        this.byKey.set(key, list);
      }
      this.keyListOf.push(list);
    }
    return this.keyListOf[who]!;
  }

  /** Grows the columns to hold `capacity` buckets: one copy per doubling, so rare and short. */
  private reserve(capacity: number): void {
    if (capacity <= this.starts.length) return;
    const starts = new Float64Array(capacity);
    const owners = new Int32Array(capacity);
    const sums = new Float64Array(capacity * TOTALS_WIDTH);
    starts.set(this.starts.subarray(0, this.size));
    owners.set(this.owners.subarray(0, this.size));
    sums.set(this.sums.subarray(0, this.size * TOTALS_WIDTH));
    this.starts = starts;
    this.owners = owners;
    this.sums = sums;
  }
}
