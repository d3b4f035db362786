/**
 * Authentication: `Authorization: Bearer sk-…` (or `x-api-key`, which Anthropic-style clients send).
 * Unknown, missing or past its `expires_at` → 401 `unauthorized` (the same answer); disabled → 403.
 * Expiry is judged now, on every request, so a record held in the key cache still expires on time.
 */
import { inject } from 'tsyringe';
import type { GatewayContext } from '../context';
import { KeyServiceToken } from '../di';
import { Errors } from '../errors';
import type { KeyService } from '../keys/key-service';
import { isExpired } from '../stores/key-store';
import { middlewarePlugin, type Middleware, type Next } from '../plugin';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function presentedKey(ctx: GatewayContext): string | undefined {
  const authorization = ctx.req.headers.authorization;
  if (authorization) return BEARER.exec(authorization)?.[1];
  const apiKey = ctx.req.headers['x-api-key'];
  return typeof apiKey === 'string' ? apiKey.trim() : undefined;
}

@middlewarePlugin('auth')
export class AuthMiddleware implements Middleware {
  constructor(@inject(KeyServiceToken) private readonly keys: KeyService) {}

  async handle(ctx: GatewayContext, next: Next): Promise<void> {
    const presented = presentedKey(ctx);
    const key = presented ? await this.keys.lookup(presented) : undefined;
    if (!key || isExpired(key, Date.now())) throw Errors.unauthorized();
    if (!key.enabled) throw Errors.keyDisabled();
    ctx.key = key;
    return next();
  }
}
