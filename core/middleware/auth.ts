/**
 * Authentication: `Authorization: Bearer sk-…` (or `x-api-key`, which Anthropic-style clients send).
 * Unknown, missing or past its `expires_at` → 401 `unauthorized` (the same answer); disabled → 403.
 * Expiry is judged now, on every request, so a record held in the key cache still expires on time.
 * An address with too many 401s in a window (`keys.failed_auth_limit`) gets 429 until the window ends.
 */
import { inject } from 'tsyringe';
import type { GatewayConfig } from '../../config/schema';
import type { GatewayContext } from '../context';
import { ConfigToken, KeptStateToken, KeyServiceToken } from '../di';
import { Errors } from '../errors';
import type { KeyService } from '../keys/key-service';
import { isExpired, type KeyRecord } from '../stores/key-store';
import { definePlugin } from '../define-plugin';
import type { Middleware, Next } from '../plugin';
import type { KeptState } from '../reload/kept-state';
import { FailedAuthLimit } from './failed-auth-limit';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function presentedKey(ctx: GatewayContext): string | undefined {
  const authorization = ctx.req.headers.authorization;
  if (authorization) return BEARER.exec(authorization)?.[1];
  const apiKey = ctx.req.headers['x-api-key'];
  return typeof apiKey === 'string' ? apiKey.trim() : undefined;
}

@definePlugin({ kind: 'middleware', name: 'auth' })
export class AuthMiddleware implements Middleware {
  private readonly failures: FailedAuthLimit;

  constructor(
    @inject(KeyServiceToken) private readonly keys: KeyService,
    @inject(ConfigToken) config: GatewayConfig,
    @inject(KeptStateToken) kept: KeptState,
  ) {
    const { failed_auth_limit: limit, failed_auth_window: window } = config.keys;
    // Kept across reloads: a reload is no fresh start for an address guessing keys.
    this.failures = kept.keep(`auth:failures:${limit}:${window}`, () => new FailedAuthLimit(limit, window));
  }

  handle(ctx: GatewayContext, next: Next): Promise<void> {
    const address = ctx.req.socket.remoteAddress ?? 'unknown';
    // Checked before the lookup: a refused address costs neither an HMAC nor a store read.
    const blockedFor = this.failures.blockedFor(address);
    if (blockedFor !== undefined) throw Errors.rateLimited(blockedFor);
    const presented = presentedKey(ctx);
    if (!presented) return this.admit(ctx, undefined, address, next);
    // A key in the cache is judged at once; only a miss waits for the store.
    const cached = this.keys.cached(presented);
    if (cached) return this.admit(ctx, cached, address, next);
    return this.keys.lookup(presented).then((key) => this.admit(ctx, key, address, next));
  }

  private admit(ctx: GatewayContext, key: KeyRecord | undefined, address: string, next: Next): Promise<void> {
    if (!key || isExpired(key, Date.now())) {
      this.failures.failed(address);
      throw Errors.unauthorized();
    }
    if (!key.enabled) throw Errors.keyDisabled();
    ctx.key = key;
    return next();
  }
}
