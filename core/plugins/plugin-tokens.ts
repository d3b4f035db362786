/** What every plugin may be given besides the gateway's services: its own options and the configuration. */
import type { GatewayConfig } from '../../config/schema';
import { token } from '../base/token';

export const ConfigToken = token<GatewayConfig>('GatewayConfig');
/** The validated options block of the plugin being constructed (registered in its own child container). */
export const PluginOptionsToken = token<unknown>('PluginOptions');
