/** Sign-in: the admin token is checked with one API call, then kept in this tab only. */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, saveToken } from './api';

export function SignIn(props: { onSignedIn: () => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await api('GET', '/admin/keys?limit=1', undefined, value.trim());
      saveToken(value.trim());
      props.onSignedIn();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="sign-in">
    <h1>Model gateway console</h1>
    <form onSubmit=${submit}>
      <label
        >Admin token
        <input
          name="token"
          type="password"
          autocomplete="off"
          required
          value=${value}
          onInput=${(e: Event) => setValue((e.target as HTMLInputElement).value)}
      /></label>
      <p class="hint">In <code>data/admin-token</code> on the gateway's host. Kept in this tab only.</p>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      <button type="submit" disabled=${busy}>Sign in</button>
    </form>
  </main>`;
}
