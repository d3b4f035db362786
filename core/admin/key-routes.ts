/**
 * The key side of the admin API (see admin-server.ts for the whole list):
 *   GET    /admin/keys?limit=&cursor=&status=&q=&team_id=   a page of keys in id order → {data, next_cursor},
 *                                      each key with its last_used_at and spent_micros
 *   POST   /admin/keys                 create {description?, allowed_models?, rate_limit_rpm?, rate_limit_tpm?,
 *                                      max_concurrent?, expires_at?, budget?, team_id?, guardrails?,
 *                                      allowed_tools?} → {key, record}
 *   GET    /admin/keys/:id             one key, as in the listing
 *   PATCH  /admin/keys/:id             change any of those fields and `enabled`; null clears an optional one
 *                                      (and `[]` the guardrails or the tools allowed)
 *   POST   /admin/keys/:id/rotate      {disable_old_after?} → {key, record, replaces}
 *   POST   /admin/keys/:id/disable     and /enable
 *   DELETE /admin/keys/:id
 *   GET    /admin/keys/declared        the keys declared in gateway.yaml, each with `declared: true`; they
 *                                      are read-only here (409 key_declared to any change)
 * Every key record answered goes through publicKey: never a hash. A team_admin's keys are held to its
 * team (AdminCall.team): created in it, and never moved out of it. Each change notes its before and
 * after views for the audit log.
 */
import { z } from 'zod';
import { Errors } from '../base/errors';
import type { KeyService } from '../keys/key-service';
import type { KeyChange, KeyRecord, KeyStatus } from '../stores/key-store';
import type { UsageStore } from '../stores/usage-store';
import type { TeamService } from '../teams/team-service';
import type { Params } from '../../lib/router';
import { readJsonBody, toChange, type BodyFields } from './admin-body';
import { createdRoute, okRoute, type AdminCall, type AdminRoute } from './admin-reply';
import { changesOf } from './audit-changes';
import { withActivity } from './key-activity';
import {
  allowedModels,
  allowedTools,
  allowedToolsChange,
  budget,
  CLEARABLE_LIMITS,
  guardrails,
  guardrailsChange,
  LIMIT_EXPECTED,
  positiveInt,
} from './limit-fields';
import { checkParams, pageLimit } from './page-params';
import { publicKey } from './public-key';
import type { CreatedKey, KeyWithActivity, List, PublicKey, Page } from './wire';

/** What each field must be, as error messages say it: `field 'budget.amount_micros' must be …`. */
const FIELDS: BodyFields = {
  expected: {
    ...LIMIT_EXPECTED,
    description: 'a string of at most 500 characters',
    expires_at: "an ISO 8601 time with a time zone, e.g. '2026-12-31T23:59:59Z'",
    enabled: 'true or false',
    disable_old_after: 'a non-negative integer number of seconds (at most 10 years)',
    team_id: 'a team id (1 to 100 characters)',
  },
  clearable: new Set([...CLEARABLE_LIMITS, 'expires_at', 'team_id']),
};

const description = z.string().max(500);
const teamId = z.string().min(1).max(100);
/** Stored as `Date#toISOString` (UTC, milliseconds), so stores compare expiries as strings. */
const expiresAt = z.iso
  .datetime({ offset: true })
  .refine((text) => Number.isFinite(Date.parse(text)))
  .transform((text) => new Date(text).toISOString());

const newKeyBody = z
  .object({
    description: description.optional(),
    allowed_models: allowedModels.optional(),
    rate_limit_rpm: positiveInt.optional(),
    rate_limit_tpm: positiveInt.optional(),
    max_concurrent: positiveInt.optional(),
    expires_at: expiresAt.optional(),
    budget: budget.optional(),
    team_id: teamId.optional(),
    guardrails: guardrails.optional(),
    allowed_tools: allowedTools.optional(),
  })
  .strict();

