/** A modal dialog on the native <dialog> element: focus trapped, Escape closes. */
import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';
import type { ComponentChildren } from 'preact';

export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return html`<dialog ref=${ref} class="dialog" aria-label=${props.title} onClose=${props.onClose}>
    <h2>${props.title}</h2>
    ${props.children}
  </dialog>`;
}

/** Asks before a change that cannot be taken back (or cuts clients off). */
export function Confirm(props: {
  title: string;
  message: string;
  action: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  return html`<${Dialog} title=${props.title} onClose=${props.onClose}>
    <p>${props.message}</p>
    <div class="actions">
      <button type="button" onClick=${props.onClose}>Cancel</button>
      <button type="button" class="danger" onClick=${() => void props.onConfirm()}>${props.action}</button>
    </div>
  <//>`;
}
