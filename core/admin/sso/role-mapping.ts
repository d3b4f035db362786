/** From the provider's claim to the console's role: `console.oidc.roles` in order, the first match wins. */
import type { OidcRoleConfig } from '../../../config/schema';
import type { Actor } from '../actor';

export type Grant = Pick<Actor, 'role' | 'team_id'>;

/** The role the claim's values earn, or undefined when no entry matches (the person is refused). */
export function grantFor(rules: readonly OidcRoleConfig[], claim: unknown): Grant | undefined {
  const held = claimValues(claim);
  const rule = rules.find((entry) => held.includes(entry.value));
  if (!rule) return undefined;
  return rule.team_id === undefined ? { role: rule.role } : { role: rule.role, team_id: rule.team_id };
}

/** A claim is a string (`"role": "ops"`) or an array of them (`"groups": ["ops", "dev"]`); anything else holds none. */
const claimValues = (claim: unknown): readonly unknown[] =>
  typeof claim === 'string' ? [claim] : Array.isArray(claim) ? claim : [];
