/**
 * Teams: each team's keys, limits, budget and what it spent in the budget's period; create, edit and
 * delete for a role that may change teams. A team_admin sees its own team only.
 */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { List, PublicTeam, TeamWithActivity } from '../../core/admin/wire';
import { api, caller } from './api';
import { can } from './abilities';
import { Confirm } from './dialog';
import { utc } from './format';
import { budgetMeter, budgetText, guardrailsText, limitsText, spentText, toolsText } from './limit-text';
import { TeamForm } from './team-dialogs';
import { useLoad } from './use-load';

type Open = { kind: 'create' } | { kind: 'edit' | 'delete'; record: PublicTeam };

export function TeamsView() {
  const [teams, setTeams] = useState<readonly TeamWithActivity[]>([]);
  const [error, setError] = useState('');
  const [open, setOpen] = useState<Open | null>(null);
  const [reloads, setReloads] = useState(0);
  useLoad(
    () => api<List<TeamWithActivity>>('GET', '/admin/teams'),
    (list) => (setTeams(list.data), setError('')),
    setError,
    [reloads],
  );
  const changes = can(caller(), 'change-teams');
  const close = () => setOpen(null);
  const done = () => {
    close();
    setReloads((n) => n + 1);
  };
  /** A refusal stays on screen: nothing changed, so nothing is reloaded over it. */
  const remove = (team: PublicTeam) => async () => {
    try {
      await api('DELETE', `/admin/teams/${encodeURIComponent(team.id)}`);
      done();
    } catch (e) {
      close();
      setError((e as Error).message);
    }
  };

  return html`<section>
    <div class="toolbar">
      <h1>Teams</h1>
      ${
        changes &&
        html`<button type="button" class="primary" onClick=${() => setOpen({ kind: 'create' })}>
          Create team
        </button>`
      }
    </div>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <table class="teams">
      <thead>
        <tr>
          <th>Name</th>
          <th>Id</th>
          <th>Keys</th>
          <th>Models</th>
          <th>Tools</th>
          <th>Guardrails</th>
          <th>Team limits</th>
          <th>Budget</th>
          <th>Spent</th>
          <th>Of budget</th>
          <th>Metadata</th>
          <th>Created</th>
          ${changes && html`<th>Actions</th>`}
        </tr>
      </thead>
      <tbody>
        ${
          teams.length === 0 &&
          html`<tr>
            <td colspan=${changes ? 13 : 12} class="empty">No teams yet.</td>
          </tr>`
        }
        ${teams.map(
          (team) =>
            html`<tr key=${team.id} data-team=${team.id}>
              <td>${team.name}</td>
              <td><code>${team.id}</code></td>
              <td>${team.key_count}</td>
              <td>${team.allowed_models.length ? team.allowed_models.join(', ') : 'all'}</td>
              <td>${toolsText(team)}</td>
              <td>${guardrailsText(team)}</td>
              <td>${limitsText(team, 'none')}</td>
              <td>${budgetText(team)}</td>
              <td>${spentText(team)}</td>
              <td>${budgetMeter(team) ?? html`<span class="muted">—</span>`}</td>
              <td>
                ${Object.entries(team.metadata).map(
                  ([name, value]) => html`<div><span class="muted">${name}</span> ${value}</div>`,
                )}
              </td>
              <td>${utc(team.created_at)}</td>
              ${
                changes &&
                html`<td class="row-actions">
                  <button type="button" onClick=${() => setOpen({ kind: 'edit', record: team })}>Edit</button>
                  <button
                    type="button"
                    class="danger"
                    onClick=${() => setOpen({ kind: 'delete', record: team })}
                  >
                    Delete
                  </button>
                </td>`
              }
            </tr>`,
        )}
      </tbody>
    </table>
    ${open?.kind === 'create' && html`<${TeamForm} onDone=${done} onClose=${close} />`}
    ${open?.kind === 'edit' && html`<${TeamForm} record=${open.record} onDone=${done} onClose=${close} />`}
    ${
      open?.kind === 'delete' &&
      html`<${Confirm}
        title=${`Delete ${open.record.name}?`}
        action="Delete"
        message="A team is deleted only when no key belongs to it: move or delete its keys first."
        onConfirm=${remove(open.record)}
        onClose=${close}
      />`
    }
  </section>`;
}
