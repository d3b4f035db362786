/**
 * One `tools/call` relayed to its server: the client's progress token answered with the server's
 * progress, the server's other notifications about the call passed on, the client's cancellation (or
 * its leaving) carried to the server, the server's timeout applied; and the call told to the recorder
 * once, however it ended.
 */
import { performance } from 'node:perf_hooks';
import type { RequestHandlerExtra, RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ErrorCode,
  type CallToolRequest,
  type CallToolResult,
  type Progress,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallOutcome } from './call-recorder';
import type { FrontRequest } from './front-request';
import { splitName } from './tool-names';
import { RpcError, serverAnswered, upstreamError, type NamedServer } from './upstream-client';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * A client's `tools/call`: the tool found and allowed, the call admitted under the caller's budgets, then
 * relayed; a refusal (the server never asked) is told to the recorder.
 */
export async function callTool(
  front: FrontRequest,
  params: CallToolRequest['params'],
  extra: Extra,
): Promise<CallToolResult> {
  let release: () => void;
  let found: { server: NamedServer; tool: string };
  try {
    found = findTool(front, params.name);
    release = await front.admit(params.name);
  } catch (e) {
    front.recorder.refused(params.name);
    throw e;
  }
  try {
    return await relayCall(front, found.server, found.tool, params, extra);
  } finally {
    release();
  }
}

/** The server and its own tool name a client's name stands for; an RpcError when it is not one it may call. */
function findTool(front: FrontRequest, name: string): { server: NamedServer; tool: string } {
  const parts = splitName(name);
  const server = parts && front.servers.find((s) => s.name === parts.server);
  if (!parts || !server || !front.exposes(server, parts.name))
    throw new RpcError(ErrorCode.InvalidParams, `unknown tool "${name}"`);
  if (!front.allows(name))
    throw new RpcError(ErrorCode.InvalidParams, `tool "${name}" is not allowed for this API key`);
  return { server, tool: parts.name };
}

async function relayCall(
  front: FrontRequest,
  server: NamedServer,
  tool: string,
  params: CallToolRequest['params'],
  extra: Extra,
): Promise<CallToolResult> {
  const started = performance.now();
  const cancel = front.session ? front.calls.start(front.session.id, extra.requestId) : undefined;
  const signal = AbortSignal.any([extra.signal, front.gone, ...(cancel ? [cancel.signal] : [])]);
  // A server's stream that breaks off before its answer is the transport's error, not the call's: the
  // SDK would wait for the timeout. It ends the call at once instead.
  const broken = new AbortController();
  let outcome: CallOutcome = 'upstream_error';
  try {
    const link = await front.links.get(server);
    link.client.onerror = (error) => broken.abort(error);
    // Log lines and the like the server sends while it works belong to this call's stream.
    link.client.fallbackNotificationHandler = (notification) =>
      extra.sendNotification(notification as ServerNotification);
    const { request, options } = upstreamCall(tool, params, extra);
    const call = () =>
      link.client.callTool(request, undefined, {
        ...options,
        signal: AbortSignal.any([signal, broken.signal]),
        timeout: server.config.timeout,
      });
    const attributes = {
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': tool,
      'gateway.upstream': server.name,
    };
    const result = (await front.traced(`tools/call ${tool}`, attributes, call)) as CallToolResult;
    outcome = result.isError === true ? 'vendor_error' : 'ok';
    return result;
  } catch (e) {
    outcome = failedOutcome(e, signal);
    throw upstreamError(server, broken.signal.aborted ? broken.signal.reason : e);
  } finally {
    cancel?.done();
    const ms = performance.now() - started;
    front.recorder.ended({ server: server.name, tool, name: params.name, outcome, ms });
  }
}

/**
 * The call as the server is sent it, under its own name, with the client's `_meta` but its progress
 * token: the SDK asks the server for progress with one of its own, and what comes back is passed on
 * under the client's.
 */
function upstreamCall(
  tool: string,
  params: CallToolRequest['params'],
  extra: Extra,
): { request: CallToolRequest['params']; options: RequestOptions } {
  const { progressToken, ...meta } = params._meta ?? {};
  const request = {
    name: tool,
    arguments: params.arguments,
    ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
  };
  if (progressToken === undefined) return { request, options: {} };
  const onprogress = (progress: Progress) =>
    void extra.sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken } });
  return { request, options: { onprogress } };
}

/** A call the client cancelled or left; one the server refused (its own JSON-RPC error); or no answer. */
function failedOutcome(e: unknown, signal: AbortSignal): CallOutcome {
  if (signal.aborted) return 'client_closed';
  return serverAnswered(e) ? 'vendor_error' : 'upstream_error';
}
