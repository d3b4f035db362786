import { readControls, type Controls } from '../controls';
import type { Exchange } from '../exchange';
import { bearerAuth, type Family } from '../family';
import { newCompletionId, unixSeconds } from '../ids';
import { DEFAULT_TOKENS, echoText } from '../reply-text';
import { SimErrors } from '../sim-error';
import { streamEvents, type StreamEnding } from '../sse-writer';
import { chatChunks } from './chunks';
import { completionBody, type CompletionMeta } from './completion';
import type { ChatDialect } from './dialect';
import { planReply, type ReplyPlan } from './reply';
import { parseChatRequest, type ChatRequest } from './request';

const DONE = 'data: [DONE]\n\n';

function plan(d: ChatDialect, ex: Exchange, req: ChatRequest, controls: Controls): ReplyPlan {
  const tokens = controls.tokens ?? DEFAULT_TOKENS;
  return planReply(req, {
    tokens,
    reasoningTokens: d.reasoningTokens(req, tokens),
    echoText: controls.echo === true ? echoText(ex) : null,
    cachedTokens: ex.promptCache.read(`${d.name}:${req.model}`, req.start, controls.promptCacheMs),
  });
}

function stream(d: ChatDialect, ex: Exchange, req: ChatRequest, reply: ReplyPlan, controls: Controls): void {
  const meta: CompletionMeta = { id: newCompletionId(), created: unixSeconds() };
  const ending: StreamEnding = {
    done: DONE,
    errorFrame: () => `data: ${JSON.stringify(d.errorBody(SimErrors.midStream(), ex.entry.id))}\n\n`,
  };
  streamEvents(ex, chatChunks(d, req, reply, meta), controls, ending);
}

/**
 * One chat-completions exchange: validate, apply the controls (latency, then a forced status),
 * then answer with JSON or a stream. Errors are thrown and rendered by the family.
 */
async function handleChat(d: ChatDialect, ex: Exchange): Promise<void> {
  const req = parseChatRequest(ex.body);
  const controls = readControls(ex.req.headers, req.lastUserText);
  if (controls.latencyMs && !(await ex.delay(controls.latencyMs))) return;
  if (controls.status !== undefined) throw SimErrors.status(controls.status);
  d.validate(req);
  const reply = plan(d, ex, req, controls);
  if (req.stream) return stream(d, ex, req, reply, controls);
  const meta: CompletionMeta = { id: newCompletionId(), created: unixSeconds() };
  ex.sendJson(200, completionBody(d, req, reply, meta));
}

/** Turns a chat dialect into a family serving `POST <mount><chatPath>` with bearer auth. */
export function chatFamily(d: ChatDialect): Family {
  return {
    name: d.name,
    mount: d.mount,
    defaultKey: d.defaultKey,
    requestIdHeader: d.requestIdHeader,
    routes: { [`POST ${d.chatPath}`]: (ex) => handleChat(d, ex) },
    authorized: bearerAuth,
    errorBody: (err, simId) => d.errorBody(err, simId),
  };
}
