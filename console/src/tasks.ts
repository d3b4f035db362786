/** Video tasks: a server-paged list, newest first, filterable by status, key and model; a task's detail. */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { Page, TaskDetail, TaskStatus, TaskView } from '../../core/admin/wire';
import { api } from './api';
import { Dialog } from './dialog';
import { FilterInput } from './filter-input';
import { Pager } from './pager';
import { useLoad } from './use-load';
import { money, utc } from './format';

const PAGE_SIZE = 50;
const STATUSES: TaskStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

interface Filters {
  status: string;
  key: string;
  model: string;
}

function pagePath(f: Filters, cursor: string | undefined): string {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (f.status) params.set('status', f.status);
  if (f.key.trim()) params.set('key_id', f.key.trim());
  if (f.model.trim()) params.set('model', f.model.trim());
  if (cursor) params.set('cursor', cursor);
  return `/admin/tasks?${params.toString()}`;
}

const cost = (micros: number | null) =>
  micros === null ? html`<span class="muted">—</span>` : money(micros);

export function TasksView() {
  const [filters, setFilters] = useState<Filters>({ status: '', key: '', model: '' });
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<Page<TaskView>>({ data: [], next_cursor: null });
  const [error, setError] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const cursor = cursors[cursors.length - 1];

  useLoad(
    () => api<Page<TaskView>>('GET', pagePath(filters, cursor)),
    (p) => (setPage(p), setError('')),
    setError,
    [filters, cursor],
  );

  const commit = (name: keyof Filters) => (value: string) => {
    setFilters({ ...filters, [name]: value });
    setCursors([undefined]);
  };
  const filter = (name: keyof Filters) => (e: Event) => commit(name)((e.target as HTMLInputElement).value);

  return html`<section>
    <div class="toolbar">
      <h1>Video tasks</h1>
      <select name="status" aria-label="Status" value=${filters.status} onChange=${filter('status')}>
        <option value="">Any status</option>
        ${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
      </select>
      <${FilterInput}
        name="key"
        placeholder="Key id (all keys)"
        value=${filters.key}
        onCommit=${commit('key')}
      />
      <${FilterInput}
        name="model"
        placeholder="Model (all models)"
        value=${filters.model}
        onCommit=${commit('model')}
      />
    </div>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <table class="tasks">
      <thead>
        <tr>
          <th>Task</th>
          <th>Status</th>
          <th>Model</th>
          <th>Key</th>
          <th>Protocol</th>
          <th>Created</th>
          <th>Finished</th>
          <th>Cost</th>
          <th>Upstream error</th>
        </tr>
      </thead>
      <tbody>
        ${
          page.data.length === 0 &&
          html`<tr>
            <td colspan="9" class="empty">No tasks match.</td>
          </tr>`
        }
        ${page.data.map(
          (task) =>
            html`<tr key=${task.id} data-task=${task.id}>
              <td>
                <button type="button" class="link" onClick=${() => setOpen(task.id)}>
                  <code>${task.id}</code>
                </button>
              </td>
              <td><span class=${`status ${task.status}`}>${task.status}</span></td>
              <td>${task.model}</td>
              <td>${task.key_id ? html`<code>${task.key_id}</code>` : html`<span class="muted">—</span>`}</td>
              <td>${task.protocol}</td>
              <td>${utc(task.created_at)}</td>
              <td>${utc(task.finished_at ?? undefined)}</td>
              <td>${cost(task.cost_micros)}</td>
              <td>${task.error ? html`<code>${task.error.code}</code> ${task.error.message}` : ''}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <${Pager} cursors=${cursors} next=${page.next_cursor} onChange=${setCursors} />
    ${open && html`<${TaskDialog} id=${open} onClose=${() => setOpen(null)} />`}
  </section>`;
}

/** One task: what was asked and made, what it cost, and every status it went through. */
function TaskDialog(props: { id: string; onClose: () => void }) {
  const [task, setTask] = useState<TaskDetail | null>(null);
  const [error, setError] = useState('');
  useLoad(() => api<TaskDetail>('GET', `/admin/tasks/${encodeURIComponent(props.id)}`), setTask, setError, [
    props.id,
  ]);
  const facts: [string, unknown][] = task
    ? [
        ['Status', html`<span class=${`status ${task.status}`}>${task.status}</span>`],
        ['Model', `${task.model} (upstream ${task.upstream})`],
        ['Key', task.key_id ?? '—'],
        ['Protocol', task.protocol],
        [
          'Asked',
          [task.params.resolution, task.params.duration_s && `${task.params.duration_s} s`]
            .filter(Boolean)
            .join(', ') || '—',
        ],
        ['Made', task.usage ? JSON.stringify(task.usage) : '—'],
        ['Cost', cost(task.cost_micros)],
        ['Upstream task', task.upstream_task_id ?? '—'],
        ['Request id', task.request_id],
        ['Polls', task.polls],
        ['Video', task.video_url ?? '—'],
        ['Error', task.error ? `${task.error.code}: ${task.error.message}` : '—'],
      ]
    : [];
  return html`<${Dialog} title=${`Task ${props.id}`} onClose=${props.onClose}>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${
      task &&
      html`<dl class="facts">
          ${facts.map(
            ([name, value]) =>
              html`<dt>${name}</dt>
                <dd>${value}</dd>`,
          )}
        </dl>
        <h3>Status history</h3>
        <table class="history">
          <thead>
            <tr>
              <th>Status</th>
              <th>At</th>
            </tr>
          </thead>
          <tbody>
            ${task.history.map(
              (h) =>
                html`<tr>
                  <td><span class=${`status ${h.status}`}>${h.status}</span></td>
                  <td>${h.at.replace('T', ' ').replace('Z', ' UTC')}</td>
                </tr>`,
            )}
          </tbody>
        </table>`
    }
    <div class="actions">
      <button type="button" onClick=${props.onClose}>Close</button>
    </div>
  <//>`;
}
