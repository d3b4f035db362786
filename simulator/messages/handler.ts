import type { Call, JsonAnswer } from '../call';
import { readControls, type Controls } from '../controls';
import type { Exchange } from '../exchange';
import { newMessageId } from '../ids';
import { DEFAULT_TOKENS, echoText } from '../reply-text';
import { SimErrors } from '../sim-error';
import { streamEvents, type StreamEnding } from '../sse-writer';
import { streamError } from './errors';
import { eventFrame, messageEvents } from './events';
import { messageBody } from './message';
import { planMessage, type MessagePlan } from './reply';
import { parseMessagesRequest, type MessagesRequest } from './request';
import { checkVersion } from './version';

// No `[DONE]`: `message_stop` ends a complete stream.
const ENDING: StreamEnding = { done: null, errorFrame: () => eventFrame(streamError()) };

/** A Messages request as read, and the controls it carries. */
interface MessagesCall {
  readonly req: MessagesRequest;
  readonly controls: Controls;
}

function readMessages(call: Call): MessagesCall {
  const req = parseMessagesRequest(call.body);
  return { req, controls: readControls(call.headers, req.prompt.lastUserText) };
}

/** The forced status, then the reply both answers (JSON and stream) are made of. */
function replyTo(call: Call, { req, controls }: MessagesCall): MessagePlan {
  if (controls.status !== undefined) throw SimErrors.status(controls.status);
  return planMessage(req, {
    tokens: controls.tokens ?? DEFAULT_TOKENS,
    echoText: controls.echo === true ? echoText(call) : null,
    cachedTokens: call.promptCache.read(
      `${call.familyName}:${req.model}`,
      req.prompt.start,
      controls.promptCacheMs,
    ),
  });
}

/**
 * One Messages exchange: the version header (checked after auth, as the vendor does), the body,
 * then the controls (latency, then a forced status), then a JSON or streamed answer.
 */
export async function handleMessages(ex: Exchange): Promise<void> {
  checkVersion(ex.req.headers);
  const messages = readMessages(ex);
  const { req, controls } = messages;
  if (controls.latencyMs && !(await ex.delay(controls.latencyMs))) return;
  const plan = replyTo(ex, messages);
  const id = newMessageId();
  if (req.stream) return streamEvents(ex, messageEvents(id, req.model, plan), controls, ENDING);
  ex.sendJson(200, messageBody(id, req.model, plan));
}

/**
 * The Message for a call that has no connection (a batch's request), as the route answers it; the version
 * header was the batch's to carry.
 */
export const messageAnswer: JsonAnswer = (call) => {
  const messages = readMessages(call);
  return messageBody(newMessageId(), messages.req.model, replyTo(call, messages));
};
