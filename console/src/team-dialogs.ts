/** The team form: create and edit, with the team's limits, budget and metadata. */
import { html } from 'htm/preact';
import type { PublicTeam } from '../../core/admin/wire';
import { api } from './api';
import { Dialog } from './dialog';
import { defined, limitBody, LimitInputs, limitStateOf, type LimitState } from './limit-form';
import { useForm } from './use-form';

interface FormState extends LimitState {
  name: string;
  /** One `name=value` a line. */
  metadata: string;
}

const formOf = (team?: PublicTeam): FormState => ({
  ...limitStateOf(team),
  name: team?.name ?? '',
  metadata: Object.entries(team?.metadata ?? {})
    .map(([name, value]) => `${name}=${value}`)
    .join('\n'),
});

/** `name=value` lines as an object; blank lines are skipped, a line without `=` is refused. */
function metadataOf(text: string): Record<string, string> {
  const entries = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const at = line.indexOf('=');
      if (at < 1) throw new Error(`Metadata lines are name=value; "${line.slice(0, 40)}" is not.`);
      return [line.slice(0, at).trim(), line.slice(at + 1).trim()] as const;
    });
  return Object.fromEntries(entries);
}

const bodyOf = (f: FormState, editing: boolean): Record<string, unknown> =>
  defined({ name: f.name.trim(), ...limitBody(f, editing), metadata: metadataOf(f.metadata) });

/** Create (no `record`) or edit (`record`) a team; `onDone` gets the API's answer. */
export function TeamForm(props: { record?: PublicTeam; onDone: () => void; onClose: () => void }) {
  const editing = props.record !== undefined;
  const {
    state: f,
    field,
    error,
    submit,
  } = useForm(formOf(props.record), async (state) => {
    const body = bodyOf(state, editing);
    if (editing) await api('PATCH', `/admin/teams/${encodeURIComponent(props.record!.id)}`, body);
    else await api('POST', '/admin/teams', body);
    props.onDone();
  });
  return html`<${Dialog}
    title=${editing ? `Edit ${props.record!.name}` : 'Create a team'}
    onClose=${props.onClose}
  >
    <form class="form" onSubmit=${submit}>
      <label>Name <input name="name" required value=${f.name} onInput=${field('name')} /></label>
      <${LimitInputs} state=${f} set=${field} placeholder="no team limit" />
      <p class="hint">
        The team's limits and budget hold over all its keys together; each key's own limits still apply.
      </p>
      <label
        >Metadata
        <textarea
          name="metadata"
          rows="3"
          placeholder="cost_centre=4711"
          value=${f.metadata}
          onInput=${field('metadata')}
        ></textarea>
      </label>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      <div class="actions">
        <button type="button" onClick=${props.onClose}>Cancel</button>
        <button type="submit" class="primary">${editing ? 'Save' : 'Create team'}</button>
      </div>
    </form>
  <//>`;
}
