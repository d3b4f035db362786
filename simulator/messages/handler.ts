import type { IncomingHttpHeaders } from 'node:http';
import { readControls } from '../controls';
import type { Exchange } from '../exchange';
import { newMessageId } from '../ids';
import { DEFAULT_TOKENS, echoText } from '../reply-text';
import { SimErrors } from '../sim-error';
import { streamEvents, type StreamEnding } from '../sse-writer';
import { streamError } from './errors';
import { eventFrame, messageEvents } from './events';
import { messageBody } from './message';
import { planMessage } from './reply';
import { parseMessagesRequest } from './request';

/** Where the vendor has `anthropic-version`; the one version docs/upstreams.md#modeld documents. */
const VERSION_HEADER = 'modeld-version';
const VERSION = '2023-06-01';

// No `[DONE]`: `message_stop` ends a complete stream.
const ENDING: StreamEnding = { done: null, errorFrame: () => eventFrame(streamError()) };

/** @throws SimError 400 when the version header is missing or names another version. */
function checkVersion(headers: IncomingHttpHeaders): void {
  const version = headers[VERSION_HEADER];
  if (version === undefined) {
    throw SimErrors.invalidParam(VERSION_HEADER, `${VERSION_HEADER}: header is required`);
  }
  if (version !== VERSION) {
    const why = `${VERSION_HEADER}: ${JSON.stringify(version)} is not a valid version (use ${VERSION})`;
    throw SimErrors.invalidParam(VERSION_HEADER, why);
  }
}

/**
 * One Messages exchange: the version header (checked after auth, as the vendor does), the body,
 * then the controls (latency, then a forced status), then a JSON or streamed answer.
 */
export async function handleMessages(ex: Exchange): Promise<void> {
  checkVersion(ex.req.headers);
  const req = parseMessagesRequest(ex.body);
  const controls = readControls(ex.req.headers, req.prompt.lastUserText);
  if (controls.latencyMs && !(await ex.delay(controls.latencyMs))) return;
  if (controls.status !== undefined) throw SimErrors.status(controls.status);
  const plan = planMessage(req, {
    tokens: controls.tokens ?? DEFAULT_TOKENS,
    echoText: controls.echo === true ? echoText(ex) : null,
    cachedTokens: ex.promptCache.read(
      `${ex.family.name}:${req.model}`,
      req.prompt.start,
      controls.promptCacheMs,
    ),
  });
  const id = newMessageId();
  if (req.stream) return streamEvents(ex, messageEvents(id, req.model, plan), controls, ENDING);
  ex.sendJson(200, messageBody(id, req.model, plan));
}
