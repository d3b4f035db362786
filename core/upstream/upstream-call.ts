/**
 * HTTP exchanges with an upstream outside the proxy path (task submits and polls). They go through the
 * upstream's own keep-alive agent, so `max_sockets` bounds them with the proxied calls, and keep its two
 * timeouts apart: `connect` until a new socket connects, `response` until the answer has come whole.
 * Transport failures become the gateway's 502/504 errors; any HTTP answer is returned as it is.
 */
import { request as httpRequest, type Agent, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Errors, GatewayError } from '../base/errors';
import type { UpstreamTimeouts } from '../contracts/route';
import { connectDeadline } from './connect-deadline';
import { token } from '../base/token';
import type { JsonObject } from '../base/json';

export interface UpstreamAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
}

export interface UpstreamCall {
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
}

/** One upstream's calls outside the proxy path, as a plugin is given them (UpstreamCallerToken). */
export class UpstreamCaller {
  constructor(
    /** The upstream's name in gateway.yaml, as errors name it. */
    readonly upstream: string,
    private readonly agent: Agent,
    private readonly timeouts: UpstreamTimeouts,
  ) {}

  call(call: UpstreamCall): Promise<UpstreamAnswer> {
    const send = call.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(call.url, { method: call.method, headers: call.headers, agent: this.agent });
      const timeout = (phase: string) => () => fail(Errors.upstreamTimeout(this.upstream, phase));
      const answering = setTimeout(timeout('response'), this.timeouts.responseMs);
      let connecting: NodeJS.Timeout | undefined;
      const settled = (): void => {
        clearTimeout(answering);
        clearTimeout(connecting);
      };
      const fail = (e: unknown): void => {
        settled();
        reject(unreachable(this.upstream, e));
        req.destroy();
      };
      req.once('socket', (socket) => {
        connecting = connectDeadline(socket, this.timeouts.connectMs, timeout('connect'));
      });
      req.once('error', fail);
      req.once('response', (res) => {
        readAnswer(res).then((answer) => {
          settled();
          resolve(answer);
        }, fail);
      });
      req.end(call.body);
    });
  }
}

const unreachable = (upstream: string, e: unknown): GatewayError =>
  e instanceof GatewayError ? e : Errors.upstreamUnreachable(upstream, e);

async function readAnswer(res: IncomingMessage): Promise<UpstreamAnswer> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  if (!res.complete) throw new Error('the answer was cut short');
  return {
    status: res.statusCode ?? 502,
    contentType: res.headers['content-type'] ?? 'application/json',
    body: Buffer.concat(chunks),
  };
}

/** The answer's body as JSON, or undefined when it is not JSON. */
export function answerJson(answer: UpstreamAnswer): unknown {
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Statuses worth asking again about: the upstream is busy or broken for now, not saying no. */
export const isTransient = (status: number): boolean => status === 408 || status === 429 || status >= 500;

/**
 * The calls outside the proxy path (task submits and polls) of the upstream being constructed, through
 * its own agent and timeouts, and under its name in gateway.yaml.
 */
export const UpstreamCallerToken = token<UpstreamCaller>('UpstreamCaller');

/**
 * An exchange whose answer must be a JSON object with a 2xx status (a vendor's batch API): that object.
 * Otherwise a GatewayError: the vendor's own status and message for a refusal (a 4xx but 408 and 429:
 * nothing was done), 502 for a transient failure or an answer that is not a JSON object.
 */
export async function callForJson(caller: UpstreamCaller, call: UpstreamCall): Promise<JsonObject> {
  const answer = await caller.call(call);
  const json = answerJson(answer);
  const object =
    typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as JsonObject) : undefined;
  if (answer.status >= 200 && answer.status < 300 && object) return object;
  if (answer.status >= 400 && !isTransient(answer.status))
    throw new GatewayError(
      answer.status,
      'upstream_refused',
      `upstream ${caller.upstream}: ${vendorMessage(object)}`,
    );
  throw Errors.upstreamBadAnswer(caller.upstream, `${answer.status} to ${call.method} ${call.url.pathname}`);
}

/** The message of a vendor's error body in OpenAI's or Anthropic's shape, else a generic one. */
function vendorMessage(body: JsonObject | undefined): string {
  const error = body?.error;
  const message =
    typeof error === 'object' && error !== null && !Array.isArray(error)
      ? (error as JsonObject).message
      : undefined;
  return typeof message === 'string' ? message : 'refused the request';
}

/** `base` with `segments` added to its path, each percent-encoded (a vendor's id in its URL). */
export const urlUnder = (base: URL, ...segments: string[]): URL =>
  new URL(`${base.pathname.replace(/\/$/, '')}/${segments.map(encodeURIComponent).join('/')}`, base);

/** An exchange that sends `body` as JSON (with its content type) and names the request when asked. */
export function jsonExchange(
  method: UpstreamCall['method'],
  url: URL,
  headers: Readonly<Record<string, string>>,
  body?: JsonObject,
  requestId?: string,
): UpstreamCall {
  return {
    method,
    url,
    headers: {
      ...headers,
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(requestId ? { 'x-request-id': requestId } : {}),
    },
    ...(body ? { body: Buffer.from(JSON.stringify(body)) } : {}),
  };
}

/** A vendor's JSON API through `caller`, `headers` (its credential) on every call. */
export type VendorJson = (
  method: UpstreamCall['method'],
  url: URL,
  body?: JsonObject,
  requestId?: string,
) => Promise<JsonObject>;

/** callForJson of a jsonExchange, for one vendor: what a family's batch client calls its vendor with. */
export const vendorJson =
  (caller: UpstreamCaller, headers: Readonly<Record<string, string>>): VendorJson =>
  (method, url, body, requestId) =>
    callForJson(caller, jsonExchange(method, url, headers, body, requestId));
