/**
 * Admin tokens: who may use the admin API and the console with a token, and with which role. A new
 * token is shown once; revoking one stops it at once on every instance. The bootstrap token comes from
 * the gateway's environment and is not revoked here.
 */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type {
  AdminRole,
  CreatedAdminToken,
  List,
  PublicAdminToken,
  TeamWithActivity,
} from '../../core/admin/wire';
import { api, caller } from './api';
import { can, roleName } from './abilities';
import { Confirm, Dialog } from './dialog';
import { utc } from './format';
import { RevealSecret } from './reveal';
import { useLoad } from './use-load';
import { useTeams } from './use-teams';

type Open =
  { kind: 'create' } | { kind: 'revoke'; record: PublicAdminToken } | { kind: 'reveal'; token: string };

const ROLES: readonly { role: AdminRole; says: string }[] = [
  { role: 'viewer', says: 'reads everything, changes nothing' },
  { role: 'team_admin', says: "its own team's keys, usage and tasks" },
  { role: 'admin', says: 'everything' },
];

export function TokensView() {
  const [tokens, setTokens] = useState<readonly PublicAdminToken[]>([]);
  const teams = useTeams();
  const [error, setError] = useState('');
  const [open, setOpen] = useState<Open | null>(null);
  const [reloads, setReloads] = useState(0);
  useLoad(
    () => api<List<PublicAdminToken>>('GET', '/admin/tokens'),
    (list) => (setTokens(list.data), setError('')),
    setError,
    [reloads],
  );
  const changes = can(caller(), 'change-tokens');
  const teamName = (id: string) => teams.find((t) => t.id === id)?.name ?? id;
  const close = () => setOpen(null);
  const reload = () => setReloads((n) => n + 1);
  const revoke = (record: PublicAdminToken) => async () => {
    close();
    try {
      await api('DELETE', `/admin/tokens/${encodeURIComponent(record.id)}`);
      reload();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return html`<section>
    <div class="toolbar">
      <h1>Admin tokens</h1>
      ${
        changes &&
        html`<button type="button" class="primary" onClick=${() => setOpen({ kind: 'create' })}>
          Create token
        </button>`
      }
    </div>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <table class="tokens">
      <thead>
        <tr>
          <th>Id</th>
          <th>Description</th>
          <th>Role</th>
          <th>Team</th>
          <th>Created</th>
          ${changes && html`<th>Actions</th>`}
        </tr>
      </thead>
      <tbody>
        ${tokens.map(
          (record) =>
            html`<tr key=${record.id} data-token=${record.id}>
              <td><code>${record.id}</code></td>
              <td>${record.description || html`<span class="muted">—</span>`}</td>
              <td>${roleName(record.role)}</td>
              <td>${record.team_id ? teamName(record.team_id) : html`<span class="muted">—</span>`}</td>
              <td>
                ${record.created_at ? utc(record.created_at) : html`<span class="muted">environment</span>`}
              </td>
              ${
                changes &&
                html`<td class="row-actions">
                  ${
                    !record.bootstrap &&
                    html`<button
                      type="button"
                      class="danger"
                      onClick=${() => setOpen({ kind: 'revoke', record })}
                    >
                      Revoke
                    </button>`
                  }
                </td>`
              }
            </tr>`,
        )}
      </tbody>
    </table>
    ${
      open?.kind === 'create' &&
      html`<${TokenForm}
        teams=${teams}
        onDone=${(token: string) => (setOpen({ kind: 'reveal', token }), reload())}
        onClose=${close}
      />`
    }
    ${
      open?.kind === 'reveal' &&
      html`<${RevealSecret}
        title="Your new admin token"
        label="New admin token"
        secret=${open.token}
        keeps="a hash of it"
        onClose=${close}
      />`
    }
    ${
      open?.kind === 'revoke' &&
      html`<${Confirm}
        title=${`Revoke ${open.record.id}?`}
        action="Revoke"
        message="The token stops working at once, on every instance, and cannot be restored."
        onConfirm=${revoke(open.record)}
        onClose=${close}
      />`
    }
  </section>`;
}

function TokenForm(props: {
  teams: readonly TeamWithActivity[];
  onDone: (token: string) => void;
  onClose: () => void;
}) {
  const [description, setDescription] = useState('');
  const [role, setRole] = useState<AdminRole>('viewer');
  const [team, setTeam] = useState('');
  const [error, setError] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      if (role === 'team_admin' && !team) throw new Error('A team admin needs its team.');
      const body = {
        description: description.trim(),
        role,
        ...(role === 'team_admin' ? { team_id: team } : {}),
      };
      props.onDone((await api<CreatedAdminToken>('POST', '/admin/tokens', body)).token);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const value = (e: Event) => (e.target as HTMLInputElement).value;
  return html`<${Dialog} title="Create an admin token" onClose=${props.onClose}>
    <form class="form" onSubmit=${submit}>
      <label
        >Description
        <input name="description" value=${description} onInput=${(e: Event) => setDescription(value(e))}
      /></label>
      <label
        >Role
        <select name="role" value=${role} onChange=${(e: Event) => setRole(value(e) as AdminRole)}>
          ${ROLES.map((r) => html`<option value=${r.role}>${roleName(r.role)}: ${r.says}</option>`)}
        </select></label
      >
      ${
        role === 'team_admin' &&
        html`<label
          >Team
          <select name="team" value=${team} onChange=${(e: Event) => setTeam(value(e))}>
            <option value="">Choose a team</option>
            ${props.teams.map((t) => html`<option value=${t.id}>${t.name}</option>`)}
          </select></label
        >`
      }
      ${error && html`<p class="error" role="alert">${error}</p>`}
      <div class="actions">
        <button type="button" onClick=${props.onClose}>Cancel</button>
        <button type="submit" class="primary">Create token</button>
      </div>
    </form>
  <//>`;
}
