import { readControls } from '../controls';
import type { Exchange, RouteHandler } from '../exchange';
import { DEFAULT_TOKENS, echoText } from '../reply-text';
import { SimErrors, type SimError } from '../sim-error';
import { streamEvents } from '../sse-writer';
import { planReply } from '../chat/reply';
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

/**
 * One Responses exchange on a family that serves the API itself: validate, apply the controls (latency,
 * then a forced status), then answer with the Response or its event stream. The reply is planned as
 * the family's chat reply is, so words, tool calls and usage agree across the two APIs.
 */
async function handleResponses(errorObject: ErrorObject, ex: Exchange): Promise<void> {
  const req = parseResponsesRequest(ex.body);
  const controls = readControls(ex.req.headers, req.lastUserText);
  if (controls.latencyMs && !(await ex.delay(controls.latencyMs))) return;
  if (controls.status !== undefined) throw SimErrors.status(controls.status);
  const tokens = controls.tokens ?? DEFAULT_TOKENS;
  const plan = planReply(req, {
    tokens,
    reasoningTokens: 0,
    echoText: controls.echo === true ? echoText(ex) : null,
    cachedTokens: ex.promptCache.read(`${ex.family.name}:${req.model}`, req.start, controls.promptCacheMs),
  });
  const choice = plan.choices[0]!;
  const meta = newResponseMeta(choice, unixSeconds());
  if (req.stream) {
    const events = new EventCounter();
    const failed = (error: Record<string, unknown>) =>
      responseBody(req, meta, { status: 'failed', output: [], usage: null, error });
    streamEvents(ex, responseEvents(req, plan, meta, events), controls, {
      done: null,
      errorFrame: () => failureFrames(events, failed, errorObject(SimErrors.midStream())),
    });
    return;
  }
  const status = choice.finishReason === 'length' ? 'incomplete' : 'completed';
  const item = outputItem(choice, meta, status, choice.toolCall ? null : (choice.content ?? []).join(''));
  ex.sendJson(200, responseBody(req, meta, { status, output: [item], usage: responsesUsage(plan.usage) }));
}

/** The route of a family's own Responses API, for its `withRoutes`. */
export const responsesRoute = (errorObject: ErrorObject): Readonly<Record<string, RouteHandler>> => ({
  'POST /v1/responses': (ex) => handleResponses(errorObject, ex),
});
