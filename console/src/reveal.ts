/** A secret (a key, an admin token) shown this once: the page keeps it only until this dialog closes. */
import { html } from 'htm/preact';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog } from './dialog';

export function RevealSecret(props: {
  title: string;
  /** The field's accessible name. */
  label: string;
  secret: string;
  /** What the gateway keeps instead of the secret. */
  keeps: string;
  onClose: () => void;
  children?: ComponentChildren;
}) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(props.secret);
    setCopied(true);
  };
  return html`<${Dialog} title=${props.title} onClose=${props.onClose}>
    <p class="warning" role="alert">
      Copy it now. It is shown only this once: the gateway keeps only ${props.keeps} and can never show it
      again.
    </p>
    <div class="row">
      <input class="secret" readonly aria-label=${props.label} value=${props.secret} />
      <button type="button" onClick=${() => void copy()}>${copied ? 'Copied' : 'Copy'}</button>
    </div>
    ${props.children}
    <div class="actions">
      <button type="button" class="primary" onClick=${props.onClose}>I have stored it</button>
    </div>
  <//>`;
}
