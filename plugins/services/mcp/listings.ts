/**
 * The gateway's listings: every configured server's tools, prompts, resources and resource templates
 * together, read whole from each (the gateway answers in one page). Tools and prompts are renamed
 * `<server>__<name>`; resources keep their URIs (a tool's result may link one), and which server listed a
 * URI is remembered for reading it.
 */
import {
  ErrorCode,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { FrontRequest } from './front-request';
import { gatewayName } from './tool-names';
import { upstreamError, type UpstreamLink } from './upstream-client';

/** This many pages of one server's listing at most. */
const MAX_PAGES = 50;

/** Every page of a paginated listing. */
async function allPages<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const listed = await page(cursor);
    items.push(...listed.items);
    cursor = listed.nextCursor;
    if (cursor === undefined) break;
  }
  return items;
}

const params = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor });
const options = (link: UpstreamLink) => ({ timeout: link.server.config.timeout });

export async function listTools(front: FrontRequest): Promise<Tool[]> {
  const each = await eachServer(front, 'tools', async (link) => {
    const tools = await allPages(async (cursor) => {
      const { tools: items, nextCursor } = await link.client.listTools(params(cursor), options(link));
      return { items, nextCursor };
    });
    front.listed.tools(
      link.server.name,
      tools.map((tool) => tool.name),
    );
    return tools
      .filter((tool) => front.exposes(link.server, tool.name))
      .map((tool) => ({ ...tool, name: gatewayName(link.server.name, tool.name) }))
      .filter((tool) => front.allows(tool.name));
  });
  return each.flat();
}

export async function listPrompts(front: FrontRequest): Promise<Prompt[]> {
  const each = await eachServer(front, 'prompts', async (link) => {
    const prompts = await allPages(async (cursor) => {
      const { prompts: items, nextCursor } = await link.client.listPrompts(params(cursor), options(link));
      return { items, nextCursor };
    });
    return prompts.map((prompt) => ({ ...prompt, name: gatewayName(link.server.name, prompt.name) }));
  });
  return each.flat();
}

export async function listResources(front: FrontRequest): Promise<Resource[]> {
  const each = await eachServer(front, 'resources', async (link) => {
    const resources = await allPages(async (cursor) => {
      const { resources: items, nextCursor } = await link.client.listResources(params(cursor), options(link));
      return { items, nextCursor };
    });
    for (const resource of resources) front.listed.owns(resource.uri, link.server.name);
    return resources.map((resource) => ({ ...resource, name: gatewayName(link.server.name, resource.name) }));
  });
  return each.flat();
}

export async function listResourceTemplates(front: FrontRequest): Promise<ResourceTemplate[]> {
  const each = await eachServer(front, 'resource templates', async (link) => {
    const templates = await allPages(async (cursor) => {
      const listed = await link.client.listResourceTemplates(params(cursor), options(link));
      return { items: listed.resourceTemplates, nextCursor: listed.nextCursor };
    });
    return templates.map((template) => ({ ...template, name: gatewayName(link.server.name, template.name) }));
  });
  return each.flat();
}

/**
 * `read` of every configured server, at once. A server that cannot answer is left out of the listing
 * (and logged) rather than failing it: one server down does not hide every other's tools.
 */
async function eachServer<T>(
  front: FrontRequest,
  what: string,
  read: (link: UpstreamLink) => Promise<T[]>,
): Promise<T[][]> {
  return Promise.all(
    front.servers.map(async (server) => {
      try {
        return await read(await front.links.get(server));
      } catch (e) {
        const error = upstreamError(server, e);
        if (error.code !== (ErrorCode.MethodNotFound as number))
          front.logger.warn(
            { server: server.name, err: error.message },
            `MCP server left out of the ${what} listed`,
          );
        return [];
      }
    }),
  );
}
