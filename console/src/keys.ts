/** Keys: a server-paged table with search and a status filter, and the actions on each key. */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { CreatedKey, KeyWithActivity, Page, PublicKey } from '../../core/admin/wire';
import { api } from './api';
import { Confirm } from './dialog';
import { KeyForm, RevealKey, RotateForm } from './key-dialogs';
import { money, utc } from './format';
import { Pager } from './pager';

const PAGE_SIZE = 50;

type Open =
  | { kind: 'create' }
  | { kind: 'edit' | 'rotate' | 'disable' | 'delete'; record: PublicKey }
  | { kind: 'reveal'; created: CreatedKey };

function pagePath(q: string, status: string, cursor: string | undefined): string {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (q.trim()) params.set('q', q.trim());
  if (status) params.set('status', status);
  if (cursor) params.set('cursor', cursor);
  return `/admin/keys?${params.toString()}`;
}

const budgetText = (k: PublicKey) =>
  k.budget ? `${money(k.budget.amount_micros)} ${k.budget.period === 'month' ? '/ month' : 'total'}` : '—';

/** What the key spent (this month for a monthly budget), and whether calls of unknown cost are in it. */
function spentText(k: KeyWithActivity) {
  const spent = money(k.spent_micros);
  const unknown = k.spent_unknown_requests;
  return unknown > 0
    ? html`${spent} <span class="muted" title="calls to models without a price">+ ${unknown} unpriced</span>`
    : spent;
}

/** A key's own rate limits, or `default` when it has none (the gateway's then apply). */
const limitsText = (k: PublicKey): string =>
  [
    k.rate_limit_rpm && `${k.rate_limit_rpm}/min`,
    k.rate_limit_tpm && `${k.rate_limit_tpm} tokens/min`,
    k.max_concurrent && `${k.max_concurrent} at once`,
  ]
    .filter(Boolean)
    .join(', ') || 'default';

export function KeysView() {
  const [q, setQ] = useState('');
  const [status, setStatus] = useState('');
  /** Cursors of the pages before this one (for "Previous"), and this page's. */
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<Page<KeyWithActivity>>({ data: [], next_cursor: null });
  const [error, setError] = useState('');
  const [open, setOpen] = useState<Open | null>(null);
  const [reloads, setReloads] = useState(0);
  const cursor = cursors[cursors.length - 1];

  useEffect(() => {
    let live = true;
    api<Page<KeyWithActivity>>('GET', pagePath(q, status, cursor))
      .then((p) => live && (setPage(p), setError('')))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [q, status, cursor, reloads]);

  const reload = () => setReloads((n) => n + 1);
  const close = () => setOpen(null);
  const act =
    (path: string, method = 'POST') =>
    async () => {
      try {
        await api(method, path);
      } catch (e) {
        setError((e as Error).message);
      }
      close();
      reload();
    };
  const filter = (set: (v: string) => void) => (e: Event) => {
    set((e.target as HTMLInputElement).value);
    setCursors([undefined]);
  };
  const done = (r: CreatedKey | PublicKey) => {
    setOpen('key' in r ? { kind: 'reveal', created: r } : null);
    reload();
  };

  return html`<section>
    <div class="toolbar">
      <h1>Keys</h1>
      <input
        type="search"
        name="q"
        placeholder="Search description or id"
        value=${q}
        onInput=${filter(setQ)}
      />
      <select name="status" aria-label="Status" value=${status} onChange=${filter(setStatus)}>
        <option value="">Any status</option>
        <option value="enabled">Enabled</option>
        <option value="disabled">Disabled</option>
        <option value="expired">Expired</option>
      </select>
      <button type="button" class="primary" onClick=${() => setOpen({ kind: 'create' })}>Create key</button>
    </div>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <${KeyTable}
      rows=${page.data}
      onOpen=${setOpen}
      onEnable=${(k: PublicKey) => void act(`/admin/keys/${k.id}/enable`)()}
    />
    <${Pager} cursors=${cursors} next=${page.next_cursor} onChange=${setCursors} />
    ${open?.kind === 'create' && html`<${KeyForm} onDone=${done} onClose=${close} />`}
    ${open?.kind === 'edit' && html`<${KeyForm} record=${open.record} onDone=${done} onClose=${close} />`}
    ${open?.kind === 'rotate' && html`<${RotateForm} record=${open.record} onDone=${done} onClose=${close} />`}
    ${open?.kind === 'reveal' && html`<${RevealKey} created=${open.created} onClose=${close} />`}
    ${
      open?.kind === 'disable' &&
      html`<${Confirm}
        title=${`Disable ${open.record.id}?`}
        action="Disable"
        message="Clients using this key are refused at once (403) until it is enabled again."
        onConfirm=${act(`/admin/keys/${open.record.id}/disable`)}
        onClose=${close}
      />`
    }
    ${
      open?.kind === 'delete' &&
      html`<${Confirm}
        title=${`Delete ${open.record.id}?`}
        action="Delete"
        message="The key stops working at once and cannot be restored. Its usage records stay."
        onConfirm=${act(`/admin/keys/${open.record.id}`, 'DELETE')}
        onClose=${close}
      />`
    }
  </section>`;
}

function KeyTable(props: {
  rows: readonly KeyWithActivity[];
  onOpen: (o: Open) => void;
  onEnable: (k: PublicKey) => void;
}) {
  const { rows, onOpen } = props;
  return html`<table class="keys">
    <thead>
      <tr>
        <th>Description</th>
        <th>Id</th>
        <th>Created</th>
        <th>Last used</th>
        <th>Status</th>
        <th>Models</th>
        <th>Rate limits</th>
        <th>Budget</th>
        <th>Spent</th>
        <th>Expires</th>
        <th>Actions</th>
      </tr>
    </thead>
    <tbody>
      ${
        rows.length === 0 &&
        html`<tr>
          <td colspan="11" class="empty">No keys match.</td>
        </tr>`
      }
      ${rows.map(
        (k) =>
          html`<tr key=${k.id} data-key=${k.id}>
            <td>${k.description || html`<span class="muted">—</span>`}</td>
            <td><code>${k.id}</code></td>
            <td>${utc(k.created_at)}</td>
            <td>${k.last_used_at ? utc(k.last_used_at) : html`<span class="muted">never</span>`}</td>
            <td><span class=${`status ${k.status}`}>${k.status}</span></td>
            <td>${k.allowed_models.length ? k.allowed_models.join(', ') : 'all'}</td>
            <td>${limitsText(k)}</td>
            <td>${budgetText(k)}</td>
            <td>${spentText(k)}</td>
            <td>${utc(k.expires_at)}</td>
            <td class="row-actions">
              <button type="button" onClick=${() => onOpen({ kind: 'edit', record: k })}>Edit</button>
              <button type="button" onClick=${() => onOpen({ kind: 'rotate', record: k })}>Rotate</button>
              ${
                k.enabled
                  ? html`<button type="button" onClick=${() => onOpen({ kind: 'disable', record: k })}>
                      Disable
                    </button>`
                  : html`<button type="button" onClick=${() => props.onEnable(k)}>Enable</button>`
              }
              <button type="button" class="danger" onClick=${() => onOpen({ kind: 'delete', record: k })}>
                Delete
              </button>
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
