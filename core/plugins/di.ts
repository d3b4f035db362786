/**
 * Typed dependency-injection tokens (docs/conventions.md#convention-7). tsyringe symbols carry no type, so each
 * token is branded with the type it resolves to; only the composition root resolves them.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema';
import type { KeyService } from '../keys/key-service';
import type { UsageStore } from '../stores/usage-store';
import type { Pricing } from '../pricing';
import type { SpendTracker } from '../spend-tracker';
import type { Catalogue } from '../routing/catalogue';
import type { Resilience } from '../routing/resilience';
import type { LiveInstances } from '../redis/live-instances';
import type { RedisLink } from '../redis/redis-link';
import type { KeptState } from '../reload/kept-state';
import type { UpstreamCaller } from '../upstream/upstream-call';

export type Token<T> = symbol & { readonly __type?: T };
export const token = <T>(name: string): Token<T> => Symbol(name);

/** The link to Redis, or undefined when none is configured (each instance then counts alone). */
export const RedisToken = token<RedisLink | undefined>('RedisLink');
/** How many instances share Redis (undefined without Redis). */
export const LiveInstancesToken = token<LiveInstances | undefined>('LiveInstances');
export const ConfigToken = token<GatewayConfig>('GatewayConfig');
export const LoggerToken = token<Logger>('Logger');
export const KeyServiceToken = token<KeyService>('KeyService');
export const UsageStoreToken = token<UsageStore>('UsageStore');
export const PricingToken = token<Pricing>('Pricing');
/** Budgeted keys' spend: usage-metering and the video biller report each record they write to it. */
export const SpendTrackerToken = token<SpendTracker>('SpendTracker');
export const CatalogueToken = token<Catalogue>('Catalogue');
/** Retries and ejection: built once, kept across routing changes. */
export const ResilienceToken = token<Resilience>('Resilience');
/** The validated options block of the plugin being constructed (registered in its own child container). */
export const PluginOptionsToken = token<unknown>('PluginOptions');
/**
 * The calls outside the proxy path (task submits and polls) of the upstream being constructed, through
 * its own agent and timeouts, and under its name in gateway.yaml.
 */
export const UpstreamCallerToken = token<UpstreamCaller>('UpstreamCaller');
/** State that outlives configuration snapshots (core/reload/kept-state.ts): limiter windows and the like. */
export const KeptStateToken = token<KeptState>('KeptState');
