/**
 * A text filter applied when the operator commits it (Enter or leaving the field). What is typed is kept
 * in the field's own state: a re-render of the page meanwhile (a load finishing) must not wipe it.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';

export function FilterInput(props: {
  name: string;
  placeholder: string;
  value: string;
  onCommit: (v: string) => void;
}) {
  const [draft, setDraft] = useState(props.value);
  useEffect(() => setDraft(props.value), [props.value]);
  return html`<input
    name=${props.name}
    placeholder=${props.placeholder}
    value=${draft}
    onInput=${(e: Event) => setDraft((e.target as HTMLInputElement).value)}
    onChange=${() => props.onCommit(draft)}
  />`;
}
