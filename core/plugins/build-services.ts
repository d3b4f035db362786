/**
 * The service plugins a configuration names (each a top-level section of gateway.yaml, e.g. `mcp:`),
 * built for one snapshot, and their endpoints for its route table.
 */
import type { DependencyContainer } from 'tsyringe';
import type { GatewayConfig } from '../../config/schema';
import { parseSection } from '../../config/validate';
import type { ServicePlugin } from '../contracts/service';
import { serviceEndpoint } from '../http/service-endpoint';
import type { Endpoint } from '../request/served-request';
import { registeredPlugins } from './plugin-container';
import { pluginRegistration, resolvePlugin } from './plugin-instances';

export function buildServices(config: GatewayConfig, scope: DependencyContainer): ServicePlugin[] {
  const known = registeredPlugins('service', scope);
  return Object.entries(config.sections ?? {}).map(([name, raw]) => {
    const registration = pluginRegistration(known, name, name, 'section');
    return resolvePlugin(registration, parseSection(registration.options, raw ?? {}, name), scope);
  });
}

export const servicesEndpoints = (services: readonly ServicePlugin[]): Endpoint[] =>
  services.flatMap((service) => service.endpoints.map(serviceEndpoint));
