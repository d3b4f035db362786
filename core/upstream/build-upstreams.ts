/**
 * Turns the `upstreams:` section into running Upstream objects: each entry's plugin is looked up by name,
 * its options are validated by the plugin's schema (errors name `upstreams.<name>.<field>`), and the
 * plugin class is resolved in a child container that holds those options.
 */
import type { DependencyContainer } from 'tsyringe';
import type { GatewayConfig } from '../../config/schema';
import { ConfigError } from '../../config/errors';
import { parseSection } from '../../config/validate';
import { PluginOptionsToken, UpstreamNameToken } from '../di';
import { registeredUpstreams } from '../plugin';
import { Upstream } from './upstream';
import type { UpstreamOptions } from './upstream-options';

export function buildUpstreams(config: GatewayConfig, parent: DependencyContainer): Upstream[] {
  const known = registeredUpstreams(parent);
  return Object.entries(config.upstreams).map(([name, raw]) => {
    const registration = known.get(raw.plugin);
    if (!registration) {
      throw new ConfigError(
        `upstreams.${name}.plugin`,
        `unknown upstream plugin "${raw.plugin}" (known: ${[...known.keys()].join(', ')})`,
      );
    }
    const options = parseSection(registration.options, raw, `upstreams.${name}`) as UpstreamOptions;
    const child = parent.createChildContainer();
    child.register(PluginOptionsToken, { useValue: options });
    child.register(UpstreamNameToken, { useValue: name });
    const timeouts = {
      connectMs: options.timeouts.connect ?? config.server.timeouts.upstream_connect,
      responseMs: options.timeouts.response ?? config.server.timeouts.upstream_response,
    };
    return new Upstream(name, child.resolve(registration.cls), options, timeouts);
  });
}
