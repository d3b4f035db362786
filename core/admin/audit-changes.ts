/**
 * What a change did, for the audit log, computed from the public views only: each kind of target has a
 * list of fields typed as keys of its wire view, so a hash (or anything else not in the view) can never
 * be named, and nothing but those fields is copied.
 */
import type { AuditChange } from '../stores/audit-store';
import type { PublicAdminToken, PublicKey, PublicTeam } from './wire';

interface Views {
  key: PublicKey;
  token: PublicAdminToken;
  team: PublicTeam;
}

const AUDITED: { readonly [K in keyof Views]: readonly (keyof Views[K] & string)[] } = {
  key: [
    'id',
    'description',
    'enabled',
    'status',
    'allowed_models',
    'rate_limit_rpm',
    'rate_limit_tpm',
    'max_concurrent',
    'expires_at',
    'budget',
    'team_id',
    'guardrails',
    'allowed_tools',
  ],
  token: ['id', 'description', 'role', 'team_id'],
  team: [
    'id',
    'name',
    'budget',
    'rate_limit_rpm',
    'rate_limit_tpm',
    'max_concurrent',
    'allowed_models',
    'guardrails',
    'allowed_tools',
    'metadata',
  ],
};

/** The audited fields whose values differ between two views (undefined: there was none, or is none now). */
export function changesOf<K extends keyof Views>(
  kind: K,
  before: Views[K] | undefined,
  after: Views[K] | undefined,
): Record<string, AuditChange> {
  const changes: Record<string, AuditChange> = {};
  for (const field of AUDITED[kind]) {
    const was = valueOf(before, field);
    const is = valueOf(after, field);
    if (JSON.stringify(was) !== JSON.stringify(is)) changes[field] = { before: was, after: is };
  }
  return changes;
}

/** A copy of the field's value (JSON values only), null when absent. */
function valueOf<V>(view: V | undefined, field: keyof V): unknown {
  const value = view?.[field];
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}
