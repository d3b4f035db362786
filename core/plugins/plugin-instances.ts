/**
 * Turning a plugin named in gateway.yaml into an instance: find its registration (or stop start-up with
 * the path of the name and the plugins that do exist), then resolve its class in a child container that
 * holds its validated options and whatever else that kind of plugin is given.
 */
import type { DependencyContainer } from 'tsyringe';
import { ConfigError } from '../../config/errors';
import { type Token } from '../base/token';
import type { OptionsOf, PluginKind, PluginOf, PluginRegistration } from './define-plugin';

/** The registration of `name`; `what` names the kind in the error (`middleware`, `upstream plugin`). */
export function pluginRegistration<K extends PluginKind>(
  known: ReadonlyMap<string, PluginRegistration<K>>,
  name: string,
  path: string,
  what: string,
): PluginRegistration<K> {
  const registration = known.get(name);
  if (!registration) {
    throw new ConfigError(path, `unknown ${what} "${name}" (known: ${[...known.keys()].join(', ')})`);
  }
  return registration;
}

/** A value the plugin's constructor may inject beside its options, registered in its child container. */
export type Provided = (child: DependencyContainer) => void;

/** `value` for the token that names its type. */
export const provide =
  <T>(token: Token<T>, value: T): Provided =>
  (child) =>
    child.register(token, { useValue: value });

/** The plugin's instance, built in its own child container holding `options` and `provided`. */
export function resolvePlugin<K extends PluginKind>(
  registration: PluginRegistration<K>,
  options: OptionsOf<K>,
  parent: DependencyContainer,
  provided: readonly Provided[] = [],
): PluginOf<K> {
  const child = parent.createChildContainer();
  child.register(registration.optionsToken, { useValue: options });
  for (const provision of provided) provision(child);
  return child.resolve(registration.cls);
}
