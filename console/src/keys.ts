/**
 * Keys: a server-paged table with search, status and team filters, and the actions on each key for a
 * role that may change keys.
 */
import { html } from 'htm/preact';
import { useMemo, useState } from 'preact/hooks';
import type { CreatedKey, KeyWithActivity, Page, PublicKey } from '../../core/admin/wire';
import { api, caller } from './api';
import { can } from './abilities';
import { Confirm } from './dialog';
import { KeyForm, RevealKey, RotateForm } from './key-dialogs';
import { utc } from './format';
import { budgetText, guardrailsText, limitsText, spentText, toolsText } from './limit-text';
import { Pager } from './pager';
import { useLoad } from './use-load';
import { useTeams } from './use-teams';

const PAGE_SIZE = 50;

type Open =
  | { kind: 'create' }
  | { kind: 'edit' | 'rotate' | 'disable' | 'delete'; record: PublicKey }
  | { kind: 'reveal'; created: CreatedKey };

function pagePath(q: string, status: string, team: string, cursor: string | undefined): string {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (q.trim()) params.set('q', q.trim());
  if (status) params.set('status', status);
  if (team) params.set('team_id', team);
  if (cursor) params.set('cursor', cursor);
  return `/admin/keys?${params.toString()}`;
}

export function KeysView() {
  const [q, setQ] = useState('');
  const [status, setStatus] = useState('');
  const [team, setTeam] = useState('');
  const teams = useTeams();
  const teamNames = useMemo(() => new Map(teams.map((t) => [t.id, t.name])), [teams]);
  /** Cursors of the pages before this one (for "Previous"), and this page's. */
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<Page<KeyWithActivity>>({ data: [], next_cursor: null });
  const [error, setError] = useState('');
  const [open, setOpen] = useState<Open | null>(null);
  const [reloads, setReloads] = useState(0);
  const cursor = cursors[cursors.length - 1];

  useLoad(
    () => api<Page<KeyWithActivity>>('GET', pagePath(q, status, team, cursor)),
    (p) => (setPage(p), setError('')),
    setError,
    [q, status, team, cursor, reloads],
  );
  const changes = can(caller(), 'change-keys');

  const reload = () => setReloads((n) => n + 1);
  const close = () => setOpen(null);
  /** A refusal stays on screen: nothing changed, so nothing is reloaded over it. */
  const act =
    (path: string, method = 'POST') =>
    async () => {
      close();
      try {
        await api(method, path);
        reload();
      } catch (e) {
        setError((e as Error).message);
      }
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
      ${
        can(caller(), 'see-all-teams') &&
        teams.length > 0 &&
        html`<select name="team" aria-label="Team" value=${team} onChange=${filter(setTeam)}>
          <option value="">Any team</option>
          ${teams.map((t) => html`<option value=${t.id}>${t.name}</option>`)}
        </select>`
      }
      ${
        changes &&
        html`<button type="button" class="primary" onClick=${() => setOpen({ kind: 'create' })}>
          Create key
        </button>`
      }
    </div>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <${KeyTable}
      rows=${page.data}
      teams=${teamNames}
      changes=${changes}
      onOpen=${setOpen}
      onEnable=${(k: PublicKey) => void act(`/admin/keys/${k.id}/enable`)()}
    />
    <${Pager} cursors=${cursors} next=${page.next_cursor} onChange=${setCursors} />
    ${open?.kind === 'create' && html`<${KeyForm} teams=${teams} onDone=${done} onClose=${close} />`}
    ${open?.kind === 'edit' && html`<${KeyForm} record=${open.record} teams=${teams} onDone=${done} onClose=${close} />`}
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
  teams: ReadonlyMap<string, string>;
  /** Whether the caller may change keys: the actions column is shown only then. */
  changes: boolean;
  onOpen: (o: Open) => void;
  onEnable: (k: PublicKey) => void;
}) {
  const { rows, onOpen, teams, changes } = props;
  return html`<table class="keys">
    <thead>
      <tr>
        <th>Description</th>
        <th>Id</th>
        <th>Created</th>
        <th>Last used</th>
        <th>Status</th>
        <th>Team</th>
        <th>Models</th>
        <th>Tools</th>
        <th>Guardrails</th>
        <th>Rate limits</th>
        <th>Budget</th>
        <th>Spent</th>
        <th>Expires</th>
        ${changes && html`<th>Actions</th>`}
      </tr>
    </thead>
    <tbody>
      ${
        rows.length === 0 &&
        html`<tr>
          <td colspan=${changes ? 14 : 13} class="empty">No keys match.</td>
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
            <td>
              ${k.team_id ? (teams.get(k.team_id) ?? html`<code>${k.team_id}</code>`) : html`<span class="muted">—</span>`}
            </td>
            <td>${k.allowed_models.length ? k.allowed_models.join(', ') : 'all'}</td>
            <td>${toolsText(k)}</td>
            <td>${guardrailsText(k)}</td>
            <td>${limitsText(k, 'default')}</td>
            <td>${budgetText(k)}</td>
            <td>${spentText(k)}</td>
            <td>${utc(k.expires_at)}</td>
            ${
              changes &&
              html`<td class="row-actions">
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
              </td>`
            }
          </tr>`,
      )}
    </tbody>
  </table>`;
}
