/**
 * `resources/read` of a URI: at the server that listed it (to this instance), else at each server in
 * the section's order until one has it (a URI from a template, or one a tool's result linked).
 */
import {
  ErrorCode,
  type ReadResourceRequest,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { FrontRequest } from './front-request';
import { RpcError, upstreamError, type NamedServer } from './upstream-client';

export async function readResource(
  front: FrontRequest,
  params: ReadResourceRequest['params'],
): Promise<ReadResourceResult> {
  const owner = front.listed.ownerOf(params.uri);
  const first = front.servers.filter((server) => server.name === owner);
  const rest = front.servers.filter((server) => server.name !== owner);
  for (const server of [...first, ...rest]) {
    const read = await readAt(front, server, params);
    if (read) return read;
  }
  throw new RpcError(ErrorCode.InvalidParams, `unknown resource "${params.uri}"`);
}

/** The server's answer, or undefined where it does not have the resource (or cannot be reached). */
async function readAt(
  front: FrontRequest,
  server: NamedServer,
  params: ReadResourceRequest['params'],
): Promise<ReadResourceResult | undefined> {
  try {
    const link = await front.links.get(server);
    return await link.client.readResource(params, { timeout: server.config.timeout });
  } catch (e) {
    front.logger.debug({ server: server.name, err: upstreamError(server, e).message }, 'resource not read');
    return undefined;
  }
}
