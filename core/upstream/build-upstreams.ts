/**
 * Turns the `upstreams:` section into running Upstream objects: each entry's plugin is looked up by name,
 * its options are validated by the plugin's schema (errors name `upstreams.<name>.<field>`), and the
 * plugin class is resolved in a child container that holds those options.
 */
import type { DependencyContainer } from 'tsyringe';
import type { GatewayConfig } from '../../config/schema';
import { parseSection } from '../../config/validate';
import { UpstreamNameToken, UpstreamTimeoutsToken } from '../di';
import { pluginRegistration, resolvePlugin } from '../plugin-instances';
import { registeredUpstreams, type UpstreamPlugin } from '../plugin';
import { Upstream } from './upstream';
import type { UpstreamOptions } from './upstream-options';

export function buildUpstreams(config: GatewayConfig, parent: DependencyContainer): Upstream[] {
  const known = registeredUpstreams(parent);
  return Object.entries(config.upstreams).map(([name, raw]) => {
    const registration = pluginRegistration(known, raw.plugin, `upstreams.${name}.plugin`, 'upstream plugin');
    const options = parseSection(registration.options, raw, `upstreams.${name}`) as UpstreamOptions;
    const timeouts = {
      connectMs: options.timeouts.connect ?? config.server.timeouts.upstream_connect,
      responseMs: options.timeouts.response ?? config.server.timeouts.upstream_response,
    };
    const plugin = resolvePlugin(registration, options, parent, [
      [UpstreamNameToken, name],
      [UpstreamTimeoutsToken, timeouts],
    ]);
    checkPlugin(raw.plugin, plugin);
    return new Upstream(name, plugin, options, timeouts);
  });
}

/** A plugin serves task models only with `tasks`, and request/response models only with `prepare`. */
function checkPlugin(name: string, plugin: UpstreamPlugin): void {
  for (const model of plugin.models) {
    const able = model.api.kind === 'task' ? plugin.tasks !== undefined : plugin.prepare !== undefined;
    if (!able) throw new Error(`upstream plugin "${name}" lists ${model.id} but cannot serve its API`);
  }
}
