/**
 * Teams: a group of API keys with a budget and limits of its own, counted over all its keys at once.
 * A key belongs to at most one team (KeyRecord.team_id); its calls count against both.
 */
import type { KeyBudget } from './key-store';

export interface TeamRecord {
  /** `team-` + random characters; operators use it in `team_id`. */
  readonly id: string;
  /** Unique among teams, at most 100 characters. */
  readonly name: string;
  /** Spending limit of all the team's keys together; absent: none. */
  readonly budget?: KeyBudget;
  /** The team's limits as a whole, over all its keys: requests and tokens per minute, calls in flight. */
  readonly rate_limit_rpm?: number;
  readonly rate_limit_tpm?: number;
  readonly max_concurrent?: number;
  /** Models the team's keys may use; empty means all (a key's own list narrows it further). */
  readonly allowed_models: readonly string[];
  /** Guardrail rules marked `opt_in` that apply to the calls of all the team's keys, by name; absent: none. */
  readonly guardrails?: readonly string[];
  /** MCP tools the team's keys may use, as names or globs; absent: every tool (a key's own list narrows it). */
  readonly allowed_tools?: readonly string[];
  /** The operators' own labels (cost centre, owner, …): strings only. */
  readonly metadata: Readonly<Record<string, string>>;
  readonly created_at: string;
}

export interface NewTeam {
  name: string;
  budget?: KeyBudget;
  rate_limit_rpm?: number;
  rate_limit_tpm?: number;
  max_concurrent?: number;
  allowed_models?: readonly string[];
  guardrails?: readonly string[];
  allowed_tools?: readonly string[];
  metadata?: Readonly<Record<string, string>>;
}

/** Fields to change; a field given as undefined is removed from the record. */
export type TeamChange = {
  -readonly [F in Exclude<keyof TeamRecord, 'id' | 'created_at'>]?: TeamRecord[F] | undefined;
};

/** Thrown by a store when another team has the name; the admin API answers 409 `team_name_taken`. */
export class TeamNameTaken extends Error {
  constructor(readonly teamName: string) {
    super(`team name ${teamName} already exists`);
    this.name = 'TeamNameTaken';
  }
}

/** Persistent team storage. Implementations: embedded (teams.jsonl under the data directory) and MongoDB. */
export interface TeamStore {
  /** Stores a record; fails if the id or the name is taken. */
  insert(record: TeamRecord): Promise<void>;
  findById(id: string): Promise<TeamRecord | undefined>;
  /** Every team, in name order. */
  list(): Promise<TeamRecord[]>;
  /** Returns the updated record, or undefined when no team has this id; fails if a new name is taken. */
  update(id: string, change: TeamChange): Promise<TeamRecord | undefined>;
  /** Returns the deleted record, or undefined when no team has this id. */
  delete(id: string): Promise<TeamRecord | undefined>;
  close(): Promise<void>;
}