const keyPatchBody = z
  .object({
    description: description.optional(),
    allowed_models: allowedModels.optional(),
    rate_limit_rpm: positiveInt.nullable().optional(),
    rate_limit_tpm: positiveInt.nullable().optional(),
    max_concurrent: positiveInt.nullable().optional(),
    expires_at: expiresAt.nullable().optional(),
    budget: budget.nullable().optional(),
    enabled: z.boolean().optional(),
    team_id: teamId.nullable().optional(),
    guardrails: guardrailsChange.optional(),
    allowed_tools: allowedToolsChange.optional(),
  })
  .strict();

const TEN_YEARS_S = 10 * 366 * 24 * 3600;
const rotateBody = z
  .object({ disable_old_after: z.number().int().nonnegative().max(TEN_YEARS_S).optional() })
  .strict();

const STATUSES: readonly KeyStatus[] = ['enabled', 'disabled', 'expired'];
const PAGE_PARAMS = ['limit', 'cursor', 'status', 'q', 'team_id'];

export class KeyRoutes {
  constructor(
    private readonly keys: KeyService,
    private readonly usage: UsageStore,
    private readonly teams: TeamService | undefined,
  ) {}

  /** The key routes, for the admin server's table. */
  routes(): AdminRoute[] {
    return [
      okRoute('GET', '/admin/keys', ({ search }) => this.page(search)),
      createdRoute('POST', '/admin/keys', (call) => this.create(call)),
      okRoute('GET', '/admin/keys/declared', async (): Promise<List<KeyWithActivity>> => ({
        data: await this.withActivity(this.keys.listDeclared()),
      })),
      okRoute('GET', '/admin/keys/:id', ({ params }) => this.one(params.id ?? '')),
      okRoute('PATCH', '/admin/keys/:id', (call) => this.patch(this.changeable(call.params), call)),
      okRoute('DELETE', '/admin/keys/:id', (call) => this.remove(this.changeable(call.params), call)),
      okRoute('POST', '/admin/keys/:id/disable', (call) =>
        this.enable(this.changeable(call.params), false, call),
      ),
      okRoute('POST', '/admin/keys/:id/enable', (call) =>
        this.enable(this.changeable(call.params), true, call),
      ),
      createdRoute('POST', '/admin/keys/:id/rotate', (call) =>
        this.rotate(this.changeable(call.params), call),
      ),
    ];
  }

  /** The id a change is aimed at; declared keys change when gateway.yaml does, so not here. */
  private changeable(params: Params): string {
    const id = params.id ?? '';
    if (this.keys.isDeclared(id)) throw Errors.keyDeclared(id);
    return id;
  }

  private async create(call: AdminCall): Promise<CreatedKey> {
    const body = await readJsonBody(call.req, newKeyBody, FIELDS);
    const team = heldTeam(call, body.team_id);
    await this.checkTeam(team);
    const created = await this.keys.create(team === undefined ? body : { ...body, team_id: team });
    const record = publicKey(created.record);
    call.audit.changed({ kind: 'key', id: record.id }, changesOf('key', undefined, record));
    return { key: created.key, record };
  }

  /** A key may join only a team that exists: 400 naming `team_id` otherwise. */
  private async checkTeam(id: string | null | undefined): Promise<void> {
    if (typeof id === 'string' && !(await this.teams?.find(id))) {
      throw Errors.invalidField('team_id', `the id of an existing team; no team has id ${id.slice(0, 100)}`);
    }
  }

  private async one(id: string): Promise<KeyWithActivity | undefined> {
    const record = await this.keys.findById(id);
    if (!record) throw Errors.keyNotFound(id);
    return (await this.withActivity([record]))[0];
  }

  private async patch(id: string, call: AdminCall): Promise<PublicKey> {
    const patch = await readJsonBody(call.req, keyPatchBody, FIELDS, true);
    if ('team_id' in patch) heldTeam(call, patch.team_id ?? undefined, true);
    await this.checkTeam(patch.team_id);
    const change = toChange<KeyChange>(patch);
    return this.changed(id, call, () => this.keys.update(id, change));
  }

