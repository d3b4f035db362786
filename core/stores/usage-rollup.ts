/**
 * Usage totals kept as records are written, so a summary never reads the records themselves. They are
 * kept at six levels — per hour, per day and for all time, each with and without the key — the hourly
 * keyed one from the start and the others from the first summary that needs them — and a summary reads the
 * coarsest level that can answer it: by model over 30 days folds some hundreds of day buckets, not a
 * bucket per (hour, key, model), which at a million records over a thousand keys is nearly one bucket
 * per record. Each level indexes its buckets by period, and the keyed levels by key too, so a range
 * reads only its periods and a summary of some keys (a page of the console's key list, a budget's
 * first check) only their buckets. The embedded store fills one at open from its files and then from
 * each record it writes.
 *
 * A bucket is one (period, key, team, model, endpoint), so totals by endpoint or team are as exact as by
 * model, and a record still adds to one bucket per level whatever a summary groups by later: the endpoint
 * and the team cost no work per record beyond one id made once, and few extra buckets (a model is called
 * on one or two endpoints, and a key is in one team at a time, so they rarely split a (period, key,
 * model) bucket). The team is in the levels without keys too, so a team's totals never need the keyed ones.
 */
import type { SummaryDimension, UsageRecord, UsageSummaryQuery, UsageSummaryRow } from './usage-store';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

interface Totals {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost_micros: number;
  cost_unknown_requests: number;
  saved_micros: number;
  batch_requests: number;
  batch_cost_micros: number;
}

interface Bucket extends Totals {
  /** Epoch ms of the hour or day the bucket covers. */
  readonly start: number;
  /** The record's key; undefined in the levels without keys. */
  readonly key_id: string | null | undefined;
  /** The record's team; null for a key without one. */
  readonly team_id: string | null;
  readonly model: string;
  readonly endpoint: string;
}

const emptyTotals = (): Totals => ({
  requests: 0,
  input_tokens: 0,
  output_tokens: 0,
  cost_micros: 0,
  cost_unknown_requests: 0,
  saved_micros: 0,
  batch_requests: 0,
  batch_cost_micros: 0,
});

/** Map keys for the key index: a call made without a key has its own entry. */
const NO_KEY = '\u0000none';
const keyEntry = (keyId: string | null | undefined): string => (keyId === null ? NO_KEY : (keyId ?? ''));

/** All time in one bucket: the unit of the levels that answer summaries with no range and no period. */
const ALL_TIME = 0;

const floorTo = (at: number, unit: number): number =>
  unit === ALL_TIME ? 0 : at - (((at % unit) + unit) % unit);

/**
 * Where a record's totals go, worked out once per record and shared by every level it adds to: the
 * levels differ only in whether the key is part of the bucket's id.
 */
interface Identity {
  readonly keyId: string | null;
  readonly teamId: string | null;
  readonly model: string;
  readonly endpoint: string;
  /** The key index's entry (keyEntry). */
  readonly key: string;
  /** The bucket's id within its period, in the keyed levels (`key \n team \n model \n endpoint`) and the others. */
  readonly keyedId: string;
  readonly unkeyedId: string;
}

/** Key, team and endpoint ids hold no newline, so neither id is ambiguous whatever the model's name holds. */
function identityOf(keyId: string | null, teamId: string | null, model: string, endpoint: string): Identity {
  const key = keyEntry(keyId);
  const unkeyedId = `${keyEntry(teamId)}\n${model}\n${endpoint}`;
  return { keyId, teamId, model, endpoint, key, keyedId: `${key}\n${unkeyedId}`, unkeyedId };
}

/** One level of roll-ups: buckets of one period length, with or without the key. */
class Level {
  /** Period start → the bucket's id (Identity) → bucket: no number is made a string. */
  private readonly byPeriod = new Map<number, Map<string, Bucket>>();
  private readonly byKey = new Map<string, Bucket[]>();

  constructor(
    readonly unit: number,
    readonly keyed: boolean,
  ) {}

  /** Adds `totals` to the bucket of `at` and the record's identity. */
  add(at: number, who: Identity, totals: Totals): void {
    const start = floorTo(at, this.unit);
    let period = this.byPeriod.get(start);
    if (!period) {
      period = new Map();
      this.byPeriod.set(start, period);
    }
    const id = this.keyed ? who.keyedId : who.unkeyedId;
    let bucket = period.get(id);
    if (!bucket) {
      const keyId = this.keyed ? who.keyId : undefined;
      bucket = {
        start,
        key_id: keyId,
        team_id: who.teamId,
        model: who.model,
        endpoint: who.endpoint,
        ...emptyTotals(),
      };
      period.set(id, bucket);
      if (this.keyed) pushTo(this.byKey, who.key, bucket);
    }
    addTotals(bucket, totals);
  }

