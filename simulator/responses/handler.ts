import type { Call, JsonAnswer } from '../call';
import { readControls, type Controls } from '../controls';
import type { Exchange, RouteHandler } from '../exchange';
import { DEFAULT_TOKENS, echoText } from '../reply-text';
import { SimErrors, type SimError } from '../sim-error';
import { streamEvents } from '../sse-writer';
import { planReply, type ReplyPlan } from '../chat/reply';
import type { ChatRequest } from '../chat/request';
import { unixSeconds } from '../ids';
import { EventCounter, responseEvents } from './events';
import { newResponseMeta, outputItem, responseBody, responsesUsage } from './response';
import { parseResponsesRequest } from './request';

/** The vendor's error object, as its family renders a SimError (`{message, type, param, code}`). */
export type ErrorObject = (err: SimError) => Record<string, unknown>;

/**
 * The stream's failure as the live API sends it: the `error` event with its members nested under
 * `error`, then `response.failed` (recorded in test/kit/fixtures/responses/stream-error.jsonl).
 */
function failureFrames(
  events: EventCounter,
  failed: (error: Record<string, unknown>) => Record<string, unknown>,
  error: Record<string, unknown>,
): string {
  const { type, code = null, message, param = null } = error;
  return (
    events.frame('error', {}, { error: { type, code, message, param } }) +
    events.frame('response.failed', {}, { response: failed({ code: code ?? type, message }) })
  );
}

/** A Responses request as read, and the controls it carries. */
interface ResponsesCall {
  readonly req: ChatRequest;
  readonly controls: Controls;
}

function readResponses(call: Call): ResponsesCall {
  const req = parseResponsesRequest(call.body);
  return { req, controls: readControls(call.headers, req.lastUserText) };
}

/** The forced status, then the reply, planned as the family's chat reply is. */
function replyTo(call: Call, { req, controls }: ResponsesCall): ReplyPlan {
  if (controls.status !== undefined) throw SimErrors.status(controls.status);
  return planReply(req, {
    tokens: controls.tokens ?? DEFAULT_TOKENS,
    reasoningTokens: 0,
    echoText: controls.echo === true ? echoText(call) : null,
    cachedTokens: call.promptCache.read(`${call.familyName}:${req.model}`, req.start, controls.promptCacheMs),
  });
}

/** The whole Response, `incomplete` when `max_output_tokens` cut it short. */
function wholeResponse(call: Call, responses: ResponsesCall): Record<string, unknown> {
  const plan = replyTo(call, responses);
  const choice = plan.choices[0]!;
  const meta = newResponseMeta(choice, unixSeconds());
  const status = choice.finishReason === 'length' ? 'incomplete' : 'completed';
  const item = outputItem(choice, meta, status, choice.toolCall ? null : (choice.content ?? []).join(''));
  return responseBody(responses.req, meta, { status, output: [item], usage: responsesUsage(plan.usage) });
}

function stream(errorObject: ErrorObject, ex: Exchange, responses: ResponsesCall): void {
  const { req, controls } = responses;
  const plan = replyTo(ex, responses);
  const meta = newResponseMeta(plan.choices[0]!, unixSeconds());
  const events = new EventCounter();
  const failed = (error: Record<string, unknown>) =>
    responseBody(req, meta, { status: 'failed', output: [], usage: null, error });
  streamEvents(ex, responseEvents(req, plan, meta, events), controls, {
    done: null,
    errorFrame: () => failureFrames(events, failed, errorObject(SimErrors.midStream())),
  });
}

/**
 * One Responses exchange on a family that serves the API itself: validate, apply the controls (latency,
 * then a forced status), then answer with the Response or its event stream. The reply is planned as
 * the family's chat reply is, so words, tool calls and usage agree across the two APIs.
 */
async function handleResponses(errorObject: ErrorObject, ex: Exchange): Promise<void> {
  const responses = readResponses(ex);
  const { latencyMs } = responses.controls;
  if (latencyMs && !(await ex.delay(latencyMs))) return;
  if (responses.req.stream) return stream(errorObject, ex, responses);
  ex.sendJson(200, wholeResponse(ex, responses));
}

/** The route of a family's own Responses API, for its `withRoutes`. */
export const responsesRoute = (errorObject: ErrorObject): Readonly<Record<string, RouteHandler>> => ({
  'POST /v1/responses': (ex) => handleResponses(errorObject, ex),
});

/** The Response for a call that has no connection (a batch's line), as the route answers it. */
export const responsesAnswer: JsonAnswer = (call) => wholeResponse(call, readResponses(call));
