/**
 * Authentication: `Authorization: Bearer sk-…` (or `x-api-key`, which Anthropic-style clients send).
 * Unknown, missing or past its `expires_at` → 401 `unauthorized` (the same answer); disabled → 403.
 * Expiry is judged now, on every request, so a record held in the key cache still expires on time.
 * A key in a team gets its team on `ctx.team`, from the team cache without a promise when it holds it; a
 * key whose team does not exist is refused with 403 `team_not_found` (fail closed: the team's limits
 * and budget could not be applied).
 *
 * Failed authentications are counted per client address (`keys.failed_auth_limit` in
 * `keys.failed_auth_window`; on Redis when it is configured, so instances share the count). Past the
 * limit the address's wrong, unknown and malformed keys get 429 without a store lookup, while a correct
 * key is still checked and admitted: the limit keeps floods of wrong keys off the store, and nobody
 * sharing an address with a misconfigured client is locked out by it.
 */
import { inject } from 'tsyringe';
import { LocalFailedAuthLimit, type FailedAuthLimit } from './failed-auth-limit';
import { SharedFailedAuthLimit } from './shared-failed-auth-limit';
import {
  ConfigToken,
  definePlugin,
  Errors,
  type GatewayConfig,
  type GatewayContext,
  traced,
} from '../../../core/kit/plugin';
import { isExpired, type KeyRecord, type Middleware, type Next } from '../../../core/kit/stage';
import {
  type KeptState,
  KeptStateToken,
  type KeyService,
  KeyServiceToken,
  type RedisLink,
  RedisToken,
  type TeamService,
  TeamServiceToken,
} from '../../../core/kit/tokens';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function presentedKey(ctx: GatewayContext): string | undefined {
  const authorization = ctx.headers.authorization;
  if (authorization) return BEARER.exec(authorization)?.[1];
  const apiKey = ctx.headers['x-api-key'];
  return typeof apiKey === 'string' ? apiKey.trim() : undefined;
}

@definePlugin({ kind: 'middleware', name: 'auth' })
export class AuthMiddleware implements Middleware {
  private readonly failures: FailedAuthLimit;

  constructor(
    @inject(KeyServiceToken) private readonly keys: KeyService,
    @inject(TeamServiceToken) private readonly teams: TeamService,
    @inject(ConfigToken) config: GatewayConfig,
    @inject(KeptStateToken) kept: KeptState,
    @inject(RedisToken) redis: RedisLink | undefined,
  ) {
    const { failed_auth_limit: limit, failed_auth_window: window } = config.keys;
    // Kept across reloads: a reload is no fresh start for an address guessing keys.
    this.failures = kept.keep(`auth:failures:${redis ? 'redis' : 'memory'}:${limit}:${window}`, () =>
      redis ? new SharedFailedAuthLimit(redis, limit, window) : new LocalFailedAuthLimit(limit, window),
    );
  }

  handle(ctx: GatewayContext, next: Next): Promise<void> {
    const presented = presentedKey(ctx);
    // A key in the cache is judged at once, whoever presents it; only a miss may wait for the store.
    const cached = presented === undefined ? undefined : this.keys.cached(presented);
    if (cached) return this.admit(ctx, cached, next);
    const blockedFor = this.failures.blockedFor(ctx.clientAddress);
    if (blockedFor !== undefined) return this.guarded(ctx, presented, blockedFor, next);
    if (presented === undefined) return this.admit(ctx, undefined, next);
    const lookup = traced(ctx, 'key lookup', () => this.keys.lookup(presented));
    return lookup.then((key) => this.admit(ctx, key, next));
  }

  /** An address past its limit: its key is checked without reaching the store for a guess (KeyService). */
  private async guarded(
    ctx: GatewayContext,
    presented: string | undefined,
    blockedFor: number,
    next: Next,
  ): Promise<void> {
    const arrivedAt = performance.now();
    const key =
      presented && (await traced(ctx, 'key lookup', () => this.keys.checkGuarded(presented, arrivedAt)));
    if (!key || isExpired(key, Date.now())) throw Errors.rateLimited(blockedFor);
    return this.admit(ctx, key, next);
  }

  private admit(ctx: GatewayContext, key: KeyRecord | undefined, next: Next): Promise<void> {
    if (!key || isExpired(key, Date.now())) return this.refuse(ctx);
    if (!key.enabled) throw Errors.keyDisabled();
    ctx.key = key;
    // A key without a team costs this one check.
    return key.team_id === undefined ? next() : this.admitTeam(ctx, key.team_id, next);
  }

  /** The key's team from the cache at once; only a miss waits for the store. */
  private admitTeam(ctx: GatewayContext, teamId: string, next: Next): Promise<void> {
    const cached = this.teams.cached(teamId);
    if (cached) {
      ctx.team = cached;
      return next();
    }
    return traced(ctx, 'team lookup', () => this.teams.lookup(teamId)).then((team) => {
      if (!team) throw Errors.keyTeamMissing();
      ctx.team = team;
      return next();
    });
  }

  /** 401, or 429 once the address is past its limit (counted by another instance too). */
  private async refuse(ctx: GatewayContext): Promise<never> {
    const counted = this.failures.failed(ctx.clientAddress);
    // Counted on Redis when instances share the count: that round trip is the request's I/O.
    const blockedFor =
      counted instanceof Promise ? await traced(ctx, 'failed auth count', () => counted) : counted;
    throw blockedFor === undefined ? Errors.unauthorized() : Errors.rateLimited(blockedFor);
  }
}
