/**
 * The team side of the admin API (see admin-server.ts for the whole list):
 *   GET    /admin/teams?team_id=       every team in name order → {data}, each with its key_count and
 *                                      spent_micros; `team_id` narrows it to that team
 *   POST   /admin/teams                create {name, budget?, rate_limit_rpm?, rate_limit_tpm?, max_concurrent?,
 *                                      allowed_models?, guardrails?, allowed_tools?, metadata?} → the team (201)
 *   GET    /admin/teams/:id            one team, as in the listing
 *   PATCH  /admin/teams/:id            change any of those fields; null clears an optional one (and `[]`
 *                                      the guardrails or the tools allowed)
 *   DELETE /admin/teams/:id            refused with 409 team_has_keys while keys belong to it
 * Keys join and leave a team through their own `team_id` (key-routes.ts).
 */
import { z } from 'zod';
import { Errors } from '../base/errors';
import type { TeamChange, TeamRecord } from '../stores/team-store';
import type { UsageStore } from '../stores/usage-store';
import type { TeamService } from '../teams/team-service';
import { readJsonBody, toChange, type BodyFields } from './admin-body';
import { createdRoute, okRoute, type AdminCall, type AdminRoute } from './admin-reply';
import { changesOf } from './audit-changes';
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
import { checkParams } from './page-params';
import { publicTeam } from './public-team';
import { teamsWithActivity } from './team-activity';
import type { List, PublicTeam, TeamWithActivity } from './wire';

const MAX_METADATA = 50;

const FIELDS: BodyFields = {
  expected: {
    ...LIMIT_EXPECTED,
    name: 'a string of 1 to 100 characters, unique among teams',
    metadata:
      `an object of at most ${MAX_METADATA} entries, each name at most 100 characters ` +
      'and each value a string of at most 500',
  },
  clearable: new Set(CLEARABLE_LIMITS),
};

const name = z.string().min(1).max(100);
const metadata = z
  .record(z.string().max(100), z.string().max(500))
  .refine((entries) => Object.keys(entries).length <= MAX_METADATA);

const newTeamBody = z
  .object({
    name,
    budget: budget.optional(),
    rate_limit_rpm: positiveInt.optional(),
    rate_limit_tpm: positiveInt.optional(),
    max_concurrent: positiveInt.optional(),
    allowed_models: allowedModels.optional(),
    guardrails: guardrails.optional(),
    allowed_tools: allowedTools.optional(),
    metadata: metadata.optional(),
  })
  .strict();

const teamPatchBody = z
  .object({
    name: name.optional(),
    budget: budget.nullable().optional(),
    rate_limit_rpm: positiveInt.nullable().optional(),
    rate_limit_tpm: positiveInt.nullable().optional(),
    max_concurrent: positiveInt.nullable().optional(),
    allowed_models: allowedModels.optional(),
    guardrails: guardrailsChange.optional(),
    allowed_tools: allowedToolsChange.optional(),
    metadata: metadata.optional(),
  })
  .strict();

export class TeamRoutes {
  constructor(
    private readonly teams: TeamService,
    private readonly usage: UsageStore,
  ) {}

  /** The team routes, for the admin server's table. */
  routes(): AdminRoute[] {
    return [
      okRoute('GET', '/admin/teams', ({ search }) => this.list(search)),
      createdRoute('POST', '/admin/teams', (call) => this.create(call)),
      okRoute('GET', '/admin/teams/:id', ({ params }) => this.one(params.id ?? '')),
      okRoute('PATCH', '/admin/teams/:id', (call) => this.patch(call.params.id ?? '', call)),
      okRoute('DELETE', '/admin/teams/:id', (call) => this.remove(call.params.id ?? '', call)),
    ];
  }

  private async create(call: AdminCall): Promise<PublicTeam> {
    const team = publicTeam(await this.teams.create(await readJsonBody(call.req, newTeamBody, FIELDS)));
    call.audit.changed({ kind: 'team', id: team.id }, changesOf('team', undefined, team));
    return team;
  }

  /** `?team_id=<id>`: that team alone (none when it does not exist). */
  private async list(search: URLSearchParams): Promise<List<TeamWithActivity>> {
    checkParams(search, ['team_id']);
    const only = search.get('team_id');
    if (only === null) return { data: await this.withActivity(await this.teams.list()) };
    const team = await this.teams.find(only);
    return { data: team ? await this.withActivity([team]) : [] };
  }

  private async one(id: string): Promise<TeamWithActivity> {
    const team = await this.teams.find(id);
    if (!team) throw Errors.teamNotFound(id);
    return (await this.withActivity([team]))[0]!;
  }

  private async patch(id: string, call: AdminCall): Promise<PublicTeam> {
    const patch = await readJsonBody(call.req, teamPatchBody, FIELDS, true);
    const before = this.found(id, await this.teams.find(id));
    const after = this.found(id, await this.teams.update(id, toChange<TeamChange>(patch)));
    call.audit.changed({ kind: 'team', id }, changesOf('team', before, after));
    return after;
  }

  private async remove(id: string, call: AdminCall): Promise<PublicTeam> {
    const before = this.found(id, await this.teams.delete(id));
    call.audit.changed({ kind: 'team', id }, changesOf('team', before, undefined));
    return before;
  }

  private async withActivity(records: readonly TeamRecord[]): Promise<TeamWithActivity[]> {
    return teamsWithActivity(this.usage, records, await this.teams.keyCounts(), Date.now());
  }

  private found(id: string, record: TeamRecord | undefined): PublicTeam {
    if (!record) throw Errors.teamNotFound(id);
    return publicTeam(record);
  }
}
