/** `simulator/families/<name>.ts` for a custom-protocol vendor: a small family speaking the placeholder. */
import type { FamilyNames } from '../names';
import type { NewFile } from './files';

export function customSimulator(n: FamilyNames): NewFile {
  const text = `/**
 * \`${n.name}\`: the simulator's side of the placeholder protocol of plugins/upstreams/${n.name}/ (written by
 * \`npm run new-family\`), so the shipped gateway.yaml answers for ${n.name}-* out of the box:
 * \`POST /${n.name}${n.basePath}/generate\` with \`{model, input: [{role, text}], max_output_tokens, stream}\`,
 * answering \`{id, output_text, stop_reason, usage}\` or a stream of \`delta\` events and one \`done\`.
 * When the plugin speaks the vendor's protocol, make this file speak it too: its route, body, answers,
 * stream events and error body. The controls (\`x-sim-*\`, \`#sim\`) work as for every family.
 */
import { randomUUID } from 'node:crypto';
import { type Controls, readControls } from '../controls';
import type { Exchange } from '../exchange';
import { bearerAuth, type Family } from '../family';
import { isRecord } from '../is-record';
import { DEFAULT_TOKENS, echoText, LOREM, pieces, tokensOf, words } from '../reply-text';
import { type SimError, SimErrors, statusDefaults, type StatusCatalog } from '../sim-error';
import { type StreamEnding, type StreamEvent, streamEvents } from '../sse-writer';

/** The vendor's flat error body, \`{code, message}\` (a placeholder). */
interface VendorError {
  readonly code: string;
  readonly message: string;
}

const ERRORS: StatusCatalog<VendorError> = {
  400: { code: 'invalid_request', message: 'The request is not valid.' },
  401: { code: 'unauthorized', message: 'The API key is not valid.' },
  404: { code: 'not_found', message: 'No such resource.' },
  429: { code: 'rate_limited', message: 'Too many requests.' },
  500: { code: 'server_error', message: 'The server had an error.' },
};

function errorBody(err: SimError): VendorError {
  const d = statusDefaults(ERRORS, err.status);
  return { code: err.detail.code ?? d.code, message: err.detail.message ?? d.message };
}

/** What the simulator acts on in a request. */
interface GenerateRequest {
  readonly stream: boolean;
  readonly maxOutputTokens: number | undefined;
  readonly promptChars: number;
  /** The last user turn's text, where \`#sim\` directives live. */
  readonly lastUserText: string;
}

const turnText = (turn: Record<string, unknown>): string => (typeof turn.text === 'string' ? turn.text : '');

/** @throws SimError 400 when the body lacks \`model\` or \`input\`. */
function parseRequest(body: unknown): GenerateRequest {
  if (!isRecord(body)) throw SimErrors.invalidParam('body', 'The request body must be a JSON object.');
  if (typeof body.model !== 'string' || body.model === '') throw SimErrors.missingParam('model');
  const input: readonly unknown[] = Array.isArray(body.input) ? body.input : [];
  if (input.length === 0) throw SimErrors.missingParam('input');
  const turns = input.filter(isRecord);
  const lastUser = turns.filter((turn) => turn.role === 'user').at(-1);
  const max = body.max_output_tokens;
  return {
    stream: body.stream === true,
    maxOutputTokens: typeof max === 'number' && max >= 0 ? max : undefined,
    promptChars: turns.reduce((chars, turn) => chars + turnText(turn).length, 0),
    lastUserText: lastUser ? turnText(lastUser) : '',
  };
}

/** The reply: its pieces of text (one token each), why it stopped, and its usage. */
interface Reply {
  readonly pieces: readonly string[];
  readonly stopReason: 'end' | 'max_output_tokens';
  readonly usage: { readonly input_tokens: number; readonly output_tokens: number };
}

function planReply(ex: Exchange, req: GenerateRequest, controls: Controls): Reply {
  const wanted = controls.tokens ?? DEFAULT_TOKENS;
  const count = Math.min(wanted, req.maxOutputTokens ?? wanted);
  // An echo is never capped, so that it always parses.
  const echo = controls.echo === true;
  const text = echo ? pieces(echoText(ex)) : words(LOREM, count, 0);
  return {
    pieces: text,
    stopReason: !echo && count < wanted ? 'max_output_tokens' : 'end',
    usage: { input_tokens: Math.max(1, tokensOf(req.promptChars)), output_tokens: text.length },
  };
}

const frame = (event: string, data: unknown): string => \`event: \${event}\\ndata: \${JSON.stringify(data)}\\n\\n\`;

function* replyEvents(reply: Reply): Generator<StreamEvent, void> {
  for (const [step, text] of reply.pieces.entries()) yield { frame: frame('delta', { text }), step };
  yield { frame: frame('done', { stop_reason: reply.stopReason, usage: reply.usage }), step: null };
}

// No end marker after \`done\`; \`error_after\` sends the vendor's error event.
const ENDING: StreamEnding = { done: null, errorFrame: () => frame('error', errorBody(SimErrors.midStream())) };

async function handleGenerate(ex: Exchange): Promise<void> {
  const req = parseRequest(ex.body);
  const controls = readControls(ex.req.headers, req.lastUserText);
  if (controls.latencyMs && !(await ex.delay(controls.latencyMs))) return;
  if (controls.status !== undefined) throw SimErrors.status(controls.status);
  const reply = planReply(ex, req, controls);
  if (req.stream) return streamEvents(ex, replyEvents(reply), controls, ENDING);
  ex.sendJson(200, {
    id: \`gen_\${randomUUID().replaceAll('-', '')}\`,
    output_text: reply.pieces.join(''),
    stop_reason: reply.stopReason,
    usage: reply.usage,
  });
}

/** What the simulator serves for ${n.name} (found on disk by index.ts). */
export const family: Family = {
  name: '${n.name}',
  mount: '/${n.name}',
  defaultKey: '${n.simKey}',
  requestIdHeader: 'x-request-id',
  routes: { 'POST ${n.basePath}/generate': handleGenerate },
  authorized: bearerAuth,
  errorBody,
};
`;
  return { path: `simulator/families/${n.name}.ts`, text };
}
