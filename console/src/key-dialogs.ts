/** The key dialogs: create and edit (one form), rotate, and the once-only reveal of a full key. */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { CreatedKey, PublicKey } from '../../core/admin/wire';
import { api } from './api';
import { Dialog } from './dialog';
import { money, parseMoney } from './format';

interface FormState {
  description: string;
  models: string;
  rpm: string;
  tpm: string;
  concurrent: string;
  budget: string;
  period: 'total' | 'month';
  expires: string;
}

const formOf = (k?: PublicKey): FormState => ({
  description: k?.description ?? '',
  models: k?.allowed_models.join(', ') ?? '',
  rpm: k?.rate_limit_rpm?.toString() ?? '',
  tpm: k?.rate_limit_tpm?.toString() ?? '',
  concurrent: k?.max_concurrent?.toString() ?? '',
  budget: k?.budget ? money(k.budget.amount_micros).replace(/,/g, '') : '',
  period: k?.budget?.period ?? 'month',
  expires: k?.expires_at?.slice(0, 16) ?? '',
});

/** A limit field: empty (undefined) or a whole number above 0. */
function wholeNumber(text: string, label: string): number | undefined {
  const value = text.trim();
  if (value && !/^[1-9]\d*$/.test(value)) throw new Error(`${label} must be a whole number above 0.`);
  return value ? Number(value) : undefined;
}

/** The API body for the form; in an edit, empty optional fields are cleared with null. */
function bodyOf(f: FormState, editing: boolean): Record<string, unknown> {
  const clear = editing ? null : undefined;
  const rpm = wholeNumber(f.rpm, 'Rate limit');
  const tpm = wholeNumber(f.tpm, 'Token limit');
  const concurrent = wholeNumber(f.concurrent, 'Concurrent requests');
  const amount = f.budget.trim() ? parseMoney(f.budget) : undefined;
  if (f.budget.trim() && amount === undefined)
    throw new Error('Budget must be an amount such as 25 or 0.50.');
  const body: Record<string, unknown> = {
    description: f.description.trim(),
    allowed_models: f.models
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean),
    rate_limit_rpm: rpm ?? clear,
    rate_limit_tpm: tpm ?? clear,
    max_concurrent: concurrent ?? clear,
    budget: amount !== undefined ? { amount_micros: amount, period: f.period } : clear,
    expires_at: f.expires ? `${f.expires}:00Z` : clear,
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

/** Create (no `record`) or edit (`record`) a key; `onDone` gets the API's answer. */
export function KeyForm(props: {
  record?: PublicKey;
  onDone: (r: CreatedKey | PublicKey) => void;
  onClose: () => void;
}) {
  const editing = props.record !== undefined;
  const [f, setF] = useState(formOf(props.record));
  const [error, setError] = useState('');
  const field = (name: keyof FormState) => (e: Event) =>
    setF({ ...f, [name]: (e.target as HTMLInputElement).value });
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      const body = bodyOf(f, editing);
      props.onDone(
        editing
          ? await api<PublicKey>('PATCH', `/admin/keys/${encodeURIComponent(props.record!.id)}`, body)
          : await api<CreatedKey>('POST', '/admin/keys', body),
      );
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return html`<${Dialog}
    title=${editing ? `Edit ${props.record!.id}` : 'Create a key'}
    onClose=${props.onClose}
  >
    <form class="form" onSubmit=${submit}>
      <label
        >Description <input name="description" value=${f.description} onInput=${field('description')}
      /></label>
      <label
        >Allowed models
        <input name="models" placeholder="all models" value=${f.models} onInput=${field('models')}
      /></label>
      <label
        >Rate limit (requests/min)
        <input
          name="rpm"
          inputmode="numeric"
          placeholder="gateway default"
          value=${f.rpm}
          onInput=${field('rpm')}
      /></label>
      <div class="row">
        <label
          >Tokens/min
          <input
            name="tpm"
            inputmode="numeric"
            placeholder="gateway default"
            value=${f.tpm}
            onInput=${field('tpm')}
        /></label>
        <label
          >Concurrent requests
          <input
            name="concurrent"
            inputmode="numeric"
            placeholder="gateway default"
            value=${f.concurrent}
            onInput=${field('concurrent')}
        /></label>
      </div>
      <div class="row">
        <label
          >Budget
          <input
            name="budget"
            inputmode="decimal"
            placeholder="none"
            value=${f.budget}
            onInput=${field('budget')}
        /></label>
        <label
          >Per
          <select name="period" value=${f.period} onChange=${field('period')}>
            <option value="month">calendar month</option>
            <option value="total">in total</option>
          </select></label
        >
      </div>
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
      <p>A new key with the same description, models, limits, budget and expiry replaces this one.</p>
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
export function RevealKey(props: { created: CreatedKey; onClose: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(props.created.key);
    setCopied(true);
  };
  return html`<${Dialog} title="Your new key" onClose=${props.onClose}>
    <p class="warning" role="alert">
      Copy this key now. It is shown only this once: the gateway keeps only a hash of it and can never show it
      again.
    </p>
    <div class="row">
      <input class="secret" readonly aria-label="New key" value=${props.created.key} />
      <button type="button" onClick=${() => void copy()}>${copied ? 'Copied' : 'Copy'}</button>
    </div>
    ${props.created.replaces && html`<p>It replaces <code>${props.created.replaces}</code>.</p>`}
    <div class="actions">
      <button type="button" class="primary" onClick=${props.onClose}>I have stored it</button>
    </div>
  <//>`;
}
