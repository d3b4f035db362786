import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { UpstreamPlugin } from '../plugin';
import type { UpstreamOptions } from './upstream-options';

export interface UpstreamTimeouts {
  readonly connectMs: number;
  readonly responseMs: number;
}

/** A configured upstream: a place and a credential, spoken to through its plugin over keep-alive sockets. */
export class Upstream {
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
