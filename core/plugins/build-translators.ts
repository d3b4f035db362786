/**
 * The API translators a gateway was given, built per snapshot like the other plugins. They take no
 * options: each serves its client API on its target API's models wherever both are served.
 */
import type { DependencyContainer } from 'tsyringe';
import { ApiServing } from '../routing/api-serving';
import { registeredPlugins } from './plugin-container';
import { resolvePlugin } from './plugin-instances';

export function buildApiServing(scope: DependencyContainer): ApiServing {
  const registrations = registeredPlugins('api-translator', scope).values();
  return new ApiServing([...registrations].map((registration) => resolvePlugin(registration, {}, scope)));
}