  private async remove(id: string, call: AdminCall): Promise<PublicKey> {
    const before = this.found(id, await this.keys.delete(id));
    call.audit.changed({ kind: 'key', id }, changesOf('key', before, undefined));
    return before;
  }

  private enable(id: string, enabled: boolean, call: AdminCall): Promise<PublicKey> {
    return this.changed(id, call, () => this.keys.update(id, { enabled }));
  }

  private async rotate(id: string, call: AdminCall): Promise<CreatedKey> {
    const { disable_old_after } = await readJsonBody(call.req, rotateBody, FIELDS);
    const before = await this.keys.findById(id);
    const rotated = await this.keys.rotate(
      id,
      disable_old_after === undefined ? undefined : disable_old_after * 1000,
    );
    if (!rotated || !before) throw Errors.keyNotFound(id);
    const record = publicKey(rotated.record);
    call.audit.changed(
      { kind: 'key', id },
      {
        ...changesOf('key', publicKey(before), publicKey(rotated.old)),
        replaced_by: { before: null, after: record.id },
      },
    );
    return { key: rotated.key, record, replaces: rotated.replaces };
  }

  /** Applies a change to key `id`, noting its public view before and after for the audit log. */
  private async changed(
    id: string,
    call: AdminCall,
    change: () => Promise<KeyRecord | undefined>,
  ): Promise<PublicKey> {
    const before = this.found(id, await this.keys.findById(id));
    const after = this.found(id, await change());
    call.audit.changed({ kind: 'key', id }, changesOf('key', before, after));
    return after;
  }

  /** `?limit=1..500 (100)&cursor=<next_cursor>&status=enabled|disabled|expired&q=<substring>`. */
  private async page(search: URLSearchParams): Promise<Page<KeyWithActivity>> {
    checkParams(search, PAGE_PARAMS);
    const limit = pageLimit(search, 100);
    const cursor = search.get('cursor');
    if (cursor !== null && (cursor.length === 0 || cursor.length > 64)) {
      throw Errors.invalidQuery('cursor', 'the next_cursor of the previous page');
    }
    const status = search.get('status');
    if (status !== null && !STATUSES.includes(status as KeyStatus)) {
      throw Errors.invalidQuery('status', "'enabled', 'disabled' or 'expired'");
    }
    const q = search.get('q');
    if (q !== null && q.length > 200) throw Errors.invalidQuery('q', 'at most 200 characters');
    const team = search.get('team_id');
    if (team !== null && (team.length === 0 || team.length > 100)) {
      throw Errors.invalidQuery('team_id', 'the id of a team');
    }
    const now = Date.now();
    const records = await this.keys.page({
      limit: limit + 1, // one more tells whether there is a next page
      now: new Date(now).toISOString(),
      ...(cursor !== null ? { after: cursor } : {}),
      ...(status !== null ? { status: status as KeyStatus } : {}),
      ...(q ? { q } : {}),
      ...(team !== null ? { team_id: team } : {}),
    });
    const data = records.slice(0, limit);
    return {
      data: await withActivity(this.usage, data, now),
      next_cursor: records.length > limit ? data[data.length - 1]!.id : null,
    };
  }

  /** Keys as listed, a declared one marked `declared: true`. */
  private async withActivity(records: readonly KeyRecord[]): Promise<KeyWithActivity[]> {
    const listed = await withActivity(this.usage, records, Date.now());
    return listed.map((k) => (this.keys.isDeclared(k.id) ? { ...k, declared: true } : k));
  }

  private found(id: string, record: KeyRecord | undefined): PublicKey {
    if (!record) throw Errors.keyNotFound(id);
    return publicKey(record);
  }
}

/**
 * The team a key must have for a caller confined to one (`call.team`): its own, whether the body named
 * it or not (`changing`: only named, as a PATCH moves a key only when it names a team); another is 403.
 */
function heldTeam(call: AdminCall, asked: string | undefined, changing = false): string | undefined {
  if (call.team === undefined) return asked;
  if (asked === call.team || (asked === undefined && !changing)) return call.team;
  throw Errors.forbidden('a team_admin may not move a key to another team or out of its own');
}
