/** What every plugin may be given besides the gateway's services and its own options: the configuration. */
import type { GatewayConfig } from '../../config/schema';
import { token } from '../base/token';

export const ConfigToken = token<GatewayConfig>('GatewayConfig');
