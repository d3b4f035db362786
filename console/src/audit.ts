/**
 * The audit log: every admin change and every refused admin call, newest first, filtered by actor,
 * target, action and days (UTC), paged by the server; the entries matching the filters export as CSV.
 */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { AuditEntry, Page } from '../../core/admin/wire';
import { api } from './api';
import { FilterInput } from './filter-input';
import { csv, download, utc } from './format';
import { Pager } from './pager';
import { useLoad } from './use-load';

const PAGE_SIZE = 50;
/** The export pages through the log this many entries a call, and stops at EXPORT_MAX. */
const EXPORT_PAGE = 500;
const EXPORT_MAX = 50_000;
const DAY = 86_400_000;

type Filters = Record<'actor' | 'target' | 'action' | 'from' | 'to', string>;
const NO_FILTERS: Filters = { actor: '', target: '', action: '', from: '', to: '' };

/** The query for the filters: days (`YYYY-MM-DD`, UTC) become `[from 00:00, the day after `to`)`. */
function auditPath(f: Filters, limit: number, cursor?: string): string {
  const params = new URLSearchParams({ limit: String(limit) });
  for (const name of ['actor', 'target', 'action'] as const)
    if (f[name].trim()) params.set(name, f[name].trim());
  if (f.from) params.set('from', `${f.from}T00:00:00Z`);
  if (f.to) params.set('to', new Date(Date.parse(`${f.to}T00:00:00Z`) + DAY).toISOString());
  if (cursor) params.set('cursor', cursor);
  return `/admin/audit?${params.toString()}`;
}

/** `field: before → after` for each changed field. */
const changeLines = (e: AuditEntry): string[] =>
  Object.entries(e.changes).map(
    ([field, { before, after }]) => `${field}: ${JSON.stringify(before)} → ${JSON.stringify(after)}`,
  );

const outcomeText = (e: AuditEntry): string =>
  e.outcome.code ? `${e.outcome.status} ${e.outcome.code}` : String(e.outcome.status);

const CSV_HEADER = [
  'at',
  'actor_kind',
  'actor_id',
  'actor_name',
  'actor_role',
  'action',
  'target_kind',
  'target_id',
  'status',
  'code',
  'changes',
  'request_id',
  'client_address',
];

const csvRow = (e: AuditEntry): string[] => [
  e.at,
  e.actor.kind,
  e.actor.id,
  e.actor.name,
  e.actor.role ?? '',
  e.action,
  e.target.kind,
  e.target.id,
  String(e.outcome.status),
  e.outcome.code ?? '',
  JSON.stringify(e.changes),
  e.request_id,
  e.client_address,
];

/** Every entry matching the filters (up to EXPORT_MAX), page after page. */
async function allEntries(f: Filters): Promise<{ entries: AuditEntry[]; cut: boolean }> {
  const entries: AuditEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await api<Page<AuditEntry>>('GET', auditPath(f, EXPORT_PAGE, cursor));
    entries.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && entries.length < EXPORT_MAX);
  return { entries, cut: cursor !== undefined };
}

export function AuditView() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<Page<AuditEntry>>({ data: [], next_cursor: null });
  const [error, setError] = useState('');
  const [note, setNote] = useState('');
  const cursor = cursors[cursors.length - 1];
  useLoad(
    () => api<Page<AuditEntry>>('GET', auditPath(filters, PAGE_SIZE, cursor)),
    (p) => (setPage(p), setError('')),
    setError,
    [filters, cursor],
  );
  const set = (name: keyof Filters) => (value: string) => {
    setFilters({ ...filters, [name]: value });
    setCursors([undefined]);
  };
  const exportCsv = async () => {
    try {
      const { entries, cut } = await allEntries(filters);
      download('audit.csv', csv([CSV_HEADER, ...entries.map(csvRow)]));
      setNote(cut ? `Exported the newest ${entries.length} entries; narrow the filters for the rest.` : '');
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return html`<section>
    <div class="toolbar">
      <h1>Audit log</h1>
      <${FilterInput} name="actor" placeholder="Actor id" value=${filters.actor} onCommit=${set('actor')} />
      <${FilterInput}
        name="target"
        placeholder="Target id"
        value=${filters.target}
        onCommit=${set('target')}
      />
      <${FilterInput}
        name="action"
        placeholder="Action, e.g. key.update"
        value=${filters.action}
        onCommit=${set('action')}
      />
      <label class="inline"
        >From
        <input
          type="date"
          name="from"
          value=${filters.from}
          onChange=${(e: Event) => set('from')((e.target as HTMLInputElement).value)}
      /></label>
      <label class="inline"
        >To
        <input
          type="date"
          name="to"
          value=${filters.to}
          onChange=${(e: Event) => set('to')((e.target as HTMLInputElement).value)}
      /></label>
      <button type="button" onClick=${() => void exportCsv()}>Export CSV</button>
    </div>
    ${error && html`<p class="error" role="alert">${error}</p>`} ${note && html`<p class="hint">${note}</p>`}
    <table class="audit">
      <thead>
        <tr>
          <th>Time</th>
          <th>Actor</th>
          <th>Action</th>
          <th>Target</th>
          <th>Outcome</th>
          <th>Changes</th>
          <th>Request</th>
          <th>Client</th>
        </tr>
      </thead>
      <tbody>
        ${
          page.data.length === 0 &&
          html`<tr>
            <td colspan="8" class="empty">No entries match.</td>
          </tr>`
        }
        ${page.data.map(
          (e) =>
            html`<tr key=${e.id} data-entry=${e.id}>
              <td>${utc(e.at)}</td>
              <td>
                <button
                  type="button"
                  class="link"
                  title="Show this actor's entries"
                  onClick=${() => set('actor')(e.actor.id)}
                >
                  ${e.actor.name || e.actor.id}
                </button>
                <div class="muted">${e.actor.kind}${e.actor.role ? `, ${e.actor.role}` : ''}</div>
              </td>
              <td><code>${e.action}</code></td>
              <td>
                <button
                  type="button"
                  class="link"
                  title="Show this target's entries"
                  onClick=${() => set('target')(e.target.id)}
                >
                  ${e.target.id}
                </button>
                <div class="muted">${e.target.kind}</div>
              </td>
              <td>
                <span class=${`outcome ${e.outcome.status < 400 ? 'ok' : 'refused'}`}>${outcomeText(e)}</span>
              </td>
              <td class="changes">${changeLines(e).map((line) => html`<div>${line}</div>`)}</td>
              <td><code>${e.request_id}</code></td>
              <td>${e.client_address}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <${Pager} cursors=${cursors} next=${page.next_cursor} onChange=${setCursors} />
  </section>`;
}
