/**
 * One HTTP exchange with an upstream outside the proxy path (task submits and polls), with the upstream's
 * timeouts. Transport failures become the gateway's 502/504 errors; any HTTP answer is returned as it is.
 */
import { Errors } from '../errors';
import { type UpstreamTimeouts } from '../plugins/plugin';

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

export async function callUpstream(
  upstream: string,
  call: UpstreamCall,
  timeouts: UpstreamTimeouts,
): Promise<UpstreamAnswer> {
  let res: Response;
  try {
    res = await fetch(call.url, {
      method: call.method,
      headers: call.headers,
      ...(call.body ? { body: call.body } : {}),
      signal: AbortSignal.timeout(timeouts.connectMs + timeouts.responseMs),
    });
    return {
      status: res.status,
      contentType: res.headers.get('content-type') ?? 'application/json',
      body: Buffer.from(await res.arrayBuffer()),
    };
  } catch (e) {
    if (e instanceof DOMException && e.name === 'TimeoutError')
      throw Errors.upstreamTimeout(upstream, 'response');
    throw Errors.upstreamUnreachable(upstream, e);
  }
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
