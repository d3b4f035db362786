/**
 * Turns the `upstreams:` section into running Upstream objects: each entry's plugin is looked up by name,
 * its options are validated by the plugin's schema (errors name `upstreams.<name>.<field>`), and the
 * plugin class is resolved in a child container that holds those options. With a pool (hot reload), an
 * entry unchanged since a snapshot still in use gets that snapshot's Upstream, sockets and all.
 */
import type { DependencyContainer } from 'tsyringe';
import type { GatewayConfig } from '../../config/schema';
import { parseSection } from '../../config/validate';
import { pluginRegistration, provide, resolvePlugin } from './plugin-instances';
import { registeredPlugins } from './plugin-container';
import type { UpstreamPlugin } from '../contracts/upstream';
import { Upstream, upstreamAgent } from '../upstream/upstream';
import { UpstreamCaller, UpstreamCallerToken } from '../upstream/upstream-call';
import type { UpstreamPool } from '../upstream/upstream-pool';

export function buildUpstreams(
  config: GatewayConfig,
  parent: DependencyContainer,
  pool?: UpstreamPool,
): Upstream[] {
  const known = registeredPlugins('upstream', parent);
  const { upstream_connect, upstream_response } = config.server.timeouts;
  const build = (name: string, raw: GatewayConfig['upstreams'][string]): Upstream => {
    const registration = pluginRegistration(known, raw.plugin, `upstreams.${name}.plugin`, 'upstream plugin');
    const options = parseSection(registration.options, raw, `upstreams.${name}`);
    const timeouts = {
      connectMs: options.timeouts.connect ?? upstream_connect,
      responseMs: options.timeouts.response ?? upstream_response,
    };
    const agent = upstreamAgent(options);
    const plugin = resolvePlugin(registration, options, parent, [
      provide(UpstreamCallerToken, new UpstreamCaller(name, agent, timeouts)),
    ]);
    checkPlugin(raw.plugin, plugin);
    return new Upstream(name, plugin, agent, timeouts);
  };
  if (!pool) return Object.entries(config.upstreams).map(([name, raw]) => build(name, raw));
  const taken: Upstream[] = [];
  try {
    for (const [name, raw] of Object.entries(config.upstreams)) {
      const settings = JSON.stringify([raw, upstream_connect, upstream_response]);
      taken.push(pool.take(name, settings, () => build(name, raw)));
    }
    return taken;
  } catch (e) {
    pool.release(taken); // a bad entry: the ones before it are not kept for a snapshot that never runs
    throw e;
  }
}

/** A plugin serves task models only with `tasks`, and request/response models only with `prepare`. */
function checkPlugin(name: string, plugin: UpstreamPlugin): void {
  for (const model of plugin.models) {
    const able = model.api.kind === 'task' ? plugin.tasks !== undefined : plugin.prepare !== undefined;
    if (!able) throw new Error(`upstream plugin "${name}" lists ${model.id} but cannot serve its API`);
  }
}
