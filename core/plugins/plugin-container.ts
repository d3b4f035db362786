/**
 * A gateway's own container, the way Fastify gives each instance its own context: it holds the plugins
 * that gateway was given, and every instance built from them resolves in it or in a child of it. Two
 * gateways in one process therefore share no plugin, no registration and no plugin state.
 */
import { container, type DependencyContainer } from 'tsyringe';
import { token, type Token } from '../base/token';
import type { AnyPluginRegistration, PluginKind, PluginRegistration } from './define-plugin';

const REGISTRIES: { readonly [K in PluginKind]: Token<PluginRegistration<K>> } = {
  middleware: token('MiddlewarePlugins'),
  upstream: token('UpstreamPlugins'),
  'task-protocol': token('TaskProtocolPlugins'),
  'api-translator': token('ApiTranslatorPlugins'),
  service: token('ServicePlugins'),
};

/** A new container holding `plugins`; a name given twice for one kind is refused. */
export function pluginContainer(plugins: readonly AnyPluginRegistration[]): DependencyContainer {
  // tsyringe has no free-standing container: a child of the root, where nothing is registered, is one.
  const scope = container.createChildContainer();
  const seen = new Set<string>();
  for (const plugin of plugins) {
    const key = `${plugin.kind} ${plugin.name}`;
    if (seen.has(key)) throw new Error(`a ${plugin.kind} plugin named "${plugin.name}" is given twice`);
    seen.add(key);
    scope.register(REGISTRIES[plugin.kind], { useValue: plugin });
  }
  return scope;
}

/** The plugins of a kind that `scope` (or the container it descends from) holds, by name. */
export function registeredPlugins<K extends PluginKind>(
  kind: K,
  scope: DependencyContainer,
): Map<string, PluginRegistration<K>> {
  const registry = REGISTRIES[kind];
  const all = scope.isRegistered(registry, true) ? scope.resolveAll<PluginRegistration<K>>(registry) : [];
  return new Map(all.map((r) => [r.name, r]));
}
