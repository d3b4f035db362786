/** Previous / Next over a server-paged listing: the cursors of the pages walked so far, the last one shown. */
import { html } from 'htm/preact';

export function Pager(props: {
  cursors: (string | undefined)[];
  next: string | null;
  onChange: (cursors: (string | undefined)[]) => void;
}) {
  const { cursors, next, onChange } = props;
  return html`<div class="pager">
    <button type="button" disabled=${cursors.length === 1} onClick=${() => onChange(cursors.slice(0, -1))}>
      Previous
    </button>
    <span>Page ${cursors.length}</span>
    <button type="button" disabled=${!next} onClick=${() => onChange([...cursors, next ?? undefined])}>
      Next
    </button>
  </div>`;
}
