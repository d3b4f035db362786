/**
 * Tool calls through the gateway's MCP endpoint, in the usage view: their records carry no tokens but a
 * tool, its server and how the call ended, so the view shows those, and the latest calls one by one.
 */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { List, UsageRecord } from '../../core/admin/wire';
import { api } from './api';
import { money, utc } from './format';
import { useLoad } from './use-load';

/** The endpoint id of tool calls, as usage records hold it. */
export const TOOL_ENDPOINT = 'mcp';

/** How many of the latest calls the list shows. */
const LATEST = 50;

/**
 * A tool's gateway name split into its server and the server's own name of it: `<server>__<tool>`,
 * and a server's name holds no `__` (configuration.md, "The MCP endpoint"), so the first one splits it.
 */
export function toolParts(name: string): { server: string; tool: string } {
  const at = name.indexOf('__');
  return at < 0 ? { server: '', tool: name } : { server: name.slice(0, at), tool: name.slice(at + 2) };
}

/** How a call ended, in the colours the task list gives its statuses: done, cut short by the client, failed. */
const outcomeClass = (outcome: string): string =>
  outcome === 'ok' ? 'succeeded' : outcome === 'client_closed' ? 'cancelled' : 'failed';

function latestPath(keyId: string, model: string): string {
  const params = new URLSearchParams({ endpoint: TOOL_ENDPOINT, limit: String(LATEST) });
  if (keyId) params.set('key_id', keyId);
  if (model) params.set('model', model);
  return `/admin/usage?${params.toString()}`;
}

/** The latest tool calls, newest first, by the key and tool the view's filters chose (not by its range). */
export function ToolCalls(props: { keyId: string; model: string }) {
  const path = latestPath(props.keyId, props.model);
  const [calls, setCalls] = useState<readonly UsageRecord[]>([]);
  const [loaded, setLoaded] = useState('');
  const [error, setError] = useState('');
  useLoad(
    () => api<List<UsageRecord>>('GET', path),
    (r) => (setCalls([...r.data].reverse()), setLoaded(path), setError('')),
    setError,
    [path],
  );
  return html`<div class="toolbar" data-loaded=${loaded}>
      <h2>Latest tool calls</h2>
      <span class="hint">the newest ${LATEST}, whatever the range</span>
    </div>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <table class="tool-calls">
      <thead>
        <tr>
          <th>Time</th>
          <th>Tool</th>
          <th>Server</th>
          <th>Key</th>
          <th>Outcome</th>
          <th>Latency</th>
          <th>Cost</th>
        </tr>
      </thead>
      <tbody>
        ${
          calls.length === 0 &&
          html`<tr>
            <td colspan="7" class="empty">No tool calls.</td>
          </tr>`
        }
        ${calls.map(
          (c) =>
            html`<tr key=${c.id} data-call=${c.id}>
              <td>${utc(c.created_at, true)}</td>
              <td>${c.tool ?? c.model}</td>
              <td>${c.server ?? c.upstream}</td>
              <td>${c.key_id ? html`<code>${c.key_id}</code>` : html`<span class="muted">—</span>`}</td>
              <td><span class=${`status ${outcomeClass(c.outcome)}`}>${c.outcome}</span></td>
              <td>${c.latency_ms.toLocaleString('en-US')} ms</td>
              <td>${c.cost_micros === null ? html`<span class="muted">—</span>` : money(c.cost_micros)}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}
