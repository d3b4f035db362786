import type { Agent } from 'node:http';
import type { ConfiguredUpstream, UpstreamTimeouts } from '../contracts/route';
import type { UpstreamPlugin } from '../contracts/upstream';
import type { UpstreamOptions } from './upstream-options';
import { LeanAgent, LeanHttpsAgent } from './lean-agent';

/**
 * The keep-alive sockets of one upstream, shared by its proxied calls and its task calls. Node's agent
 * already reuses the most recently freed socket first (`scheduling: 'lifo'`, its default), so the option
 * is left out: each request copies the agent's options into a dictionary, and one more key there makes
 * Node's server-name step regrow it (1.6 KB a request).
 */
export function upstreamAgent(options: UpstreamOptions): Agent {
  const agentOptions = { keepAlive: true, maxSockets: options.max_sockets };
  return options.base_url.startsWith('https:')
    ? new LeanHttpsAgent(agentOptions)
    : new LeanAgent(agentOptions);
}

/** A configured upstream: a place and a credential, spoken to through its plugin over keep-alive sockets. */
export class Upstream implements ConfiguredUpstream {
  constructor(
    readonly name: string,
    readonly plugin: UpstreamPlugin,
    readonly agent: Agent,
    readonly timeouts: UpstreamTimeouts,
  ) {}

  close(): void {
    this.agent.destroy();
  }
}
