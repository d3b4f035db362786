/**
 * Teams for the request path and the admin API, over any TeamStore.
 *
 * The request path reads a key's team through an lru-cache keyed by team id, entries living
 * `keys.cache_ttl` like the keys' own: `cached(id)` answers without a promise, and only a miss waits for
 * the store. Every change made through any instance is announced as a team event (team-events.ts), which
 * evicts the team here at once and, over Redis pub/sub, on the other instances (the TTL bounds a lost
 * message). Ids no team has are remembered apart for the same TTL, so a key whose team was deleted does
 * not reach the store on every request.
 *
 * A team cannot be deleted while keys name it (stored or declared in gateway.yaml): they must be moved or
 * deleted first, so no working key is left pointing at nothing. A key that does anyway (its team deleted
 * by hand, or a declared key naming a team that does not exist) is refused by auth: it fails closed.
 */
import { randomBytes } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import { lookupCache } from '../base/lookup-cache';
import { Errors } from '../base/errors';
import { token } from '../base/token';
import type { KeyService } from '../keys/key-service';
import {
  type NewTeam,
  type TeamChange,
  TeamNameTaken,
  type TeamRecord,
  type TeamStore,
} from '../stores/team-store';
import type { TeamEvents } from './team-events';

export interface TeamServiceOptions {
  readonly cacheTtlMs: number;
  readonly cacheMax: number;
}

/** `team-` + 12 base64url characters (9 random bytes). */
const newTeamId = (): string => `team-${randomBytes(9).toString('base64url')}`;

export class TeamService {
  private readonly cache: LRUCache<string, TeamRecord>;
  /** Ids the store had no team for. */
  private readonly missing: LRUCache<string, true>;

  constructor(
    private readonly store: TeamStore,
    private readonly keys: KeyService,
    options: TeamServiceOptions,
    private readonly events?: TeamEvents,
  ) {
    this.cache = lookupCache(options.cacheMax, options.cacheTtlMs);
    this.missing = lookupCache(options.cacheMax, options.cacheTtlMs);
    events?.on((id) => this.evict(id));
  }

  /** The team if the cache holds it: the request path's answer without a promise. */
  cached(id: string): TeamRecord | undefined {
    return this.cache.get(id);
  }

  /** The team, from the cache or else the store; undefined when no team has this id. */
  async lookup(id: string): Promise<TeamRecord | undefined> {
    const cached = this.cache.get(id);
    if (cached) return cached;
    if (this.missing.has(id)) return undefined;
    const record = await this.store.findById(id);
    if (record) this.cache.set(id, record);
    else this.missing.set(id, true);
    return record;
  }

  /** Forgets what the caches hold for team `id` (called on every team event, this instance's or another's). */
  evict(id: string): void {
    this.cache.delete(id);
    this.missing.delete(id);
  }

  /** Refuses a name another team has: 409 `team_name_taken`. */
  async create(spec: NewTeam): Promise<TeamRecord> {
    const record: TeamRecord = {
      id: newTeamId(),
      name: spec.name,
      ...(spec.budget !== undefined ? { budget: { ...spec.budget } } : {}),
      ...(spec.rate_limit_rpm !== undefined ? { rate_limit_rpm: spec.rate_limit_rpm } : {}),
      ...(spec.rate_limit_tpm !== undefined ? { rate_limit_tpm: spec.rate_limit_tpm } : {}),
      ...(spec.max_concurrent !== undefined ? { max_concurrent: spec.max_concurrent } : {}),
      allowed_models: [...(spec.allowed_models ?? [])],
      ...(spec.guardrails?.length ? { guardrails: [...spec.guardrails] } : {}),
      ...(spec.allowed_tools?.length ? { allowed_tools: [...spec.allowed_tools] } : {}),
      metadata: { ...spec.metadata },
      created_at: new Date().toISOString(),
    };
    await nameChecked(this.store.insert(record));
    this.announce(record.id, 'changed'); // an id looked up before it existed is remembered as missing
    return record;
  }

  /** Every team, in name order. */
  list(): Promise<TeamRecord[]> {
    return this.store.list();
  }

  /** As stored now (the admin API reads past the cache). */
  find(id: string): Promise<TeamRecord | undefined> {
    return this.store.findById(id);
  }

  async update(id: string, change: TeamChange): Promise<TeamRecord | undefined> {
    const record = await nameChecked(this.store.update(id, change));
    if (record) this.announce(id, 'changed');
    return record;
  }

  /** Refused with 409 `team_has_keys` while any key names the team; undefined when no team has this id. */
  async delete(id: string): Promise<TeamRecord | undefined> {
    if (!(await this.store.findById(id))) return undefined;
    const members = (await this.keyCounts()).get(id) ?? 0;
    if (members > 0) throw Errors.teamHasKeys(id, members);
    const record = await this.store.delete(id);
    if (record) this.announce(id, 'deleted');
    return record;
  }

  /** How many keys, stored and declared, each team has (teams without keys are absent). */
  async keyCounts(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const key of [...(await this.keys.list()), ...this.keys.listDeclared()]) {
      if (key.team_id !== undefined) counts.set(key.team_id, (counts.get(key.team_id) ?? 0) + 1);
    }
    return counts;
  }

  /** Without team events (a service built alone), this instance's cache is still evicted at once. */
  private announce(id: string, kind: 'changed' | 'deleted'): void {
    if (this.events) this.events.emit(id, kind);
    else this.evict(id);
  }
}

/** The store's refusal of a taken name, as the admin API answers it. */
async function nameChecked<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (e) {
    throw e instanceof TeamNameTaken ? Errors.teamNameTaken(e.teamName) : e;
  }
}

export const TeamServiceToken = token<TeamService>('TeamService');