  /** Every bucket, for building a coarser level from this one. */
  *all(): Iterable<Bucket> {
    for (const period of this.byPeriod.values()) yield* period.values();
  }

  /** The buckets of the chosen keys (all when absent) whose period starts in [from, to). */
  *select(keyIds: readonly string[] | undefined, from = -Infinity, to = Infinity): Iterable<Bucket> {
    if (keyIds) {
      for (const id of keyIds) {
        for (const b of this.byKey.get(id) ?? []) if (b.start >= from && b.start < to) yield b;
      }
      return;
    }
    const steps = (to - from) / this.unit;
    if (steps < this.byPeriod.size) {
      // A range shorter than the history: step through its periods rather than visit every one.
      for (let start = floorTo(from, this.unit); start < to; start += this.unit) {
        if (start >= from) yield* this.byPeriod.get(start)?.values() ?? [];
      }
      return;
    }
    for (const [start, buckets] of this.byPeriod) if (start >= from && start < to) yield* buckets.values();
  }
}

function addTotals(target: Totals, delta: Totals): void {
  target.requests += delta.requests;
  target.input_tokens += delta.input_tokens;
  target.output_tokens += delta.output_tokens;
  target.cost_micros += delta.cost_micros;
  target.cost_unknown_requests += delta.cost_unknown_requests;
  target.saved_micros += delta.saved_micros;
  target.batch_requests += delta.batch_requests;
  target.batch_cost_micros += delta.batch_cost_micros;
}

function pushTo<K>(map: Map<K, Bucket[]>, key: K, bucket: Bucket): void {
  const list = map.get(key);
  if (list) list.push(bucket);
  else map.set(key, [bucket]);
}

export class UsageRollup {
  /** Per hour and key: every other level can be folded from it, so it is the only one kept from the start. */
  private readonly base = new Level(HOUR_MS, true);
  /** The coarser levels, each built from `base` when a summary first needs it and kept up to date after. */
  private readonly coarser = [
    new Level(HOUR_MS, false),
    ...[DAY_MS, ALL_TIME].flatMap((unit) => [new Level(unit, true), new Level(unit, false)]),
  ];
  private readonly built = new Set<Level>([this.base]);
  /** Each key's latest record time (ISO strings compare in time order). */
  private readonly lastUsedAt = new Map<string, string>();
  /** The last hour parsed, as `YYYY-MM-DDTHH` and as its start in ms (see hourOf); none at first. */
  private lastHourText: string | undefined;
  private lastHour = 0;

  add(record: UsageRecord): void {
    const at = this.hourOf(record.created_at);
    if (Number.isNaN(at)) return;
    const who = identityOf(record.key_id, record.team_id ?? null, record.model, record.endpoint);
    const cost = typeof record.cost_micros === 'number' ? record.cost_micros : 0;
    const batch = record.batch_id !== undefined;
    const totals: Totals = {
      requests: 1,
      input_tokens: record.prompt_tokens,
      output_tokens: record.completion_tokens,
      cost_micros: cost,
      cost_unknown_requests: typeof record.cost_micros === 'number' ? 0 : 1,
      // Only a cache's hit carries it; a record written before the field existed saved nothing.
      saved_micros: typeof record.saved_micros === 'number' ? record.saved_micros : 0,
      batch_requests: batch ? 1 : 0,
      batch_cost_micros: batch ? cost : 0,
    };
    for (const level of this.built) level.add(at, who, totals);
    const last = this.lastUsedAt.get(who.key);
    if (last === undefined || record.created_at > last) this.lastUsedAt.set(who.key, record.created_at);
  }

  /**
   * The start of the hour `createdAt` falls in, or NaN. Every level's period is a whole number of hours,
   * so the hour places a record in all of them. `Date.parse` is a C++ call of ~2.4k instructions
   * (callgrind); records come in time order, so a UTC time in the last hour parsed is placed by its text.
   */
  private hourOf(createdAt: string): number {
    const utc = createdAt.length > 13 && createdAt.charCodeAt(13) === 0x3a && createdAt.endsWith('Z');
    if (utc && this.lastHourText !== undefined && createdAt.startsWith(this.lastHourText))
      return this.lastHour;
    const at = Date.parse(createdAt);
    if (Number.isNaN(at)) return at;
    const hour = floorTo(at, HOUR_MS);
    if (utc) {
      this.lastHourText = createdAt.slice(0, 13);
      this.lastHour = hour;
    }
    return hour;
  }

