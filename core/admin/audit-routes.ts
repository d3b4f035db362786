/**
 * GET /admin/audit?actor=&target=&action=&from=&to=&limit=1..500(50)&cursor=   the audit log, newest
 * first → {data, next_cursor}. `actor` and `target` are ids, `action` e.g. `key.update`; `from` (inclusive)
 * and `to` (exclusive) ISO 8601 times. The stored records are the answer as they are (no secret is ever
 * in one: audit-changes.ts), declared as the wire's.
 */
import { Errors } from '../base/errors';
import type { AuditQuery, AuditStore } from '../stores/audit-store';
import { checkParams, pageLimit } from './page-params';
import type { AuditEntry, Page } from './wire';

const PAGE_PARAMS = ['actor', 'target', 'action', 'from', 'to', 'limit', 'cursor'];
const DEFAULT_LIMIT = 50;
const MAX_FILTER = 200;
const ID_SHAPE = /^[0-9a-z]{19}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function auditQuery(search: URLSearchParams): AuditQuery {
  checkParams(search, PAGE_PARAMS);
  const text = (name: 'actor' | 'target' | 'action'): { [k in typeof name]?: string } => {
    const value = search.get(name);
    if (value === null) return {};
    if (value.length === 0 || value.length > MAX_FILTER)
      throw Errors.invalidQuery(name, `1 to ${MAX_FILTER} characters`);
    return { [name]: value };
  };
  const time = (name: 'from' | 'to'): { [k in typeof name]?: string } => {
    const value = search.get(name);
    if (value === null) return {};
    const at = ISO_TIME.test(value) ? Date.parse(value) : NaN;
    if (Number.isNaN(at)) throw Errors.invalidQuery(name, 'an ISO 8601 time, such as 2026-01-01T00:00:00Z');
    return { [name]: new Date(at).toISOString() };
  };
  const cursor = search.get('cursor');
  if (cursor !== null && !ID_SHAPE.test(cursor)) {
    throw Errors.invalidQuery('cursor', 'the next_cursor of the previous page');
  }
  return {
    limit: pageLimit(search, DEFAULT_LIMIT),
    ...(cursor !== null ? { before: cursor } : {}),
    ...text('actor'),
    ...text('target'),
    ...text('action'),
    ...time('from'),
    ...time('to'),
  };
}

export async function auditPage(store: AuditStore, search: URLSearchParams): Promise<Page<AuditEntry>> {
  const query = auditQuery(search);
  const records = await store.page({ ...query, limit: query.limit + 1 }); // one more tells whether there is a next page
  const data: AuditEntry[] = records.slice(0, query.limit);
  return { data, next_cursor: records.length > query.limit ? data[data.length - 1]!.id : null };
}
