/**
 * Usage totals kept as records are written, so a summary never reads the records themselves. They are
 * kept at six levels — per hour, per day and for all time, each with and without the key — the hourly
 * keyed one from the start and the others from the first summary that needs them — and a summary reads the
 * coarsest level that can answer it: by model over 30 days folds some hundreds of day buckets, not a
 * bucket per (hour, key, model), which at a million records over a thousand keys is nearly one bucket
 * per record. Each level (usage-rollup-level.ts) holds its buckets in columns of numbers and indexes
 * them by period, and the keyed levels by key too, so a range reads only its periods and a summary of
 * some keys (a page of the console's key list, a budget's first check) only their buckets. The embedded
 * store fills one at open, from its checkpoint (`exportState`, `restore`) and the lines written after
 * it or else from every file, and then from each record it writes.
 *
 * A bucket is one (period, key, team, model, endpoint), so totals by endpoint or team are as exact as by
 * model, and a record still adds to one bucket per level whatever a summary groups by later: the endpoint
 * and the team cost a map lookup each per record, and few extra buckets (a model is called
 * on one or two endpoints, and a key is in one team at a time, so they rarely split a (period, key,
 * model) bucket). The team is in the levels without keys too, so a team's totals never need the keyed ones.
 */
import type { SummaryDimension, UsageRecord, UsageSummaryQuery, UsageSummaryRow } from './usage-store';
import {
  ALL_TIME,
  emptyTotals,
  floorTo,
  Identities,
  keyEntry,
  Level,
  type Identity,
  type LevelColumns,
  type Totals,
} from './usage-rollup-level';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/**
 * A roll-up's durable part, for a checkpoint to save and `UsageRollup.restore` to rebuild from: the
 * hourly keyed buckets (every other level folds from them) and each key's last use.
 */
export interface RollupState {
  /** The keys, teams, models and endpoints the identities name, each once. */
  readonly strings: readonly string[];
  /**
   * The buckets' identities in their numbering, IDENTITY_WIDTH indices into `strings` each: key, team,
   * model, endpoint (-1: a call made without a key, a key without a team).
   */
  readonly identities: Int32Array;
  readonly buckets: LevelColumns;
  /** Each key's latest record time, by its key index entry (a call made without a key has its own). */
  readonly lastUsedAt: ReadonlyMap<string, string>;
}

export const IDENTITY_WIDTH = 4;

export class UsageRollup {
  /** The (key, team, model, endpoint) of the keyed levels' buckets, and the (team, model, endpoint) of the others'. */
  private readonly keyedIds = new Identities();
  private readonly unkeyedIds = new Identities();
  /** By keyed identity's number: the number of the same identity without its key. */
  private readonly unkeyedOf: number[] = [];
  /** The keyed identities as RollupState lists them, kept as they are made (set whole by `restore`). */
  private strings = new StringTable();
  private encoded: number[] = [];
  /** Per hour and key: every other level can be folded from it, so it is the only one kept from the start. */
  private readonly base = new Level(HOUR_MS, true, this.keyedIds);
  /** The coarser levels, each built from `base` when a summary first needs it and kept up to date after. */
  private readonly coarser = [
    new Level(HOUR_MS, false, this.unkeyedIds),
    ...[DAY_MS, ALL_TIME].flatMap((unit) => [
      new Level(unit, true, this.keyedIds),
      new Level(unit, false, this.unkeyedIds),
    ]),
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
    const who = this.identityOf(record.key_id, record.team_id ?? null, record.model, record.endpoint);
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
    for (const level of this.built) level.add(at, level.keyed ? who : this.unkeyedOf[who]!, totals);
    const key = keyEntry(record.key_id);
    const last = this.lastUsedAt.get(key);
    if (last === undefined || record.created_at > last) this.lastUsedAt.set(key, record.created_at);
  }

  /** The number of the keyed identity, made (with its unkeyed one) when first seen. */
  private identityOf(keyId: string | null, teamId: string | null, model: string, endpoint: string): number {
    const known = this.keyedIds.find(keyEntry(keyId), keyEntry(teamId), model, endpoint);
    if (known !== undefined) return known;
    const { strings } = this;
    this.encoded.push(strings.of(keyId), strings.of(teamId), strings.of(model), strings.of(endpoint));
    return this.newIdentity(keyId, teamId, model, endpoint);
  }

