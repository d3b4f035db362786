/**
 * Sign-in: the admin token is checked by asking the gateway whose it is (its role decides what the
 * console offers), then kept in this tab only. Where the gateway
 * offers single sign-on, a link starts it: the identity provider's page, then back to the console with
 * a session cookie.
 */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { identify, saveToken } from './api';

export function SignIn(props: { onSignedIn: () => void; sso: boolean }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await identify(value.trim());
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
    ${
      props.sso &&
      html`<p><a class="button primary" href="/auth/login">Sign in with SSO</a></p>
        <p class="hint">Through your organisation's identity provider.</p>
        <p class="or">or</p>`
    }
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
