/**
 * What a changing admin route tells the audit log about its call: the target it acted on (a created
 * record's id is known only once it exists) and the changed fields (audit-changes.ts). Left empty, the
 * record names the target from the path's `:id`.
 */
import type { AuditChange } from '../stores/audit-store';

export interface AuditTarget {
  readonly kind: string;
  readonly id: string;
}

export class AuditNote {
  target: AuditTarget | undefined;
  changes: Readonly<Record<string, AuditChange>> = {};

  changed(target: AuditTarget, changes: Readonly<Record<string, AuditChange>>): void {
    this.target = target;
    this.changes = changes;
  }
}
