/**
 * A failure as a Responses stream reports it: the chat upstream's in-stream error chunk
 * (`{"error":{message,type,param,code}}`, OpenAI's shape) or the gateway's own error (a cut, an idle
 * upstream), read into the `error` event's members, and the `error` of the failed Response.
 */
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import type { GatewayError } from '../../../core/kit/plugin';
import type { StreamError } from '../../apis/responses';

const text = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null;

/** The error of an upstream's error chunk; its members where it has them. */
export function upstreamStreamError(error: unknown): StreamError {
  const e = isJsonObject(error) ? error : {};
  return {
    code: text(e.code),
    message: text(e.message) ?? text(error) ?? 'the upstream failed while streaming',
    param: text(e.param),
    type: text(e.type) ?? 'server_error',
  };
}

/** The gateway's own error, as the contract writes it (`type` is the contract's `error`). */
export function gatewayStreamError(error: GatewayError): StreamError {
  const { code, message, type } = error.object();
  return { code, message, param: null, type };
}

/** The failed Response's `error` (`ResponseError`): a code, which the error's class stands in for. */
export const responseError = (error: StreamError): JsonObject => ({
  code: error.code ?? error.type,
  message: error.message,
});
