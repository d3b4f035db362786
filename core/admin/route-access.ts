/**
 * Who may call each admin route, in one table: the roles allowed, how a `team_admin` is held to its own
 * team, and, for a route that changes something, the action and target kind its audit record names.
 * The admin server checks the table before a handler runs (403 `forbidden`, naming the roles the route
 * needs), and refuses to start with a route the table does not list.
 *
 *   admin       everything
 *   viewer      every GET, nothing else
 *   team_admin  its own team's keys, usage and tasks, and reading its own team; never tokens, teams'
 *               changes, configuration or reload
 */
import { Errors } from '../base/errors';
import type { Params } from '../../lib/router';
import type { Actor, Role } from './actor';

/**
 * How a team_admin's call is held to its team:
 *   query           a listing: `team_id=<its team>` is forced into the query, another team_id refused
 *   body            the route takes `team_id` in its body and holds it to the caller's (AdminCall.team)
 *   key, task, team a `:id` route: the resource's team must be the caller's (an unknown id goes on to 404)
 *   self            the route answers about the caller alone: nothing of any team to hold
 */
export type TeamScope = 'query' | 'body' | 'self' | Resource;
export type Resource = 'key' | 'task' | 'team';

export interface RouteAccess {
  readonly roles: readonly Role[];
  /** Required when `roles` has team_admin. */
  readonly team?: readonly TeamScope[];
  /** Required on a route that changes something (any method but GET). */
  readonly audit?: { readonly action: string; readonly target: string };
}

/** The team a resource belongs to: undefined when there is no such resource, `team_id` absent when none. */
export type TeamOwners = Readonly<
  Record<Resource, (id: string) => Promise<{ readonly team_id?: string | undefined } | undefined>>
>;

const ALL: readonly Role[] = ['admin', 'team_admin', 'viewer'];
const READ: readonly Role[] = ['admin', 'viewer'];
const TEAM: readonly Role[] = ['admin', 'team_admin'];
const ADMIN: readonly Role[] = ['admin'];

const keyChange = (action: string): RouteAccess => ({
  roles: TEAM,
  team: ['key'],
  audit: { action, target: 'key' },
});

/** Every admin route, as routed (method, then path with its parameters). */
export const ROUTE_ACCESS: Readonly<Record<string, RouteAccess>> = {
  'GET /admin/keys': { roles: ALL, team: ['query'] },
  'POST /admin/keys': { roles: TEAM, team: ['body'], audit: { action: 'key.create', target: 'key' } },
  'GET /admin/keys/declared': { roles: READ },
  'GET /admin/keys/:id': { roles: ALL, team: ['key'] },
  'PATCH /admin/keys/:id': { ...keyChange('key.update'), team: ['key', 'body'] },
  'DELETE /admin/keys/:id': keyChange('key.delete'),
  'POST /admin/keys/:id/disable': keyChange('key.disable'),
  'POST /admin/keys/:id/enable': keyChange('key.enable'),
  'POST /admin/keys/:id/rotate': keyChange('key.rotate'),
  'GET /admin/usage': { roles: ALL, team: ['query'] },
  'GET /admin/usage/summary': { roles: ALL, team: ['query'] },
  'GET /admin/tasks': { roles: ALL, team: ['query'] },
  'GET /admin/tasks/:id': { roles: ALL, team: ['task'] },
  'GET /admin/teams': { roles: ALL, team: ['query'] },
  'POST /admin/teams': { roles: ADMIN, audit: { action: 'team.create', target: 'team' } },
  'GET /admin/teams/:id': { roles: ALL, team: ['team'] },
  'PATCH /admin/teams/:id': { roles: ADMIN, audit: { action: 'team.update', target: 'team' } },
  'DELETE /admin/teams/:id': { roles: ADMIN, audit: { action: 'team.delete', target: 'team' } },
  'GET /admin/tokens': { roles: READ },
  'POST /admin/tokens': { roles: ADMIN, audit: { action: 'token.create', target: 'token' } },
  'DELETE /admin/tokens/:id': { roles: ADMIN, audit: { action: 'token.delete', target: 'token' } },
  'GET /admin/audit': { roles: READ },
  'GET /admin/whoami': { roles: ALL, team: ['self'] },
  'GET /admin/config': { roles: READ },
  'POST /admin/reload': { roles: ADMIN, audit: { action: 'config.reload', target: 'config' } },
  'GET /admin/health': { roles: READ },
  'GET /admin/upstreams': { roles: READ },
  'GET /admin/video/stats': { roles: READ },
};

