/** The key dialogs: create and edit (one form), rotate, and the once-only reveal of a full key. */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { CreatedKey, PublicKey, TeamWithActivity } from '../../core/admin/wire';
import { api, caller } from './api';
import { can } from './abilities';
import { Dialog } from './dialog';
import { RevealSecret } from './reveal';
import { useForm } from './use-form';
import { defined, limitBody, LimitInputs, limitStateOf, type LimitState } from './limit-form';

interface FormState extends LimitState {
  description: string;
  /** The team's id; '' for none. */
  team: string;
  expires: string;
}

const formOf = (k?: PublicKey): FormState => ({
  ...limitStateOf(k),
  description: k?.description ?? '',
  team: k?.team_id ?? '',
  expires: k?.expires_at?.slice(0, 16) ?? '',
});

/**
 * The API body for the form; in an edit, empty optional fields are cleared with null. A caller confined
 * to one team sends no team: the gateway puts its keys in that team.
 */
function bodyOf(f: FormState, editing: boolean): Record<string, unknown> {
  const clear = editing ? null : undefined;
  const choosesTeam = can(caller(), 'see-all-teams');
  return defined({
    description: f.description.trim(),
    ...limitBody(f, editing),
    team_id: choosesTeam ? f.team || clear : undefined,
    expires_at: f.expires ? `${f.expires}:00Z` : clear,
  });
}

/** Create (no `record`) or edit (`record`) a key; `onDone` gets the API's answer. */
export function KeyForm(props: {
  record?: PublicKey;
  /** The teams a key may join (a team_admin's own only). */
  teams: readonly TeamWithActivity[];
  onDone: (r: CreatedKey | PublicKey) => void;
  onClose: () => void;
}) {
  const editing = props.record !== undefined;
  const confined = caller()?.team_id;
  const {
    state: f,
    field,
    error,
    submit,
  } = useForm(formOf(props.record), async (state) => {
    const body = bodyOf(state, editing);
    props.onDone(
      editing
        ? await api<PublicKey>('PATCH', `/admin/keys/${encodeURIComponent(props.record!.id)}`, body)
        : await api<CreatedKey>('POST', '/admin/keys', body),
    );
  });
  return html`<${Dialog}
    title=${editing ? `Edit ${props.record!.id}` : 'Create a key'}
    onClose=${props.onClose}
  >
    <form class="form" onSubmit=${submit}>
      <label
        >Description <input name="description" value=${f.description} onInput=${field('description')}
      /></label>
      <label
        >Team
        <select
          name="team"
          value=${confined ?? f.team}
          disabled=${confined !== undefined}
          onChange=${field('team')}
        >
          ${confined === undefined && html`<option value="">No team</option>`}
          ${props.teams.map((team) => html`<option value=${team.id}>${team.name}</option>`)}
        </select></label
      >
      <${LimitInputs} state=${f} set=${field} placeholder="gateway default" />
      <label
        >Expires (UTC)
        <input name="expires" type="datetime-local" value=${f.expires} onInput=${field('expires')}
      /></label>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      <div class="actions">
        <button type="button" onClick=${props.onClose}>Cancel</button>
        <button type="submit" class="primary">${editing ? 'Save' : 'Create key'}</button>
      </div>
    </form>
  <//>`;
}

/** Rotate: a replacement with the same settings; the old key optionally disabled after a grace period. */
export function RotateForm(props: {
  record: PublicKey;
  onDone: (r: CreatedKey) => void;
  onClose: () => void;
}) {
  const [disableOld, setDisableOld] = useState(true);
  const [minutes, setMinutes] = useState('60');
  const [error, setError] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      if (disableOld && !/^\d+$/.test(minutes.trim())) throw new Error('Grace period must be whole minutes.');
      const body = disableOld ? { disable_old_after: Number(minutes) * 60 } : {};
      props.onDone(
        await api<CreatedKey>('POST', `/admin/keys/${encodeURIComponent(props.record.id)}/rotate`, body),
      );
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return html`<${Dialog} title=${`Rotate ${props.record.id}`} onClose=${props.onClose}>
    <form class="form" onSubmit=${submit}>
      <p>
        A new key with the same description, models, tools, guardrails, limits, budget and expiry replaces
        this one.
      </p>
      <label class="check"
        ><input
          type="checkbox"
          name="disable-old"
          checked=${disableOld}
          onChange=${(e: Event) => setDisableOld((e.target as HTMLInputElement).checked)}
        />
        Disable the old key after</label
      >
      <label
        >Grace period (minutes)
        <input
          name="grace"
          inputmode="numeric"
          disabled=${!disableOld}
          value=${minutes}
          onInput=${(e: Event) => setMinutes((e.target as HTMLInputElement).value)}
      /></label>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      <div class="actions">
        <button type="button" onClick=${props.onClose}>Cancel</button>
        <button type="submit" class="primary">Rotate</button>
      </div>
    </form>
  <//>`;
}

/** The full key, shown this once: the page keeps it only until this dialog closes. */
export const RevealKey = (props: { created: CreatedKey; onClose: () => void }) =>
  html`<${RevealSecret}
    title="Your new key"
    label="New key"
    secret=${props.created.key}
    keeps="a hash of it"
    onClose=${props.onClose}
  >
    ${props.created.replaces && html`<p>It replaces <code>${props.created.replaces}</code>.</p>`}
  <//>`;