  private newIdentity(keyId: string | null, teamId: string | null, model: string, endpoint: string): number {
    const team = keyEntry(teamId);
    const unkeyed =
      this.unkeyedIds.find('', team, model, endpoint) ??
      this.unkeyedIds.add('', team, model, endpoint, { keyId: undefined, teamId, model, endpoint });
    this.unkeyedOf.push(unkeyed);
    return this.keyedIds.add(keyEntry(keyId), team, model, endpoint, { keyId, teamId, model, endpoint });
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
    level.select(query.key_ids, query.from ?? -Infinity, query.to ?? Infinity, (n) => {
      const who = level.identity(n);
      if (teams && (who.teamId === null || !teams.has(who.teamId))) return;
      if (models && !models.has(who.model)) return;
      if (endpoints && !endpoints.has(who.endpoint)) return;
      const period = periodMs === undefined ? undefined : floorTo(level.start(n), periodMs);
      const id = groupId(by, who, period);
      let row = groups.get(id);
      if (!row) {
        row = {
          ...(by.has('key') ? { key_id: who.keyId ?? null } : {}),
          ...(by.has('team') ? { team_id: who.teamId } : {}),
          ...(by.has('model') ? { model: who.model } : {}),
          ...(by.has('endpoint') ? { endpoint: who.endpoint } : {}),
          ...(period !== undefined ? { period: new Date(period).toISOString() } : {}),
          ...emptyTotals(),
        };
        groups.set(id, row);
      }
      level.addTotalsTo(row, n);
    });
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
    const base = this.base;
    base.select(undefined, -Infinity, Infinity, (n) => {
      const who = base.owner(n);
      level.fold(base, n, level.keyed ? who : this.unkeyedOf[who]!);
    });
    this.built.add(level);
    return level;
  }

  /**
   * The durable part as it stands, in one synchronous step, so it is the state of one moment. Only the
   * bucket totals are copied whole: the rest is never changed, only added to, so views and short copies
   * of it stay true.
   */
  exportState(): RollupState {
    return this.stateWith(this.base.columns());
  }

  /**
   * The durable part with the bucket totals copied a slice at a time (Level.copyColumns), so the event
   * loop is never held for long. `then` gets it in the step the copy completes, so that what the caller
   * pairs with it is of the same moment; records added meanwhile are in it.
   */
  exportStateInSlices<T>(then: (state: RollupState) => T): Promise<T> {
    return this.base.copyColumns((buckets) => then(this.stateWith(buckets)));
  }

  private stateWith(buckets: LevelColumns): RollupState {
    return {
      strings: this.strings.strings.slice(),
      identities: Int32Array.from(this.encoded),
      buckets,
      lastUsedAt: new Map(this.lastUsedAt),
    };
  }

  /**
   * The roll-up `exportState` saw, numbered as it was (so it folds and sums in the same order). Throws
   * on a state that contradicts itself: a string, identity or column that is not there.
   */
  static restore(state: RollupState): UsageRollup {
    const { identities, strings } = state;
    if (identities.length % IDENTITY_WIDTH !== 0) throw new Error('a partial identity');
    const rollup = new UsageRollup();
    rollup.strings = new StringTable(strings);
    rollup.encoded = Array.from(identities);
    const text = (i: number): string | null => (i === -1 ? null : (strings[i] ?? fail(`no string ${i}`)));
    const required = (i: number): string => text(i) ?? fail('an identity without model or endpoint');
    for (let i = 0; i < identities.length; i += IDENTITY_WIDTH) {
      const keyId = text(identities[i]!);
      const teamId = text(identities[i + 1]!);
      const model = required(identities[i + 2]!);
      const endpoint = required(identities[i + 3]!);
      if (rollup.keyedIds.find(keyEntry(keyId), keyEntry(teamId), model, endpoint) !== undefined) {
        throw new Error(`identity ${i / IDENTITY_WIDTH} is listed twice`);
      }
      rollup.newIdentity(keyId, teamId, model, endpoint); // numbered as listed: `encoded` is the list
    }
    rollup.base.load(state.buckets);
    for (const [key, at] of state.lastUsedAt) rollup.lastUsedAt.set(key, at);
    return rollup;
  }
}

/** Gives each distinct string its index, in order of first use (after those it starts with); null is -1. */
class StringTable {
  private readonly index = new Map<string, number>();
  readonly strings: string[];

  constructor(strings: readonly string[] = []) {
    this.strings = [...strings];
    this.strings.forEach((value, at) => this.index.set(value, at));
  }

  of(value: string | null): number {
    if (value === null) return -1;
    let at = this.index.get(value);
    if (at === undefined) {
      at = this.strings.push(value) - 1;
      this.index.set(value, at);
    }
    return at;
  }
}

function fail(message: string): never {
  throw new Error(message);
}

/** The group a bucket falls in: its values of the dimensions grouped by (the period already floored). */
function groupId(by: ReadonlySet<SummaryDimension>, who: Identity, period: number | undefined): string {
  const key = by.has('key') ? keyEntry(who.keyId) : '';
  const team = by.has('team') ? keyEntry(who.teamId) : '';
  return `${period ?? ''}\n${key}\n${team}\n${by.has('model') ? who.model : ''}\n${by.has('endpoint') ? who.endpoint : ''}`;
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
