/**
 * The audit records one admin call may leave: its refusal (401, 403: `access.denied`, aimed at the route),
 * or, for a changing route, its outcome with what the handler noted it changed (AuditNote).
 */
import type { GatewayError } from '../base/errors';
import type { Params } from '../../lib/router';
import type { Actor } from './actor';
import { AuditNote } from './audit-note';
import { auditActor, type AuditEvent, type AuditTrail } from './audit-trail';
import type { RouteAccess } from './route-access';

export interface CallPlace {
  /** `PATCH /admin/keys/:id` as routed, else the method and path as asked. */
  readonly route: string;
  readonly params: Params;
  readonly request_id: string;
  readonly client_address: string;
}

/** Longest id a record keeps of what the caller sent (a path, an id). */
const MAX_ID = 300;

export const outcomeOf = (error: GatewayError): AuditEvent['outcome'] => ({
  status: error.status,
  code: error.code,
});

export class CallAudit {
  readonly note = new AuditNote();

  constructor(
    private readonly trail: AuditTrail,
    private readonly place: CallPlace,
  ) {}

  /** Records the refusal; resolves with the error, to be thrown. */
  async refused(actor: Actor | undefined, error: GatewayError): Promise<GatewayError> {
    await this.write(actor, {
      action: 'access.denied',
      target: { kind: 'route', id: this.place.route.slice(0, MAX_ID) },
      outcome: outcomeOf(error),
      changes: {},
    });
    return error;
  }

  /** Records a changing route's outcome (nothing for a route that changes nothing). */
  async finished(actor: Actor, change: RouteAccess['audit'], outcome: AuditEvent['outcome']): Promise<void> {
    if (!change) return;
    await this.write(actor, {
      action: change.action,
      target: this.note.target ?? { kind: change.target, id: (this.place.params.id ?? '').slice(0, MAX_ID) },
      outcome,
      changes: this.note.changes,
    });
  }

  private write(
    actor: Actor | undefined,
    event: Pick<AuditEvent, 'action' | 'target' | 'outcome' | 'changes'>,
  ): Promise<void> {
    const { request_id, client_address } = this.place;
    return this.trail.write({ actor: auditActor(actor), ...event, request_id, client_address });
  }
}