  /** The time of each key's latest record, for the keys that have one. */
  lastUsed(keyIds: readonly string[]): Map<string, string> {
    const found = new Map<string, string>();
    for (const id of keyIds) {
      const last = this.lastUsedAt.get(id);
      if (last !== undefined) found.set(id, last);
    }
    return found;
  }

  /** Folds the buckets of the coarsest level that answers the query into its groups. */
  summary(query: UsageSummaryQuery): UsageSummaryRow[] {
    const by = new Set<SummaryDimension>(query.group_by);
    const level = this.levelFor(query, by);
    const periodMs = by.has('day') ? DAY_MS : by.has('hour') ? HOUR_MS : undefined;
    const models = query.models ? new Set(query.models) : undefined;
    const endpoints = query.endpoints ? new Set(query.endpoints) : undefined;
    const teams = query.team_ids ? new Set(query.team_ids) : undefined;
    const groups = new Map<string, UsageSummaryRow>();
    for (const b of level.select(query.key_ids, query.from, query.to)) {
      if (teams && (b.team_id === null || !teams.has(b.team_id))) continue;
      if (models && !models.has(b.model)) continue;
      if (endpoints && !endpoints.has(b.endpoint)) continue;
      const period = periodMs === undefined ? undefined : floorTo(b.start, periodMs);
      const id = groupId(by, b, period);
      let row = groups.get(id);
      if (!row) {
        row = {
          ...(by.has('key') ? { key_id: b.key_id ?? null } : {}),
          ...(by.has('team') ? { team_id: b.team_id } : {}),
          ...(by.has('model') ? { model: b.model } : {}),
          ...(by.has('endpoint') ? { endpoint: b.endpoint } : {}),
          ...(period !== undefined ? { period: new Date(period).toISOString() } : {}),
          ...emptyTotals(),
        };
        groups.set(id, row);
      }
      addTotals(row, b);
    }
    return sortSummary([...groups.values()]);
  }

  /**
   * Keys only when grouped or filtered by key; all time when neither bounded nor grouped by period;
   * else days, unless grouped by hour or bounded off a midnight.
   */
  private levelFor(query: UsageSummaryQuery, by: ReadonlySet<SummaryDimension>): Level {
    const keyed = by.has('key') || query.key_ids !== undefined;
    const offDay = (at: number | undefined) => at !== undefined && at % DAY_MS !== 0;
    const unbounded = query.from === undefined && query.to === undefined;
    const unit =
      by.has('hour') || offDay(query.from) || offDay(query.to)
        ? HOUR_MS
        : unbounded && !by.has('day')
          ? ALL_TIME
          : DAY_MS;
    if (keyed && unit === HOUR_MS) return this.base;
    return this.ready(this.coarser.find((l) => l.keyed === keyed && l.unit === unit)!);
  }

  /** The level, folded from the hourly buckets on first use (a summary over a million records: once). */
  private ready(level: Level): Level {
    if (this.built.has(level)) return level;
    for (const b of this.base.all()) {
      level.add(b.start, identityOf(b.key_id ?? null, b.team_id, b.model, b.endpoint), b);
    }
    this.built.add(level);
    return level;
  }
}

/** The group a bucket falls in: its values of the dimensions grouped by (the period already floored). */
function groupId(by: ReadonlySet<SummaryDimension>, b: Bucket, period: number | undefined): string {
  const key = by.has('key') ? keyEntry(b.key_id) : '';
  const team = by.has('team') ? keyEntry(b.team_id) : '';
  return `${period ?? ''}\n${key}\n${team}\n${by.has('model') ? b.model : ''}\n${by.has('endpoint') ? b.endpoint : ''}`;
}

const cmp = (a: string | null | undefined, b: string | null | undefined): number => {
  if (a === b) return 0;
  if (a === undefined || a === null) return -1; // no key (a call made without one) first
  if (b === undefined || b === null) return 1;
  return a < b ? -1 : 1;
};

/** By period, key, team, model, endpoint (ISO periods compare as strings; no key or team first). */
export function sortSummary(rows: UsageSummaryRow[]): UsageSummaryRow[] {
  return rows.sort(
    (a, b) =>
      cmp(a.period, b.period) ||
      cmp(a.key_id, b.key_id) ||
      cmp(a.team_id, b.team_id) ||
      cmp(a.model, b.model) ||
      cmp(a.endpoint, b.endpoint),
  );
}
