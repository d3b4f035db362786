import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { ConfiguredUpstream, UpstreamPlugin, UpstreamTimeouts } from '../plugins/plugin';
import type { UpstreamOptions } from './upstream-options';

/** A configured upstream: a place and a credential, spoken to through its plugin over keep-alive sockets. */
export class Upstream implements ConfiguredUpstream {
  readonly agent: Agent;

  constructor(
    readonly name: string,
    readonly plugin: UpstreamPlugin,
    options: UpstreamOptions,
    readonly timeouts: UpstreamTimeouts,
  ) {
    const agentOptions = { keepAlive: true, maxSockets: options.max_sockets, scheduling: 'lifo' as const };
    this.agent = options.base_url.startsWith('https:')
      ? new HttpsAgent(agentOptions)
      : new Agent(agentOptions);
  }

  close(): void {
    this.agent.destroy();
  }
}