/** The table's entry for a route; throws (stopping start-up) for a route it lacks or states badly. */
export function accessOf(
  method: string,
  path: string,
  table: Readonly<Record<string, RouteAccess>> | undefined = ROUTE_ACCESS,
): RouteAccess {
  const name = `${method} ${path}`;
  const access = (table ?? ROUTE_ACCESS)[name];
  if (!access)
    throw new Error(`admin route ${name} has no entry in the route access table (route-access.ts)`);
  const problem = TABLE_RULES.find((rule) => rule.broken(method, access));
  if (problem) throw new Error(`admin route ${name}: ${problem.says} (route-access.ts)`);
  return access;
}

/** What every entry must hold. */
const TABLE_RULES: readonly {
  readonly says: string;
  readonly broken: (method: string, access: RouteAccess) => boolean;
}[] = [
  { says: 'a viewer may only read (GET)', broken: (m, a) => m !== 'GET' && a.roles.includes('viewer') },
  {
    says: 'a route open to team_admin must say how it is held to the team',
    broken: (_, a) => a.roles.includes('team_admin') && (a.team ?? []).length === 0,
  },
  { says: 'a changing route must name its audit action', broken: (m, a) => m !== 'GET' && !a.audit },
];

/** What the check reads of a call, and changes (a team_admin's listing gets its `team_id`). */
export interface CheckedCall {
  readonly route: string;
  readonly search: URLSearchParams;
  readonly params: Params;
}

/** Throws 403 `forbidden` unless `actor` may make the call; a team_admin's listing query gets its team. */
export async function checkAccess(
  access: RouteAccess,
  actor: Actor,
  call: CheckedCall,
  owners: TeamOwners,
): Promise<void> {
  if (!access.roles.includes(actor.role)) {
    throw Errors.forbidden(
      `${call.route} needs the role ${access.roles.join(' or ')}; this caller is ${actor.role}`,
    );
  }
  if (actor.role !== 'team_admin') return;
  const team = actor.team_id;
  if (team === undefined) throw Errors.forbidden('a team_admin without a team may do nothing');
  for (const scope of access.team ?? []) await SCOPE_CHECKS[scope](team, call, owners);
}

const otherTeam = (what: string): Error =>
  Errors.forbidden(`${what} belongs to another team; a team_admin acts on its own team only`);

const ownedBy =
  (resource: Resource) =>
  async (team: string, call: CheckedCall, owners: TeamOwners): Promise<void> => {
    const id = call.params.id ?? '';
    const owner = await owners[resource](id);
    if (owner && owner.team_id !== team) throw otherTeam(`${resource} ${id.slice(0, 200)}`);
  };

const SCOPE_CHECKS: Readonly<
  Record<TeamScope, (team: string, call: CheckedCall, owners: TeamOwners) => Promise<void>>
> = {
  query: (team, { search }) => {
    const asked = search.get('team_id');
    if (asked !== null && (asked !== team || search.getAll('team_id').length > 1)) {
      return Promise.reject(otherTeam(`team ${asked.slice(0, 200)}`));
    }
    search.set('team_id', team);
    return Promise.resolve();
  },
  // The handler holds the body's team_id to AdminCall.team: the body is read there, once.
  body: () => Promise.resolve(),
  self: () => Promise.resolve(),
  key: ownedBy('key'),
  task: ownedBy('task'),
  team: ownedBy('team'),
};
