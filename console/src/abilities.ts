/**
 * What the console offers each role: its views and the buttons that change something. The gateway's
 * route access table (core/admin/route-access.ts) is what decides; this only keeps the console from
 * offering what the gateway would refuse with 403.
 */
import type { AdminRole, Caller } from '../../core/admin/wire';

export type Ability =
  /** Create, change, rotate, disable and delete keys (a team_admin: its own team's). */
  | 'change-keys'
  /** Create, change and delete teams, and set their budgets. */
  | 'change-teams'
  /** Every team, and filtering by team; a team_admin sees its own team only. */
  | 'see-all-teams'
  /** The admin tokens' list. */
  | 'see-tokens'
  /** Create and revoke admin tokens. */
  | 'change-tokens'
  /** The audit log. */
  | 'see-audit';

const ABILITIES: Readonly<Record<AdminRole, readonly Ability[]>> = {
  admin: ['change-keys', 'change-teams', 'see-all-teams', 'see-tokens', 'change-tokens', 'see-audit'],
  team_admin: ['change-keys'],
  viewer: ['see-all-teams', 'see-tokens', 'see-audit'],
};

/** Whether `who` may do `ability`; nobody may before sign-in. */
export const can = (who: Caller | null, ability: Ability): boolean =>
  who !== null && ABILITIES[who.role].includes(ability);

/** `team_admin` → `team admin`. */
export const roleName = (role: AdminRole): string => role.replace('_', ' ');
