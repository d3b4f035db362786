/**
 * The admin API's own tokens:
 *   GET    /admin/tokens               every token, the bootstrap one first → {data}; never a token or hash
 *   POST   /admin/tokens               {description?, role, team_id?} → 201 {token, record}, the token shown once;
 *                                      team_id is required for team_admin (and its team must exist), refused
 *                                      for the other roles
 *   DELETE /admin/tokens/:id           revokes it at once, here and on every instance; the bootstrap
 *                                      token (GATEWAY_ADMIN_TOKEN, else data/admin-token) is not deletable
 */
import { z } from 'zod';
import { Errors } from '../base/errors';
import type { AdminTokenRecord } from '../stores/admin-token-store';
import { BOOTSTRAP_TOKEN_ID } from './actor-sources';
import { readAdminJson } from './admin-body';
import { createdRoute, okRoute, type AdminCall, type AdminRoute } from './admin-reply';
import type { AdminTokenService } from './admin-token-service';
import { changesOf } from './audit-changes';
import type { CreatedAdminToken, List, PublicAdminToken } from './wire';

/** Whether a team exists (teams live in their own store). */
export type TeamExists = (teamId: string) => Promise<boolean>;

const ROLES = ['admin', 'team_admin', 'viewer'] as const;

const EXPECTED: Record<string, string> = {
  description: 'a string of at most 500 characters',
  role: "'admin', 'team_admin' or 'viewer'",
  team_id: 'a team id (1 to 100 characters)',
};

const newTokenBody = z
  .object({
    description: z.string().max(500).default(''),
    role: z.enum(ROLES),
    team_id: z.string().min(1).max(100).optional(),
  })
  .strict();

type NewTokenBody = z.output<typeof newTokenBody>;

const BOOTSTRAP: PublicAdminToken = {
  id: BOOTSTRAP_TOKEN_ID,
  description: 'the bootstrap token (GATEWAY_ADMIN_TOKEN, else data/admin-token)',
  role: 'admin',
  created_at: null,
  bootstrap: true,
};

/** The only form in which the admin API shows a token record: fields copied by name, never the hash. */
export function publicToken(record: AdminTokenRecord): PublicAdminToken {
  return {
    id: record.id,
    description: record.description,
    role: record.role,
    ...(record.team_id !== undefined ? { team_id: record.team_id } : {}),
    created_at: record.created_at,
  };
}

async function readTokenBody(call: AdminCall): Promise<NewTokenBody> {
  const parsed = newTokenBody.safeParse(await readAdminJson(call.req));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') throw Errors.unknownField(issue.keys[0]!);
  const field = issue.path.map(String).join('.');
  if (!field) throw Errors.invalidRequest('the request body must be a JSON object');
  throw Errors.invalidField(field, EXPECTED[field] ?? issue.message);
}

export class TokenRoutes {
  constructor(
    private readonly tokens: AdminTokenService,
    /** Absent where this gateway has no teams: a team_admin token then cannot be made. */
    private readonly teamExists: TeamExists | undefined,
  ) {}

  routes(): AdminRoute[] {
    return [
      okRoute('GET', '/admin/tokens', () => this.list()),
      createdRoute('POST', '/admin/tokens', (call) => this.create(call)),
      okRoute('DELETE', '/admin/tokens/:id', (call) => this.revoke(call)),
    ];
  }

  private async list(): Promise<List<PublicAdminToken>> {
    return { data: [BOOTSTRAP, ...(await this.tokens.list()).map(publicToken)] };
  }

  private async create(call: AdminCall): Promise<CreatedAdminToken> {
    const body = await readTokenBody(call);
    await this.checkTeam(body);
    const created = await this.tokens.create(body);
    const record = publicToken(created.record);
    call.audit.changed({ kind: 'token', id: record.id }, changesOf('token', undefined, record));
    return { token: created.token, record };
  }

  /** team_id: required for team_admin, and an existing team; refused for the other roles. */
  private async checkTeam({ role, team_id }: NewTokenBody): Promise<void> {
    if (role !== 'team_admin') {
      if (team_id !== undefined) throw Errors.invalidField('team_id', `absent: a ${role} token has no team`);
      return;
    }
    if (team_id === undefined) throw Errors.invalidField('team_id', 'given for a team_admin token');
    if (!this.teamExists || !(await this.teamExists(team_id))) {
      throw Errors.invalidField('team_id', 'the id of an existing team');
    }
  }

  private async revoke(call: AdminCall): Promise<PublicAdminToken> {
    const id = call.params.id ?? '';
    if (id === BOOTSTRAP_TOKEN_ID) throw Errors.bootstrapToken();
    const gone = await this.tokens.revoke(id);
    if (!gone) throw Errors.adminTokenNotFound(id);
    const record = publicToken(gone);
    call.audit.changed({ kind: 'token', id }, changesOf('token', record, undefined));
    return record;
  }
}
