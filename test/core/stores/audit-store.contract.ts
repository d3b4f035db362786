/**
 * What every AuditStore promises the audit trail and `GET /admin/audit`, run against each implementation.
 * `makeStore(t)` gives fresh, empty storage and opens stores over it; opening again is a reopen.
 */
import type { Test } from 'tap';
import type { AuditRecord, AuditStore } from '../../../core/stores/audit-store';
import type { Opener } from '../../helpers/stores';

export type MakeAuditStore = (t: Test) => Promise<Opener<AuditStore>>;

let seq = 0;

/** A record `minute` minutes into 2026; ids sort as the trail's do, by time then sequence. */
export function newAuditRecord(minute: number, over: Partial<AuditRecord> = {}): AuditRecord {
  const at = Date.UTC(2026, 0, 1) + minute * 60_000;
  return {
    id: `${at.toString(36).padStart(9, '0')}${(++seq % 36 ** 4).toString(36).padStart(4, '0')}000000`,
    at: new Date(at).toISOString(),
    actor: { kind: 'token', id: 'gat-aaaaaaaa', name: 'ops', role: 'admin' },
    action: 'key.update',
    target: { kind: 'key', id: 'sk-00000001' },
    outcome: { status: 200 },
    changes: { enabled: { before: true, after: false } },
    request_id: `req-${seq}`,
    client_address: '127.0.0.1',
    ...over,
  };
}

export function auditStoreContract(t: Test, makeStore: MakeAuditStore): void {
  t.test('appended records come back newest first, exactly as written, and survive a reopen', async (t) => {
    const open = await makeStore(t);
    const store = await open();
    t.strictSame(await store.page({ limit: 10 }), [], 'empty at first');
    const records = [newAuditRecord(1), newAuditRecord(2, { outcome: { status: 403, code: 'forbidden' } })];
    for (const record of records) await store.append(record);
    t.strictSame(await store.page({ limit: 10 }), [...records].reverse());
    await store.close();
    t.strictSame(await (await open()).page({ limit: 10 }), [...records].reverse(), 'after a reopen');
  });

  t.test('page: cursor, limit and each filter', async (t) => {
    const store = await (await makeStore(t))();
    const a = newAuditRecord(1, { actor: { kind: 'token', id: 'gat-viewer01', name: 'v', role: 'viewer' } });
    const b = newAuditRecord(2, { action: 'key.create', target: { kind: 'key', id: 'sk-00000002' } });
    const c = newAuditRecord(3, { action: 'access.denied', actor: { kind: 'unknown', id: '', name: '' } });
    const d = newAuditRecord(4, { action: 'token.create', target: { kind: 'token', id: 'gat-bbbbbbbb' } });
    for (const record of [a, b, c, d]) await store.append(record);
    const ids = async (query: Partial<Parameters<AuditStore['page']>[0]>) =>
      (await store.page({ limit: 100, ...query })).map((r) => r.id);

    t.strictSame(await ids({ limit: 2 }), [d.id, c.id], 'the newest, at most limit');
    t.strictSame(await ids({ limit: 2, before: c.id }), [b.id, a.id], 'older than the cursor');
    t.strictSame(await ids({ before: a.id }), [], 'nothing before the oldest');
    t.strictSame(await ids({ actor: 'gat-viewer01' }), [a.id], 'by actor id');
    t.strictSame(await ids({ target: 'sk-00000002' }), [b.id], 'by target id');
    t.strictSame(await ids({ action: 'access.denied' }), [c.id], 'by action');
    t.strictSame(await ids({ from: b.at }), [d.id, c.id, b.id], 'from: inclusive');
    t.strictSame(await ids({ to: c.at }), [b.id, a.id], 'to: exclusive');
    t.strictSame(await ids({ from: b.at, to: d.at, action: 'key.create' }), [b.id], 'filters together');
  });
}
