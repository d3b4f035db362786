/**
 * Who makes an admin call: an admin token (the bootstrap one, or one made with `POST /admin/tokens`) or a
 * person signed in to the console. The role decides what the call may do (route-access.ts).
 */

/** `admin`: everything; `team_admin`: its own team's keys, usage and tasks; `viewer`: read-only. */
export type Role = 'admin' | 'team_admin' | 'viewer';

export interface Actor {
  readonly kind: 'token' | 'person';
  /** The token's id (never the token), or the person's subject at the identity provider. */
  readonly id: string;
  /** The token's description, or the person's name or e-mail address. */
  readonly name: string;
  readonly role: Role;
  /** Set for `team_admin`: the only team it acts on. */
  readonly team_id?: string;
}
