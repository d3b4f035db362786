import type { Call, JsonAnswer } from '../call';
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

/** A chat request as read, and the controls it carries. */
interface ChatCall {
  readonly req: ChatRequest;
  readonly controls: Controls;
}

function readChat(call: Call): ChatCall {
  const req = parseChatRequest(call.body);
  return { req, controls: readControls(call.headers, req.lastUserText) };
}

/** The forced status, the dialect's refusals, then the reply both answers (JSON and stream) are made of. */
function replyTo(d: ChatDialect, call: Call, { req, controls }: ChatCall): ReplyPlan {
  if (controls.status !== undefined) throw SimErrors.status(controls.status);
  d.validate(req);
  const tokens = controls.tokens ?? DEFAULT_TOKENS;
  return planReply(req, {
    tokens,
    reasoningTokens: d.reasoningTokens(req, tokens),
    echoText: controls.echo === true ? echoText(call) : null,
    cachedTokens: call.promptCache.read(`${d.name}:${req.model}`, req.start, controls.promptCacheMs),
  });
}

/** The non-streamed answer: the completion, fresh id and all. */
function completion(d: ChatDialect, call: Call, chat: ChatCall): Record<string, unknown> {
  const meta: CompletionMeta = { id: newCompletionId(), created: unixSeconds() };
  return completionBody(d, chat.req, replyTo(d, call, chat), meta);
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
  const chat = readChat(ex);
  const { latencyMs } = chat.controls;
  if (latencyMs && !(await ex.delay(latencyMs))) return;
  if (chat.req.stream) return stream(d, ex, chat.req, replyTo(d, ex, chat), chat.controls);
  ex.sendJson(200, completion(d, ex, chat));
}

/** `d`'s chat completion for a call that has no connection (a batch's line), as the route answers it. */
export const chatAnswer =
  (d: ChatDialect): JsonAnswer =>
  (call) =>
    completion(d, call, readChat(call));

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
